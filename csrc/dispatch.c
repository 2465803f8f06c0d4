/* Kernel tables per ISA tier, built once from the per-op register functions,
 * and the active-tier switch (SIMDOPS_ISA / use_isa, set from Python). */
#include <stdio.h>
#include <string.h>

#include "cpu.h"
#include "internal.h"

typedef struct tier {
    const char *name;
    simdops_register_fn parts[4]; /* clip, shrink, hardmax, requant */
    int (*supported)(const simdops_cpu *c);
} tier;

static int always(const simdops_cpu *c) { (void)c; return 1; }
#if defined(__x86_64__) || defined(__i386__) || defined(_M_X64) || defined(_M_IX86)
static int has_sse2(const simdops_cpu *c) { return c->sse2; }
static int has_sse41(const simdops_cpu *c) { return c->sse2 && c->sse41; }
static int has_avx2(const simdops_cpu *c) { return c->avx && c->avx2 && c->f16c && c->os_ymm; }
#elif defined(__aarch64__) || defined(_M_ARM64)
static int has_neon(const simdops_cpu *c) { return c->neon; }
#endif

static const tier tiers[] = {
    {"scalar", {clip_register__scalar, shrink_register__scalar, hardmax_register__scalar, requant_register__scalar}, always},
#if defined(__x86_64__) || defined(__i386__) || defined(_M_X64) || defined(_M_IX86)
    {"sse2", {clip_register__sse2, shrink_register__sse2, hardmax_register__sse2, requant_register__sse2}, has_sse2},
    {"sse41", {clip_register__sse41, shrink_register__sse41, hardmax_register__sse41, requant_register__sse41}, has_sse41},
    {"avx2", {clip_register__avx2, shrink_register__avx2, hardmax_register__avx2, requant_register__avx2}, has_avx2},
#elif defined(__aarch64__) || defined(_M_ARM64)
    {"neon", {clip_register__neon, shrink_register__neon, hardmax_register__neon, requant_register__neon}, has_neon},
#endif
};
#define TIER_COUNT ((int)(sizeof(tiers) / sizeof(tiers[0])))

static simdops_kernel_table tables[SIMDOPS_MAX_TIERS];
static int usable[SIMDOPS_MAX_TIERS];
static int built;
static int active;

/* Entries a tier leaves NULL are inherited from the tier below. */
#define INHERIT(field, count)                    \
    for (int i = 0; i < (count); i++)            \
        if (!t->field[i])                        \
            t->field[i] = below->field[i];

static void inherit(simdops_kernel_table *t, const simdops_kernel_table *below)
{
    INHERIT(clip, SIMDOPS_DTYPE_COUNT)
    INHERIT(clip_scale_bias, SIMDOPS_DTYPE_COUNT)
    INHERIT(shrink, SIMDOPS_DTYPE_COUNT)
    INHERIT(argmax_row, SIMDOPS_DTYPE_COUNT)
    INHERIT(argmax_cols, SIMDOPS_DTYPE_COUNT)
    INHERIT(requant, SIMDOPS_RQ_COUNT)
    INHERIT(requant_pc, SIMDOPS_RQ_COUNT)
}

static void build(void)
{
    const simdops_cpu *cpu;
    if (built)
        return;
    cpu = simdops_cpu_detect();
    for (int i = 0; i < TIER_COUNT; i++) {
        simdops_kernel_table *t = &tables[i];
        memset(t, 0, sizeof(*t));
        t->isa = tiers[i].name;
        usable[i] = 0;
        /* Register functions live in ISA translation units, where the compiler
         * may use the ISA even for plain stores: run them only on CPUs that
         * have it. */
        if (tiers[i].supported(cpu) && (i == 0 || usable[i - 1]))
            for (int k = 0; k < 4; k++)
                usable[i] |= tiers[i].parts[k](t);
        if (i > 0)
            inherit(t, &tables[i - 1]);
        if (usable[i])
            active = i;
    }
    built = 1;
}

int simdops_tier_count(void) { return TIER_COUNT; }
const char *simdops_tier_name(int i) { return (i >= 0 && i < TIER_COUNT) ? tiers[i].name : NULL; }

const simdops_kernel_table *simdops_tier_table(int i)
{
    build();
    return (i >= 0 && i < TIER_COUNT && usable[i]) ? &tables[i] : NULL;
}

const simdops_kernel_table *simdops_scalar_kernels(void)
{
    build();
    return &tables[0];
}

const simdops_kernel_table *simdops_active_kernels(void)
{
    build();
    return &tables[active];
}

const char *simdops_isa(void) { return simdops_active_kernels()->isa; }

int simdops_use_isa(const char *name)
{
    build();
    for (int i = 0; i < TIER_COUNT; i++) {
        if (strcmp(tiers[i].name, name) == 0) {
            if (!usable[i])
                return SIMDOPS_E_ISA;
            active = i;
            return SIMDOPS_OK;
        }
    }
    return SIMDOPS_E_ISA;
}

int simdops_available_isas(const char **names, int cap)
{
    int n = 0;
    build();
    for (int i = 0; i < TIER_COUNT; i++)
        if (usable[i] && n < cap)
            names[n++] = tiers[i].name;
    return n;
}

int simdops_known_isas(const char **names, int cap)
{
    int n = 0;
    for (int i = 0; i < TIER_COUNT && n < cap; i++)
        names[n++] = tiers[i].name;
    return n;
}

const char *simdops_cpu_features(void)
{
    static char buf[128];
    const simdops_cpu *c = simdops_cpu_detect();
    snprintf(buf, sizeof(buf), "%s%s%s%s%s%s%s%s%s", c->sse2 ? "sse2 " : "", c->sse41 ? "sse41 " : "",
             c->avx ? "avx " : "", c->avx2 ? "avx2 " : "", c->f16c ? "f16c " : "", c->fma ? "fma " : "",
             c->osxsave ? "osxsave " : "", c->os_ymm ? "os_ymm " : "", c->neon ? "neon " : "");
    if (buf[0])
        buf[strlen(buf) - 1] = '\0';
    return buf;
}
