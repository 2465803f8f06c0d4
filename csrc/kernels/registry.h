/* The kernel table and its lists: SIMDOPS_KERNEL_ENTRIES (one line per table
 * entry: the struct fields, the inheritance, the iteration API, info, the
 * harness), SIMDOPS_TIERS (one line per ISA tier) and SIMDOPS_KERNEL_FILES,
 * the register functions' declarations and the registration macros. Seen by
 * the kernels (which fill a table) and by dispatch (which builds them). */
#ifndef SIMDOPS_KERNEL_REGISTRY_H
#define SIMDOPS_KERNEL_REGISTRY_H

#include "core/kernel_abi.h"

/* ------------------------------------------------------------------ the families
 * The families only the library names, in SIMDOPS_ROUNDINGS's columns: the float
 * families (simdops_prepare_requant_fp; no shift, not a rounding= name). Their
 * tags follow the public codes, so no public rounding can take one. */
#define SIMDOPS_INTERNAL_FAMILIES_WITH(X, C)                                                     \
    X(C, FP, SIMDOPS_ROUNDING_COUNT, "fp", 0, 1, 0, requant_fp, requant_fp_pc)
#define SIMDOPS_INTERNAL_FAMILIES(X) SIMDOPS_INTERNAL_FAMILIES_WITH(SIMDOPS_ROUNDING_APPLY_, X)

enum simdops_internal_family {
#define SIMDOPS_X_INTERNAL_FAMILY_ENUM(name, code, ...) SIMDOPS_ROUNDING_##name = code,
    SIMDOPS_INTERNAL_FAMILIES(SIMDOPS_X_INTERNAL_FAMILY_ENUM)
#undef SIMDOPS_X_INTERNAL_FAMILY_ENUM
};

/* ------------------------------------------------------------------ the kernel table
 * X(field, function type, slots, slot kind, simdops_op whose dtypes fill it,
 *   the C harness's test of the entry (csrc/tests: void test(const target *)))
 * slot kind DTYPE: indexed by simdops_dtype; RQ: by requant output slot.
 * The ops' entries, one line each: */
#define SIMDOPS_OP_KERNEL_ENTRIES(X)                                                              \
    X(clip, simdops_clip_fn, SIMDOPS_DTYPE_COUNT, DTYPE, SIMDOPS_OP_CLIP, test_elementwise) \
    X(clip_scale_bias, simdops_clip_fn, SIMDOPS_DTYPE_COUNT, DTYPE, SIMDOPS_OP_CLIP_SCALE_BIAS, test_elementwise) \
    X(shrink, simdops_shrink_fn, SIMDOPS_DTYPE_COUNT, DTYPE, SIMDOPS_OP_SHRINK, test_elementwise) \
    X(argmax_row, simdops_argmax_row_fn, SIMDOPS_DTYPE_COUNT, DTYPE, SIMDOPS_OP_HARDMAX, test_argmax) \
    X(argmax_cols, simdops_argmax_cols_fn, SIMDOPS_DTYPE_COUNT, DTYPE, SIMDOPS_OP_HARDMAX, test_argmax) \
    X(quantize_f32, simdops_qlinear_fn, SIMDOPS_DTYPE_COUNT, DTYPE, SIMDOPS_OP_QUANTIZE_LINEAR, test_qlinear) \
    X(quantize_f16, simdops_qlinear_fn, SIMDOPS_DTYPE_COUNT, DTYPE, SIMDOPS_OP_QUANTIZE_LINEAR, test_qlinear) \
    X(dequantize_f32, simdops_qlinear_fn, SIMDOPS_DTYPE_COUNT, DTYPE, SIMDOPS_OP_DEQUANTIZE_LINEAR, test_qlinear) \
    X(dequantize_f16, simdops_qlinear_fn, SIMDOPS_DTYPE_COUNT, DTYPE, SIMDOPS_OP_DEQUANTIZE_LINEAR, test_qlinear) \
    X(int8_dot, simdops_int8_dot_fn, SIMDOPS_DTYPE_COUNT, DTYPE, SIMDOPS_OP_INT8_MATMUL, test_int8mm) \
    X(int8_dot_pairsat, simdops_int8_dot_fn, SIMDOPS_DTYPE_COUNT, DTYPE, SIMDOPS_OP_INT8_MATMUL, test_int8mm) \
    X(qadd_tflite, simdops_qbinary_fn, SIMDOPS_DTYPE_COUNT, DTYPE, SIMDOPS_OP_QUANTIZED_ADD, test_qbinary) \
    X(qmul_tflite, simdops_qbinary_fn, SIMDOPS_DTYPE_COUNT, DTYPE, SIMDOPS_OP_QUANTIZED_MULTIPLY, test_qbinary) \
    X(qadd_xnnpack, simdops_qbinary_fn, SIMDOPS_DTYPE_COUNT, DTYPE, SIMDOPS_OP_QBINARY_8BIT, test_qbinary) \
    X(qmul_fp, simdops_qbinary_fn, SIMDOPS_DTYPE_COUNT, DTYPE, SIMDOPS_OP_QBINARY_8BIT, test_qbinary) \
    X(qadd_ort, simdops_qbinary_fn, SIMDOPS_DTYPE_COUNT, DTYPE, SIMDOPS_OP_QBINARY_8BIT, test_qbinary)
