/* simdops C test harness: every kernel of every tier usable on this CPU
 * against the scalar reference (simdops_scalar_kernels()), bit for bit.
 *
 * Inputs: random bit patterns mixed with edge values (NaN payloads, +-inf,
 * -0.0, denormals, type min/max, values next to the parameters), every length
 * 0..130, input/output byte misalignments 0..63, in-place calls, parameters
 * made by simdops_clip_params_init / simdops_shrink_params_init from varied
 * numbers; requant with extreme multipliers, shifts, offsets and bounds.
 * Every call also checks that nothing outside the output was written and that
 * an out-of-place input was not modified.
 *
 * Usage: harness [--seed N] [--require-native TIER [--inherit-ok ENTRY,...]] [--elem-aligned]
 *                [--entry-timeout SECONDS] [-v]
 * --inherit-ok: entries (kernel table fields, e.g. qadd_tflite) TIER may take from its
 * parent without failing --require-native (ops that have no kernel of that tier yet).
 * Prints "tier NAME ran: ..." for each tier tested (with its native and
 * inherited entries), "tier NAME NOT TESTED: ..." for tiers this CPU lacks
 * (a tier the CPU supports that was not built, or that registers nothing of
 * its own, is a failure), then one
 * closing line "N passed, M failed"; exit status 1 on any failure.
 * A case is one kernel call compared with the reference; an entry a tier
 * inherits unchanged from the tier below is not run again.
 *
 * Scalar functions (the reference tier, and entries a tier inherits from it)
 * are called only with element-aligned pointers: they dereference typed
 * pointers, which is undefined when misaligned (UBSan). SIMD kernels promise
 * no alignment at all and get every byte offset, unless --elem-aligned. */
#include "harness.h"

#include <signal.h>
#if defined(_WIN32)
#include <io.h>
#define write _write
#define _exit _exit
#else
#include <unistd.h>
#endif

/* csrc/tests/test_api.c */
void simdops_test_public_api(long *pass, long *fail);

/* ---------------------------------------------------------------- tables */
static void (*entry_fn(const simdops_kernel_table *t, int kind, int idx))(void)
{
    return simdops_kernel_get(t, kind, idx);
}

static int entry_count(int kind) { return simdops_kernel_entry_slots(kind); }

static const char *entry_tname(int kind, int idx) { return simdops_kernel_slot_name(kind, idx); }

/* The test of each kernel-table entry: the last column of its SIMDOPS_KERNEL_ENTRIES
 * line (kernels/registry.h), declared by harness.h from the same list. The families'
 * entries all go to test_requant_families (which hands double rounding's to
 * test_requant). */
static void (*const ENTRY_TESTS[K_COUNT])(const target *t) = {
#define X_ENTRY_TEST(field, type, slots, kind, op, test) [SIMDOPS_KE_##field] = test,
    SIMDOPS_KERNEL_ENTRIES(X_ENTRY_TEST)
#undef X_ENTRY_TEST
};

static void run_entry(const target *t) { ENTRY_TESTS[t->kind](t); }

/* The scalar table must hold exactly the dtype table's op x dtype set, or
 * entries would go untested (or be tested without a reference). */
static void check_scalar_table(void)
{
    const simdops_kernel_table *s = simdops_scalar_kernels();
    for (int k = 0; k < K_COUNT; k++) {
        unsigned have = 0, want = 0;
        for (int idx = 0; idx < entry_count(k); idx++) {
            if (entry_fn(s, k, idx))
                have |= 1u << idx;
            if (simdops_kernel_slot_required(k, idx))
                want |= 1u << idx;
        }
        if (have != want) {
            target t = {"scalar", KIND_NAME(k), "-", k, 0, 1, NULL, NULL};
            fail_head(&t, "table", 0, 0, 0);
            printf("scalar entries %#x, dtype table lists %#x\n", have, want);
        } else {
            g_pass++;
        }
    }
}

void test_threadpool(long *pass, long *fail); /* test_threadpool.c */
void test_rules(long *pass, long *fail);      /* test_rules.c */

/* A kernel that reads or writes past a buffer end hits alloc_buf's guard
 * pages: name the entry that was running, then fail. */
static char g_running[160] = "(outside the kernel tests)";

/* from a signal handler: write(2) only (async-signal-safe), then exit 1 */
static void fail_running(const char *head, size_t len)
{
    fflush(stdout);
    if (write(2, head, len) < 0 || write(2, g_running, strlen(g_running)) < 0 ||
        write(2, "\n", 1) < 0)
        _exit(1);
    _exit(1);
}

