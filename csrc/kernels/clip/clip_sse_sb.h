/* Integer ScaleBias state of the SSE tiers' clip kernels (sseu_sb_epi32, in
 * double): the results lie in [lo, hi], inside the type, so the saturating packs
 * that narrow them are exact. <tag>_sb_init sets it from the params of <tag>. */
#ifndef SIMDOPS_CLIP_SSE_SB_H
#define SIMDOPS_CLIP_SSE_SB_H

#include "kernels/vec/sse_util.h"

static inline void sb_init(sseu_sb *c, double lo, double hi, const simdops_clip_params *p)
{
    c->s = _mm_set1_pd((double)p->scale);
    c->b = _mm_set1_pd((double)p->bias);
    c->lo = _mm_set1_pd(lo);
    c->hi = _mm_set1_pd(hi);
}

#define CLIP_SSE_SB_INIT(tag)                                                                     \
    static inline void tag##_sb_init(sseu_sb *c, const simdops_clip_params *p)                   \
    {                                                                                             \
        sb_init(c, p->min.tag, p->max.tag, p);                                                    \
    }
CLIP_SSE_SB_INIT(u8)
CLIP_SSE_SB_INIT(i8)
CLIP_SSE_SB_INIT(u16)
CLIP_SSE_SB_INIT(i16)
CLIP_SSE_SB_INIT(u32)
CLIP_SSE_SB_INIT(i32)
#undef CLIP_SSE_SB_INIT

/* A tier's integer ScaleBias kernels come from one list of its file,
 * LIST(Y, C) = Y(C, tag, element size, unroll) ...: LIST(CLIP_SSE_SB_KERNEL, _)
 * defines <tag>_clip_scale_bias__<tier> over <tag>_sb_op, and LIST(CLIP_SSE_SB_ENTRY,
 * X) in the file's register list names each. */
#define CLIP_SSE_SB_KERNEL(C, tag, esize, unroll)                                                 \
    SSEU_MAP_KERNEL(SIMDOPS_KERNEL_NAME(tag, clip_scale_bias), simdops_clip_params, esize,       \
                    unroll, sseu_sb, tag##_sb_init, tag##_sb_op)
#define CLIP_SSE_SB_ENTRY(X, tag, esize, unroll) X(clip_scale_bias, tag)

#endif