/* The requantization families' entries: the two a SIMDOPS_ROUNDINGS or
 * SIMDOPS_INTERNAL_FAMILIES line names (per tensor, per channel), so a family is
 * one line there and no line here. */
#define SIMDOPS_X_FAMILY_ENTRIES(X, name, code, py, api, lo, hi, pt, pc)                         \
    X(pt, simdops_requant_fn, SIMDOPS_RQ_COUNT, RQ, SIMDOPS_OP_REQUANT_OUT, test_requant_families) \
    X(pc, simdops_requant_pc_fn, SIMDOPS_RQ_COUNT, RQ, SIMDOPS_OP_REQUANT_OUT, test_requant_families)
#define SIMDOPS_FAMILY_KERNEL_ENTRIES(X)                                                          \
    SIMDOPS_ROUNDINGS_WITH(SIMDOPS_X_FAMILY_ENTRIES, X)                                           \
    SIMDOPS_INTERNAL_FAMILIES_WITH(SIMDOPS_X_FAMILY_ENTRIES, X)
#define SIMDOPS_KERNEL_ENTRIES(X) SIMDOPS_OP_KERNEL_ENTRIES(X) SIMDOPS_FAMILY_KERNEL_ENTRIES(X)

/* Entry numbers, in list order: SIMDOPS_KE_clip, ... */
enum simdops_kernel_entry {
#define SIMDOPS_X_KE(field, type, slots, kind, op, test) SIMDOPS_KE_##field,
    SIMDOPS_KERNEL_ENTRIES(SIMDOPS_X_KE)
#undef SIMDOPS_X_KE
    SIMDOPS_KE_COUNT
};

/* One table per ISA. A NULL entry means "not provided by this tier"; dispatch
 * fills it from the tier below, so every entry of a built table is callable
 * where that op supports the dtype. */
typedef struct simdops_kernel_table {
    const char *isa;
    /* [entry][slot] 1: that per-channel requant entry honours
     * simdops_requant_channels.period (its arrays and bias restart every period
     * elements), so the driver may run a span in one call. Set beside the entry
     * by the register function that registers a restarting kernel
     * (SIMDOPS_X_MARK_RESTARTS), and inherited with the entry: a tier's own
     * entry starts at 0, so the flag is always its kernel's. The float family
     * (requant_fp_pc) restarts on every tier and is not marked. */
    unsigned char requant_pc_restarts[SIMDOPS_KE_COUNT][SIMDOPS_RQ_COUNT];
#define SIMDOPS_X_FIELD(field, type, slots, kind, op, test) type field[slots];
    SIMDOPS_KERNEL_ENTRIES(SIMDOPS_X_FIELD)
#undef SIMDOPS_X_FIELD
} simdops_kernel_table;

/* ------------------------------------------------------------------ tiers
 * X(name, tier it inherits from, built for this architecture (0/1),
 *   CPU support test on `const simdops_cpu *c`) -- lowest first; a tier is
 * usable when its architecture matches, the CPU passes and its parent is. */
#if defined(__x86_64__) || defined(__i386__) || defined(_M_X64) || defined(_M_IX86)
#define SIMDOPS_ARCH_X86 1
#else
#define SIMDOPS_ARCH_X86 0
#endif
#if defined(__aarch64__) || defined(_M_ARM64)
#define SIMDOPS_ARCH_ARM64 1
#else
#define SIMDOPS_ARCH_ARM64 0
#endif

