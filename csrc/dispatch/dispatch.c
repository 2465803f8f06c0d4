/* Kernel tables per ISA tier, built once from the per-op register functions
 * (each SIMDOPS_TIERS line's SIMDOPS_KERNEL_FILES), and the tier selection: a process
 * tier (atomic, set at import from SIMDOPS_ISA) and a per-thread forced tier
 * (use_isa). Entry points resolve the calling thread's table once
 * (simdops_current_kernels) and pass it down. */
#include <stdio.h>
#include <string.h>

#include "dispatch/dispatch.h"
#include "core/dtype.h"
#include "core/errors.h"
#include "core/atomic_int.h"
#include "core/thread_local.h"
#include "kernels/registry.h"
#include "dispatch/cpu.h"
#include "dispatch/qlow_dispatch.h"

typedef struct tier {
    const char *name;
    int parent;
    int arch; /* built for this architecture */
    const simdops_register_fn *parts; /* the tier's kernel files, NULL-terminated */
} tier;

/* parts_<tier>: the register functions of the files SIMDOPS_KERNEL_FILES lists
 * for the tier (the NULL ends a list; it also keeps a tier without files legal C) */
#define SIMDOPS_X_PART(op, t) op##_register__##t,
#define SIMDOPS_X_TIER_PARTS(name, parent, arch, cpu_ok)                                          \
    static const simdops_register_fn parts_##name[] = {SIMDOPS_KERNEL_FILES(SIMDOPS_X_PART, name) NULL};
SIMDOPS_TIERS(SIMDOPS_X_TIER_PARTS)
#undef SIMDOPS_X_TIER_PARTS
#undef SIMDOPS_X_PART

#define SIMDOPS_X_TIER_ROW(name, parent, arch, cpu_ok) {#name, SIMDOPS_TIER_##parent, arch, parts_##name},
static const tier tiers[SIMDOPS_TIER_COUNT] = {SIMDOPS_TIERS(SIMDOPS_X_TIER_ROW)};
#undef SIMDOPS_X_TIER_ROW

/* The CPU test of tier i. */
static int cpu_supports(int i, const simdops_cpu *c)
{
    (void)c;
    switch (i) {
#define SIMDOPS_X_TIER_CPU(name, parent, arch, cpu_ok)                                            \
    case SIMDOPS_TIER_##name: return (arch) && (cpu_ok);
        SIMDOPS_TIERS(SIMDOPS_X_TIER_CPU)
#undef SIMDOPS_X_TIER_CPU
    default: return 0;
    }
}

static simdops_kernel_table tables[SIMDOPS_TIER_COUNT];
static int usable[SIMDOPS_TIER_COUNT];
static simdops_atomic_int built;
static simdops_atomic_int process_tier;
/* The calling thread's forced tier + 1 (0: none), and its last call's tier + 1. */
static SIMDOPS_THREAD_LOCAL int forced_tier;
static SIMDOPS_THREAD_LOCAL int last_tier;

/* ------------------------------------------------------------------ table iteration */

enum { SIMDOPS_SLOT_KIND_DTYPE = 0, SIMDOPS_SLOT_KIND_RQ = 1 };

typedef struct entry_info {
    const char *name;
    int slots, rq, op;
} entry_info;