static void on_fault(int sig)
{
    static const char head[] = "FAIL memory fault (a read or write past a buffer end hit a guard "
                               "page) in ";
    (void)sig;
    fail_running(head, sizeof(head) - 1);
}

/* A kernel that never returns (a loop whose count wrapped) would hang the harness, and CI
 * with it, until the job's limit: each entry gets g_entry_seconds (--entry-timeout; the
 * slowest entry takes ~10 s natively, qemu-user and the sanitizers ~10x that), then the
 * alarm names it and fails. No alarm() on Windows: the job's own limit stands there. */
static unsigned g_entry_seconds = 900;
#if !defined(_WIN32)
static void on_alarm(int sig)
{
    static const char head[] = "FAIL hang: past the per-entry time limit (--entry-timeout) in ";
    (void)sig;
    fail_running(head, sizeof(head) - 1);
}
#define ARM_ENTRY_WATCHDOG() alarm(g_entry_seconds)
#else
#define ARM_ENTRY_WATCHDOG() ((void)0)
#endif

/* 1 when name is one of the comma-separated names of list */
static int listed(const char *list, const char *name)
{
    const size_t n = strlen(name);
    for (const char *p = list; *p;) {
        size_t len = strcspn(p, ",");
        if (len == n && !strncmp(p, name, n))
            return 1;
        p += len + (p[len] == ',');
    }
    return 0;
}

int main(int argc, char **argv)
{
    /* Before anything initialises the library: a process's first call runs on the
     * detected tier (simdops_current_kernels once read the tier before detecting it). */
    float first[4] = {0.0f, 2.0f, 1.0f, 2.0f}, first_y[4];
    int first_ok = simdops_hardmax_rows(SIMDOPS_FLOAT32, first, first_y, 1, 4, NULL) == SIMDOPS_OK &&
                   first_y[1] == 1.0f && strcmp(simdops_last_call_isa(), simdops_isa()) == 0;
    uint64_t seed = 0x5eed5eedull;
    const char *require = NULL, *inherit_ok = "", *only = NULL;
    int ntiers = simdops_tier_count(), required_found = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--seed") && i + 1 < argc)
            seed = strtoull(argv[++i], NULL, 0);
        else if (!strcmp(argv[i], "--require-native") && i + 1 < argc)
            require = argv[++i];
        else if (!strcmp(argv[i], "--inherit-ok") && i + 1 < argc)
            inherit_ok = argv[++i];
        else if (!strcmp(argv[i], "--only") && i + 1 < argc)
            only = argv[++i]; /* entry kinds (requant_ties_up,...): those alone, for mutants */
        else if (!strcmp(argv[i], "--entry-timeout") && i + 1 < argc)
            g_entry_seconds = (unsigned)strtoul(argv[++i], NULL, 0); /* 0: none */
        else if (!strcmp(argv[i], "--elem-aligned"))
            g_elem_aligned = 1;
        else if (!strcmp(argv[i], "-v"))
            g_verbose = 1;
        else {
            fprintf(stderr,
                    "usage: %s [--seed N] [--require-native TIER [--inherit-ok ENTRY,...]] "
                    "[--only KIND,...] [--elem-aligned] [--entry-timeout SECONDS] [-v]\n",
                    argv[0]);
            return 2;
        }
    }
    rng_state = seed;
    signal(SIGSEGV, on_fault);
#ifdef SIGBUS
    signal(SIGBUS, on_fault);
#endif
#if !defined(_WIN32)
    signal(SIGALRM, on_alarm);