#define SIMDOPS_TIERS(X)                                                                          \
    X(scalar, scalar, 1, 1)                                                                       \
    X(sse2, scalar, SIMDOPS_ARCH_X86, c->sse2)                                                    \
    X(sse41, sse2, SIMDOPS_ARCH_X86, c->sse2 && c->sse41)                                         \
    X(avx2, sse41, SIMDOPS_ARCH_X86, c->avx && c->avx2 && c->f16c)                                \
    X(avx512, avx2, SIMDOPS_ARCH_X86, c->avx512f && c->avx512bw && c->avx512vl && c->avx512dq)    \
    X(neon, scalar, SIMDOPS_ARCH_ARM64, c->neon)

/* The kernel files of each tier, csrc/kernels/<op>/<op>_<tier>.c, one list a
 * tier: a tier names only the ops it has kernels for, and takes every other
 * entry from its parent. SIMDOPS_KERNEL_FILES(X, tier) expands X(op, tier)
 * over the tier's list (dispatch builds the tier from it). An op written once
 * for several tiers, csrc/kernels/<dir>/<op>.tiers.c, is compiled once per tier
 * whose line names it (setup.py and csrc/tests/build.sh read these lines: keep
 * each on one line), with SIMDOPS_TIER and SIMDOPS_TIER_IS_<tier> defined. */
#define SIMDOPS_FILES_scalar(X, t) X(clip, t) X(shrink, t) X(hardmax, t) X(requant, t) X(qlinear, t) X(int8mm, t) X(qbinary, t)
#define SIMDOPS_FILES_sse2(X, t) X(clip, t) X(shrink, t) X(hardmax, t) X(requant, t) X(qlinear, t) X(qbinary, t)
#define SIMDOPS_FILES_sse41(X, t) X(clip, t) X(shrink, t) X(hardmax, t) X(requant, t) X(qlinear, t) X(qbinary, t)
#define SIMDOPS_FILES_avx2(X, t) X(clip, t) X(shrink, t) X(hardmax, t) X(requant, t) X(qlinear, t) X(int8mm, t) X(qbinary, t)
#define SIMDOPS_FILES_avx512(X, t) X(clip, t) X(shrink, t) X(hardmax, t) X(requant, t) X(qlinear, t) X(qbinary, t)
#define SIMDOPS_FILES_neon(X, t) X(clip, t) X(shrink, t) X(hardmax, t) X(requant, t) X(qlinear, t) X(qbinary, t)
#define SIMDOPS_KERNEL_FILES(X, tier) SIMDOPS_FILES_##tier(X, tier)

enum simdops_tier_id {
#define SIMDOPS_X_TIER_ID(name, parent, arch, cpu_ok) SIMDOPS_TIER_##name,
    SIMDOPS_TIERS(SIMDOPS_X_TIER_ID)
#undef SIMDOPS_X_TIER_ID
    SIMDOPS_TIER_COUNT
};
enum { SIMDOPS_MAX_TIERS = SIMDOPS_TIER_COUNT };

/* Each kernels/<op>/<op>_<tier>.c defines <op>_register__<tier>: it fills the
 * entries it implements and returns 1, or returns 0 when its ISA was not
 * compiled in. The linker sees them as simdops_<op>_register__<tier> (every
 * global symbol carries the simdops_ prefix). */
typedef int (*simdops_register_fn)(simdops_kernel_table *t);
#if defined(__GNUC__) || defined(__clang__)
#define SIMDOPS_STR_(x) #x
#define SIMDOPS_STR(x) SIMDOPS_STR_(x)
#define SIMDOPS_LINK_NAME(name) __asm__(SIMDOPS_STR(__USER_LABEL_PREFIX__) "simdops_" #name)
#else
#define SIMDOPS_LINK_NAME(name)
#endif
#define SIMDOPS_X_DECLARE_REGISTER_OP(op, tier)                                                   \
    int op##_register__##tier(simdops_kernel_table *t) SIMDOPS_LINK_NAME(op##_register__##tier);
#define SIMDOPS_X_DECLARE_REGISTER_TIER(name, parent, arch, cpu_ok)                               \
    SIMDOPS_KERNEL_FILES(SIMDOPS_X_DECLARE_REGISTER_OP, name)
SIMDOPS_TIERS(SIMDOPS_X_DECLARE_REGISTER_TIER)
#undef SIMDOPS_X_DECLARE_REGISTER_TIER
/* The requantization families' kernels (kernels/requant/requant_families_<tier>.c),
 * registered by the requant register function of the tiers that have them. */
