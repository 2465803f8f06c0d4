/* The kernel harness's shared parts: random numbers, the dtype table, test
 * values, aligned buffers with canaries, failure reporting and the table
 * entries under test. Each test_*.c file tests one family of table entries
 * (test_elementwise.c, test_argmax.c, test_requant.c); test_kernels.c runs
 * every entry of every tier through them. */
#ifndef SIMDOPS_TESTS_HARNESS_H
#define SIMDOPS_TESTS_HARNESS_H
#if !defined(_WIN32) && !defined(_POSIX_C_SOURCE)
#define _POSIX_C_SOURCE 200112L /* posix_memalign */
#endif
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/fixedpoint.h"
#include "core/fp16.h"
#include "core/kernel_abi.h"
#include "dispatch/dispatch.h"
#include "driver/requant_channels.h"
#include "rules/params.h"
#include "rules/rules.h"
#include "kernels/vec/stream_store.h"

#if defined(__SANITIZE_ADDRESS__)
#define ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ASAN 1
#endif
#endif
#ifndef ASAN
#define ASAN 0
#endif

/* Under ASan buffers end exactly where the data ends, so over-reads and
 * over-writes are reported; otherwise a trailing canary catches over-writes. */
enum { TRAIL = ASAN ? 0 : 64, CANARY = 0xA5, MAXN = 130 };

/* ---------------------------------------------------------------- dtypes */
/* A float type's bit layout and edge values: what the dtype table does not say (two
 * 2-byte float types differ in their exponent width, so the size cannot tell them). */
typedef struct float_format {
    simdops_dtype dtype;
    int exp_bits, man_bits;
    const uint64_t *edges;
    int n_edges;
    uint64_t (*from_double)(double v); /* saturating to +-inf; only to make test values */
} float_format;

/* Filled from the library's dtype table (csrc/core/dtype.h) by init_dtypes(): the value
 * classes follow the row (float or not, size, signedness, range), and a float type also
 * needs its float_format. */
typedef struct dinfo {
    const char *name;
    int size, is_float, is_signed;
    int64_t lo;  /* integer types: the range lo..hi */
    uint64_t hi;
    const float_format *fmt; /* float types */
} dinfo;

/* Values next to interesting ones (parameters): v, v +- 1 (in bits: the
 * neighbouring floats), and the negation for floats. */
typedef struct nearset {
    int count;
    uint64_t v[64];
} nearset;

/* Mix: percent of random bits, of edges, of values near the parameters; the
 * rest small values. */
typedef struct mix {
    int bits, edge, near;
} mix;

enum { NMIX = 7 }; /* entries of MIXES */

enum { MAX_PRINTED = 25 };

/* Context of the kernel under test, for failure messages. */
typedef struct target {
    const char *tier, *entry, *tname;
    int kind, idx, is_scalar;
    void (*fn)(void);
    void (*ref)(void);
} target;

/* ---------------------------------------------------------------- params */
/* Entries of the kernel table (SIMDOPS_KERNEL_ENTRIES in kernels/registry.h). */
enum {
    K_CLIP = SIMDOPS_KE_clip,
    K_CLIP_SB = SIMDOPS_KE_clip_scale_bias,
    K_SHRINK = SIMDOPS_KE_shrink,
    K_ARGMAX_ROW = SIMDOPS_KE_argmax_row,
    K_ARGMAX_COLS = SIMDOPS_KE_argmax_cols,
    K_REQUANT = SIMDOPS_KE_requant,
    K_REQUANT_PC = SIMDOPS_KE_requant_pc,
    K_COUNT = SIMDOPS_KE_COUNT
};

#define KIND_NAME(k) simdops_kernel_entry_name(k)

#define U(v) ((unsigned long long)(v))

