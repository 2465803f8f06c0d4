/* What every x86 requant tier shares before its vector helpers: the variant
 * flags and how parameters choose them. Include only inside a
 * SIMDOPS_COMPILE_<ISA> block. */
#ifndef SIMDOPS_REQUANT_X86_H
#define SIMDOPS_REQUANT_X86_H

#include <emmintrin.h>
#include <stdint.h>
#include <string.h>

#include "kernels/registry.h"

#if defined(_MSC_VER)
#define RQ_INLINE static __forceinline
#else
#define RQ_INLINE static inline __attribute__((always_inline))
#endif

/* Variant flags, compile-time constants inside the kernels: RQ_F_BIAS adds
 * bias; RQ_F_GENERAL handles left_shift != 0 and multiplier == INT32_MIN (the
 * only case where SRDHM saturates); without it those steps are skipped, which
 * is exact when rq_general(p) is 0 (per channel: ch->general is 0).
 * RQ_F_ODDLOAD (no-bias fast path) lets a block read one element past its
 * end; a file without that trick defines RQ_ODDLOAD as 0. */
enum {
    RQ_F_BIAS = 1,
    RQ_F_GENERAL = 2,
    RQ_F_ODDLOAD = 4,
    RQ_F_OFF16 = 8,
    RQ_F_NOCLAMP = 16,
    RQ_F_DERIVED = 32 /* per channel: ch has its derived arrays (a tier may ignore them) */
};

static inline int rq_general(const simdops_requant_params *p)
{
    return p->left_shift != 0 || p->multiplier == INT32_MIN;
}

/* The flags a per-tensor call may run with. RQ_F_OFF16 adds the offset after
 * the first pack, with a saturating int16 add: valid when right_shift >= 1
 * (then |RDBPOT| <= 2^30, so q + offset needs no wrap) and max - 32767 <=
 * offset <= min + 32768: an s above 32767 then gives sat16(32767 + offset) >=
 * max, as s + offset does, and symmetrically below -32768; inside int16
 * nothing saturates before the clamp. RQ_F_NOCLAMP: [min, max] is the whole
 * output range [tlo, thi], which the saturating packs give alone. */
static inline int rq_flags(const simdops_requant_params *p, int32_t tlo, int32_t thi)
{
    int f = 0;
    if (rq_general(p))
        return RQ_F_GENERAL;
    if (p->right_shift >= 1 && p->offset >= -32768 && p->offset <= 32767 &&
        p->offset >= p->max - 32767 && p->offset <= p->min + 32768)
        f |= RQ_F_OFF16;
    if (p->min == tlo && p->max == thi)
        f |= RQ_F_NOCLAMP;
    return f;
}

#endif