#endif
    setvbuf(stdout, NULL, _IOLBF, 0);
    simdops_init();
    if (init_dtypes()) { /* it named the dtype: no test value of it would be right */
        printf("0 passed, 1 failed\n");
        return 1;
    }
    printf("simdops kernel harness: seed %#llx, cpu features \"%s\", %d tier(s) known\n",
           (unsigned long long)seed, simdops_cpu_features(), ntiers);
    if (first_ok) {
        g_pass++;
    } else {
        g_fail++;
        printf("FAIL the process's first call ran on %s, not the detected %s\n",
               simdops_last_call_isa(), simdops_isa());
    }
    check_scalar_table();
    ARM_ENTRY_WATCHDOG(); /* the tests before the entries' get one period too */
    if (!only) {
        test_qlow_tiers();
        simdops_test_public_api(&g_pass, &g_fail);
        test_unary_selfcheck();
        test_requant_scale_check();
    }

    for (int ti = 0; ti < ntiers; ti++) {
        const simdops_kernel_table *tab = simdops_tier_table(ti), *below_tab;
        const simdops_kernel_table *ref = simdops_scalar_kernels();
        const char *name = simdops_tier_name(ti);
        long pass0 = g_pass, fail0 = g_fail;
        int total = 0, native = 0, allowed = 0;
        char natives[2048] = "", inherited[2048] = "";
        if (!simdops_tier_known(ti))
            continue; /* another architecture's tier */
        if (!tab) {
            if (simdops_tier_cpu_supported(ti)) {
                /* a supported tier with no table: its flags line or files are missing */
                target t = {name, "tier", "-", 0, 0, 0, NULL, NULL};
                fail_head(&t, "not built", 0, 0, 0);
                printf("this CPU supports tier %s but no kernel of it was compiled in (a missing "
                       "line in csrc/isa_flags.txt?)\n", name);
            } else {
                printf("tier %s NOT TESTED: this CPU does not support it\n", name);
            }
            continue;
        }
        below_tab = ti > 0 ? simdops_tier_table(simdops_tier_parent(ti)) : NULL;
        for (int k = 0; k < K_COUNT; k++) {
            char nat[512] = "", inh[512] = "";
            for (int idx = 0; idx < entry_count(k); idx++) {
                void (*fn)(void) = entry_fn(tab, k, idx);
                if (!fn)
                    continue;
                total++;
                if (below_tab && entry_fn(below_tab, k, idx) == fn) {
                    if (listed(inherit_ok, KIND_NAME(k)))
                        allowed++;
                    snprintf(inh + strlen(inh), sizeof(inh) - strlen(inh), " %s",
                             entry_tname(k, idx));
                    continue;
                }
                native++;
                snprintf(nat + strlen(nat), sizeof(nat) - strlen(nat), " %s", entry_tname(k, idx));
                {
                    target t;
                    t.tier = name;
                    t.entry = KIND_NAME(k);
                    t.tname = entry_tname(k, idx);
                    t.kind = k;
                    t.idx = idx;
                    t.fn = fn;
                    t.ref = entry_fn(ref, k, idx);
                    t.is_scalar = fn == t.ref;
                    if (!t.ref) {
                        fail_head(&t, "no scalar reference", 0, 0, 0);
                        printf("\n");
                        continue;
                    }
                    if (only && !listed(only, KIND_NAME(k)))
                        continue;
                    {
                        long f0 = g_fail, p0 = g_pass;
                        snprintf(g_running, sizeof(g_running), "tier %s %s[%s]", name,
                                 KIND_NAME(k), t.tname);
                        ARM_ENTRY_WATCHDOG();
                        run_entry(&t);
                        if (g_verbose)
                            printf("  %s %s[%s]: %ld passed, %ld failed\n", name, KIND_NAME(k),
                                   t.tname, g_pass - p0, g_fail - f0);
                    }
                }
            }
            if (nat[0])
                snprintf(natives + strlen(natives), sizeof(natives) - strlen(natives), " %s[%s ]",
                         KIND_NAME(k), nat);
            if (inh[0])
                snprintf(inherited + strlen(inherited), sizeof(inherited) - strlen(inherited),
                         " %s[%s ]", KIND_NAME(k), inh);
        }
        if (ti > 0 && native == 0) {
            target t = {name, "tier", "-", 0, 0, 0, NULL, NULL};
            fail_head(&t, "nothing registered", 0, 0, 0);
            printf("tier %s is built and supported but registers no kernel of its own\n", name);
        }
        printf("tier %-6s ran: %d/%d entries native, %ld passed, %ld failed\n", name, native,
               total, g_pass - pass0, g_fail - fail0);
        printf("  native:   %s\n", natives[0] ? natives : " (none)");
        printf("  inherited:%s\n", inherited[0] ? inherited : " (none)");
        if (require && !strcmp(require, name)) {
            required_found = 1;
            if (native + allowed != total) {
                target t = {name, "require-native", "-", 0, 0, 0, NULL, NULL};
                fail_head(&t, "entries inherited", 0, 0, 0);
                printf("%d of %d entries are not native (%d inherited as --inherit-ok allows)\n",
                       total - native - allowed, total, allowed);
            }
        }
    }
    if (require && !required_found) {
        target t = {require, "require-native", "-", 0, 0, 0, NULL, NULL};
        fail_head(&t, "tier did not run", 0, 0, 0);
        printf("\n");
    }
    if (!only) {
        test_qlow_simd_tiers();
        test_threadpool(&g_pass, &g_fail);
        test_rules(&g_pass, &g_fail);
    }
#if !defined(_WIN32)
    alarm(0);
#endif
    printf("%ld passed, %ld failed\n", g_pass, g_fail);
    return g_fail ? 1 : 0;
}