static const entry_info entries[SIMDOPS_KE_COUNT] = {
#define SIMDOPS_X_ENTRY(field, type, slots, kind, op, test)                                           \
    {#field, slots, SIMDOPS_SLOT_KIND_##kind, op},
    SIMDOPS_KERNEL_ENTRIES(SIMDOPS_X_ENTRY)
#undef SIMDOPS_X_ENTRY
};

int simdops_kernel_entry_count(void) { return SIMDOPS_KE_COUNT; }

const char *simdops_kernel_entry_name(int e)
{
    return e >= 0 && e < SIMDOPS_KE_COUNT ? entries[e].name : NULL;
}

int simdops_kernel_entry_slots(int e) { return e >= 0 && e < SIMDOPS_KE_COUNT ? entries[e].slots : 0; }

simdops_dtype simdops_kernel_slot_dtype(int e, int slot)
{
    if (e < 0 || e >= SIMDOPS_KE_COUNT || slot < 0 || slot >= entries[e].slots)
        return SIMDOPS_UNKNOWN;
    if (!entries[e].rq)
        return (simdops_dtype)slot;
    for (int d = 1; d < SIMDOPS_DTYPE_COUNT; d++)
        if (simdops_dtype_rows[d].requant_slot == slot)
            return (simdops_dtype)d;
    return SIMDOPS_UNKNOWN;
}

const char *simdops_kernel_slot_name(int e, int slot)
{
    simdops_dtype d = simdops_kernel_slot_dtype(e, slot);
    return d == SIMDOPS_UNKNOWN ? NULL : simdops_dtype_name(d);
}

int simdops_kernel_slot_is_output(int e)
{
    /* requant slots are output slots; QuantizeLinear's slots are its integer type,
     * which is the output (DequantizeLinear's is the input). */
    return e >= 0 && e < SIMDOPS_KE_COUNT &&
           (entries[e].rq || entries[e].op == SIMDOPS_OP_QUANTIZE_LINEAR);
}

int simdops_kernel_slot_required(int e, int slot)
{
    return e >= 0 && e < SIMDOPS_KE_COUNT &&
           simdops_op_supports(entries[e].op, simdops_kernel_slot_dtype(e, slot));
}

simdops_any_fn simdops_kernel_get(const simdops_kernel_table *t, int e, int slot)
{
    if (!t || slot < 0 || slot >= simdops_kernel_entry_slots(e))
        return NULL;
    switch (e) {
#define SIMDOPS_X_GET(field, type, slots, kind, op, test)                                             \
    case SIMDOPS_KE_##field: return (simdops_any_fn)t->field[slot];
        SIMDOPS_KERNEL_ENTRIES(SIMDOPS_X_GET)
#undef SIMDOPS_X_GET
    default: return NULL;
    }
}

/* ------------------------------------------------------------------ building */

/* Entries a tier leaves NULL are inherited from its parent, a requant entry
 * with its restart flag (the flag describes the kernel, so it goes where the
 * kernel goes). */
static void inherit(simdops_kernel_table *t, const simdops_kernel_table *below)
{
#define SIMDOPS_X_INHERIT(field, type, slots, kind, op, test)                                         \
    for (int k = 0; k < (slots); k++)                                                             \
        if (!t->field[k]) {                                                                       \
            t->field[k] = below->field[k];                                                        \
            if (SIMDOPS_KE_RQ_##field && k < SIMDOPS_RQ_COUNT)                                   \
                t->requant_pc_restarts[SIMDOPS_KE_##field][k] =                                   \
                    below->requant_pc_restarts[SIMDOPS_KE_##field][k];                            \
        }
    SIMDOPS_KERNEL_ENTRIES(SIMDOPS_X_INHERIT)
#undef SIMDOPS_X_INHERIT
}

void simdops_init(void)
{
    const simdops_cpu *cpu;
    int best = 0;
    if (simdops_load_acquire(&built))
        return;
    cpu = simdops_cpu_detect();
    for (int i = 0; i < SIMDOPS_TIER_COUNT; i++) { /* parents come before children */
        simdops_kernel_table *t = &tables[i];
        int parent = tiers[i].parent;
        memset(t, 0, sizeof(*t));
        t->isa = tiers[i].name;
        usable[i] = 0;
        /* Register functions live in ISA translation units, where the compiler
         * may use the ISA even for plain stores: run them only on CPUs that
         * have it. */
        if (cpu_supports(i, cpu) && (i == 0 || usable[parent]))
            for (const simdops_register_fn *f = tiers[i].parts; *f; f++)
                usable[i] |= (*f)(t);
        if (i > 0)
            inherit(t, &tables[parent]);
        if (usable[i])
            best = i;
    }
    simdops_qlow_init(usable);
    simdops_store_release(&process_tier, best);
    simdops_store_release(&built, 1);
}

int simdops_tier_count(void) { return SIMDOPS_TIER_COUNT; }

int simdops_tier_cpu_supported(int i)
{
    const simdops_cpu *cpu = simdops_cpu_detect();
    if (i < 0 || i >= SIMDOPS_TIER_COUNT)
        return 0;
    for (; i > 0; i = tiers[i].parent)
        if (!cpu_supports(i, cpu))
            return 0;
    return 1;
}
int simdops_tier_parent(int i) { return i > 0 && i < SIMDOPS_TIER_COUNT ? tiers[i].parent : 0; }
int simdops_tier_known(int i) { return i >= 0 && i < SIMDOPS_TIER_COUNT && tiers[i].arch; }
const char *simdops_tier_name(int i) { return (i >= 0 && i < SIMDOPS_TIER_COUNT) ? tiers[i].name : NULL; }

const simdops_kernel_table *simdops_tier_table(int i)
{
    simdops_init();
    return (i >= 0 && i < SIMDOPS_TIER_COUNT && usable[i]) ? &tables[i] : NULL;
}

int simdops_kernel_origin(int i, int e, int slot)
{
    const simdops_kernel_table *t = simdops_tier_table(i);
    simdops_any_fn fn = simdops_kernel_get(t, e, slot);
    if (!fn)
        return -1;
    while (i > 0 && simdops_kernel_get(&tables[tiers[i].parent], e, slot) == fn)
        i = tiers[i].parent;
    return i;
}

const simdops_kernel_table *simdops_scalar_kernels(void)
{
    simdops_init();
    return &tables[0];
}

const simdops_kernel_table *simdops_current_kernels(void)
{
    int t;
    simdops_init(); /* first: it sets process_tier (the first call once ran scalar) */
    t = forced_tier ? forced_tier - 1 : simdops_load_acquire(&process_tier);
    last_tier = t + 1;
    return &tables[t];
}

/* ------------------------------------------------------------------ selection */

static int find_usable(const char *name, simdops_error *err, int *tier)
{
    simdops_init();
    for (int i = 0; i < SIMDOPS_TIER_COUNT; i++) {
        if (strcmp(tiers[i].name, name) == 0) {
            if (!usable[i])
                return simdops_fail(err, SIMDOPS_R_ISA_UNAVAILABLE, SIMDOPS_ARG_ISA);
            *tier = i;
            return SIMDOPS_OK;
        }
    }
    return simdops_fail(err, SIMDOPS_R_ISA_UNKNOWN, SIMDOPS_ARG_ISA);
}

const char *simdops_isa(void)
{
    simdops_init();
    return tiers[forced_tier ? forced_tier - 1 : simdops_load_acquire(&process_tier)].name;
}

const char *simdops_thread_isa(void) { return forced_tier ? tiers[forced_tier - 1].name : NULL; }

const char *simdops_last_call_isa(void) { return last_tier ? tiers[last_tier - 1].name : NULL; }

int simdops_set_thread_isa(const char *name, simdops_error *err)
{
    int tier = 0, s; /* set by find_usable on success (GCC cannot tell) */
    SIMDOPS_ENTRY(err, SIMDOPS_OP_NONE);
    if (!name || !*name) {
        forced_tier = 0;
        return SIMDOPS_OK;
    }
    if ((s = find_usable(name, err, &tier)))
        return s;
    forced_tier = tier + 1;
    return SIMDOPS_OK;
}

int simdops_set_process_isa(const char *name, simdops_error *err)
{
    int tier = 0, s; /* set by find_usable on success (GCC cannot tell) */
    SIMDOPS_ENTRY(err, SIMDOPS_OP_NONE);
    if (!name)
        return simdops_fail(err, SIMDOPS_R_NULL_ARG, SIMDOPS_ARG_ISA);
    if ((s = find_usable(name, err, &tier)))
        return s;
    simdops_store_release(&process_tier, tier);
    return SIMDOPS_OK;
}

int simdops_available_isas(const char **names, int cap)
{
    int n = 0;
    simdops_init();
    for (int i = 0; i < SIMDOPS_TIER_COUNT; i++)
        if (usable[i] && n < cap)
            names[n++] = tiers[i].name;
    return n;
}

int simdops_known_isas(const char **names, int cap)
{
    int n = 0;
    for (int i = 0; i < SIMDOPS_TIER_COUNT && n < cap; i++)
        if (tiers[i].arch)
            names[n++] = tiers[i].name;
    return n;
}

const char *simdops_cpu_features(void)
{
    static char buf[256];
    const simdops_cpu *c = simdops_cpu_detect();
    size_t n = 0;
    buf[0] = '\0';
#define SIMDOPS_X_CPU_NAME(name, leaf, sub, reg, bit, xcr0)                                       \
    if (c->name)                                                                                  \
        n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s" #name, n ? " " : "");
    SIMDOPS_CPU_FEATURES(SIMDOPS_X_CPU_NAME)
#undef SIMDOPS_X_CPU_NAME
    if (c->neon)
        snprintf(buf + n, sizeof(buf) - n, "%sneon", n ? " " : "");
    return buf;
}