SIMDOPS_X_DECLARE_REGISTER_OP(requant_families, scalar)
SIMDOPS_X_DECLARE_REGISTER_OP(requant_families, sse2)
SIMDOPS_X_DECLARE_REGISTER_OP(requant_families, sse41)
SIMDOPS_X_DECLARE_REGISTER_OP(requant_families, avx2)
SIMDOPS_X_DECLARE_REGISTER_OP(requant_families, avx512)
SIMDOPS_X_DECLARE_REGISTER_OP(requant_families, neon)

/* Registration from lists. A kernel file defines SIMDOPS_TIER (its tier's name)
 * before including this header's users' bodies, names what it implements as a
 * list of (entry, dtype tag) pairs -- requant entries by their output type's
 * tag -- and SIMDOPS_DEFINE_REGISTER makes <op>_register__<tier>, which sets each
 * slot to the function <tag>_<entry>__<tier>:
 *     #define CLIP_KERNELS(X) X(clip, f32) X(clip, f16) X(clip_scale_bias, f32)
 *     SIMDOPS_DEFINE_REGISTER(clip, CLIP_KERNELS)
 * A pair without its function fails to compile; a pair on a slot the dtype
 * table does not give the entry's op fails the harness (a tier may only
 * override what the scalar table has). */
#define SIMDOPS_CAT_(a, b) a##b
#define SIMDOPS_CAT(a, b) SIMDOPS_CAT_(a, b)
/* <tag>_<entry>__<SIMDOPS_TIER>: a kernel's name in the tier being compiled. */
#define SIMDOPS_KERNEL_NAME(tag, entry) SIMDOPS_CAT(tag##_##entry##__, SIMDOPS_TIER)
enum { SIMDOPS_SLOT_KIND_IS_RQ_DTYPE = 0, SIMDOPS_SLOT_KIND_IS_RQ_RQ = 1 };
enum simdops_kernel_entry_is_rq {
#define SIMDOPS_X_KE_RQ(field, type, slots, kind, op, test) SIMDOPS_KE_RQ_##field = SIMDOPS_SLOT_KIND_IS_RQ_##kind,
    SIMDOPS_KERNEL_ENTRIES(SIMDOPS_X_KE_RQ)
#undef SIMDOPS_X_KE_RQ
};
#define SIMDOPS_SLOT_OF(entry, tag)                                                               \
    (SIMDOPS_KE_RQ_##entry ? (int)SIMDOPS_RQ_SLOT_##tag : (int)SIMDOPS_DT_##tag)
#define SIMDOPS_X_REGISTER(entry, tag) t->entry[SIMDOPS_SLOT_OF(entry, tag)] = SIMDOPS_KERNEL_NAME(tag, entry);
/* in a register function: entry (a per-channel requant entry the same function
 * registers) restarts every ch->period elements, for tag's output type */
#define SIMDOPS_X_MARK_RESTARTS(entry, tag)                                                       \
    t->requant_pc_restarts[SIMDOPS_KE_##entry][SIMDOPS_SLOT_OF(entry, tag)] = 1;
#define SIMDOPS_DEFINE_REGISTER(op, LIST)                                                         \
    int SIMDOPS_CAT(op##_register__, SIMDOPS_TIER)(simdops_kernel_table * t)                     \
    {                                                                                             \
        LIST(SIMDOPS_X_REGISTER)                                                                  \
        return 1;                                                                                 \
    }
/* SIMDOPS_DEFINE_REGISTER that also marks the per-channel requant entries of
 * RESTARTS (a sublist of LIST's pairs) as restarting every ch->period elements
 * (simdops_kernel_table.requant_pc_restarts) */
#define SIMDOPS_DEFINE_REGISTER_RESTARTING(op, LIST, RESTARTS)                                    \
    int SIMDOPS_CAT(op##_register__, SIMDOPS_TIER)(simdops_kernel_table * t)                     \
    {                                                                                             \
        LIST(SIMDOPS_X_REGISTER)                                                                  \
        RESTARTS(SIMDOPS_X_MARK_RESTARTS)                                                         \
        return 1;                                                                                 \
    }
/* A tiered source's register function for a tier whose instructions this target
 * lacks (x86 kernels on aarch64 and back): registers nothing, returns 0. */
#define SIMDOPS_DEFINE_REGISTER_NONE(op)                                                          \
    int SIMDOPS_CAT(op##_register__, SIMDOPS_TIER)(simdops_kernel_table * t)                     \
    {                                                                                             \
        (void)t;                                                                                  \
        return 0;                                                                                 \
    }

#endif