extern uint64_t rng_state;
uint64_t rnd(void);
uint32_t below(uint32_t n);
int chance(int percent);
extern dinfo DT[SIMDOPS_DTYPE_COUNT];
extern int RQ_SIZE[SIMDOPS_RQ_COUNT];
extern int32_t RQ_LO[SIMDOPS_RQ_COUNT], RQ_HI[SIMDOPS_RQ_COUNT];
int init_dtypes(void); /* 0, or 1 after naming a dtype the harness cannot make values of */
uint64_t mask_of(int size);
uint64_t sign_bit(int size);
uint64_t get_elem(const void *buf, size_t i, int size);
void put_elem(void *buf, size_t i, int size, uint64_t v);
uint64_t dbl_bits(int dt, double v);
uint64_t value_bits(int dt, simdops_value v);
uint64_t edge_value(int dt);
uint64_t small_value(int dt);
void near_add(nearset *s, int dt, uint64_t v);
extern const mix MIXES[];
uint64_t gen_value(int dt, const mix *mx, const nearset *ns);
void gen_data(void *buf, size_t n, int dt, const mix *mx, const nearset *ns);
extern long g_pass, g_fail;
extern int g_verbose, g_elem_aligned;
extern int g_printed;
void fail_head(const target *t, const char *what, size_t n, size_t o1, size_t o2);
int printing(void);
unsigned char *alloc_buf(size_t size);
void free_buf(void *p);
int canary_ok(const unsigned char *p, size_t from, size_t to);
size_t adjust_off(const target *t, size_t off, int align);
simdops_number numf(double f);
simdops_number numi(int64_t i);
simdops_number numu(uint64_t u);
void report_diff(const void *x, const void *want, const void *got, size_t n, int xs, int ys);
size_t rand_off(void);

/* One test per family of table entries: each kernel-table entry's test is the
 * last column of its SIMDOPS_KERNEL_ENTRIES line (test_<op>.c defines it). */
#define HARNESS_X_DECLARE_TEST(field, type, slots, kind, op, test) void test(const target *t);
SIMDOPS_KERNEL_ENTRIES(HARNESS_X_DECLARE_TEST)
#undef HARNESS_X_DECLARE_TEST
void test_requant(const target *t);     /* test_requant.c */
/* harness_ew.c: one call of an elementwise entry (clip's, shrink's or the unary shape's
 * params at p, by t->kind) against t->ref's output, out of place (x at xoff, y at yoff)
 * and in place (at ioff) with canaries and an untouched input ... */
void ew_case(const target *t, const void *p, const unsigned char *x, size_t n, size_t xoff,
             size_t yoff, size_t ioff);
/* ... and through the strided driver (its streaming path when the call passes
 * simdops_stream_threshold) */
void stream_case(const target *t, const void *p, const unsigned char *x, size_t n, size_t xoff,
                 size_t yoff);
/* test_unary.c: the simdops_unary_fn entries (an entry line's test column names it), and
 * its check on a kernel of its own and a mutant of that (every run) */
void test_unary(const target *t);
void test_unary_selfcheck(void);
/* test_requant.c: the float32 fast path's domain, inputs near its boundaries
 * (double rounding's entries, or ties_up: the ties-up family's) */
void test_requant_fast_domain(const target *t, int ties_up);
/* test_requant.c's draws: parameters in (now and then just outside) the float32
 * fast path's domain, and an x near one of p's rounding boundaries */
void fast_rq_params(int out, simdops_requant_params *p);
int32_t near_boundary(const simdops_requant_params *p, int ties_up, int in_range);
/* test_requant_restarts.c: a fixed-point family's per-channel entry's long
 * calls whose arrays and bias restart every ch->period elements (the entries
 * the kernel table marks, requant_pc_restarts; nothing for the others) */
void test_requant_pc_restarts(const target *t, int family);
/* test_requant_families.c's draws: a shift of the family's range, parameters,
 * an input (near the single rounding's ties; scale: the float family's) */
int32_t fam_shift(int family);
void fam_params(int family, int out, simdops_requant_params *p);
int32_t fam_input(const simdops_requant_params *p, float scale);
/* test_requant_single_fast.c: single rounding's (family SIMDOPS_ROUNDING_SINGLE or
 * _SINGLE_AWAY) float32 fast path's domain, per tensor or (pc) per channel */
void test_requant_single_fast(const target *t, int family, int pc);
/* ... and its draws: a multiplier, a total shift t = 31 + shift (mostly in
 * [32, 62]), an x with x*m/2^t near a tie, parameters of the fast path's domain */
int32_t sf_multiplier(void);
int sf_total_shift(void);
int32_t sf_near_tie(int32_t m, int t, const simdops_requant_params *p, int in_range);
void sf_params(int family, int out, simdops_requant_params *p);
/* test_requant_fold.c: the fold of power-of-two chains (simdops_requant_fold_prepare, _apply)
 * on a float entry, per tensor or (pc) per channel, against the scalar tier's steps */
void test_requant_fold_plan(const target *t, int pc);
/* test_requant_scale_check.c: the float families' per-channel scale check (its window
 * pass and the general pass) against float comparisons, and two mutants of the window */
void test_requant_scale_check(void);
void test_qlow_tiers(void);              /* test_qlow.c: the low-bit table, every tier */
void test_qlow_simd_tiers(void);         /* test_qlow_simd.c: the SIMD tiers' edges (ties, guard starts) */

#endif
