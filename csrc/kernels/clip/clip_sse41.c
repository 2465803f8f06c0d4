/* clip kernels for SSE4.1: the entries where SSE4.1 beats the SSE2 kernels.
 * The rest inherit: float, u8, i16 and float16 clip and u8/i32/float
 * ScaleBias use nothing SSE4.1 adds; 64-bit clip stays scalar (pcmpgtq is
 * SSE4.2, see clip_sse2.c). Native pminsb/pminuw/pminsd/pminud replace the
 * SSE2 emulations in the shared body (clip_body.h over vec/sse41.h, whose
 * kind lists name just those four); ScaleBias gains pmovsx widening,
 * packusdw and roundpd. */
#include "kernels/registry.h"
#include "kernels/vec/isa.h"

#if SIMDOPS_COMPILE_SSE41
#include <smmintrin.h>

#include "kernels/vec/sse_util.h"
#define SIMDOPS_TIER sse41
#include "kernels/vec/sse41.h"
#include "kernels/clip/clip_body.h"

#include "kernels/clip/clip_sse_sb.h"

static inline __m128i i8_sb_op(__m128i x, const sseu_sb *c)
{
    __m128i q0 = sseu_sb_epi32(_mm_cvtepi8_epi32(x), c);
    __m128i q1 = sseu_sb_epi32(_mm_cvtepi8_epi32(_mm_srli_si128(x, 4)), c);
    __m128i q2 = sseu_sb_epi32(_mm_cvtepi8_epi32(_mm_srli_si128(x, 8)), c);
    __m128i q3 = sseu_sb_epi32(_mm_cvtepi8_epi32(_mm_srli_si128(x, 12)), c);
    return _mm_packs_epi16(_mm_packs_epi32(q0, q1), _mm_packs_epi32(q2, q3));
}

static inline __m128i u16_sb_op(__m128i x, const sseu_sb *c)
{
    __m128i q0 = sseu_sb_epi32(_mm_cvtepu16_epi32(x), c);
    __m128i q1 = sseu_sb_epi32(_mm_cvtepu16_epi32(_mm_srli_si128(x, 8)), c);
    return _mm_packus_epi32(q0, q1);
}

static inline __m128i i16_sb_op(__m128i x, const sseu_sb *c)
{
    __m128i q0 = sseu_sb_epi32(_mm_cvtepi16_epi32(x), c);
    __m128i q1 = sseu_sb_epi32(_mm_cvtepi16_epi32(_mm_srli_si128(x, 8)), c);
    return _mm_packs_epi32(q0, q1);
}

/* uint32: truncate in double first (roundpd), then the integer t - 2^31 is
 * exact, converts signed, and the XOR restores the top bit. */
static inline __m128i u32_sb_op(__m128i x, const sseu_sb *c)
{
    const __m128d two31 = _mm_set1_pd(2147483648.0);
    __m128d d0, d1;
    sseu_cvtepu32_pd(x, &d0, &d1);
    d0 = _mm_sub_pd(_mm_round_pd(sseu_sb_pd(d0, c), _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC), two31);
    d1 = _mm_sub_pd(_mm_round_pd(sseu_sb_pd(d1, c), _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC), two31);
    return _mm_xor_si128(_mm_unpacklo_epi64(_mm_cvttpd_epi32(d0), _mm_cvttpd_epi32(d1)),
                         _mm_set1_epi32((int)0x80000000u));
}

#define SB_TYPES(Y, C) Y(C, i8, 1, 1) Y(C, u16, 2, 2) Y(C, i16, 2, 2) Y(C, u32, 4, 2)
SB_TYPES(CLIP_SSE_SB_KERNEL, _)

#define CLIP_KERNELS(X) CLIP_BODY_KERNELS(X) SB_TYPES(CLIP_SSE_SB_ENTRY, X)
SIMDOPS_DEFINE_REGISTER(clip, CLIP_KERNELS)
#else
SIMDOPS_TIER_NOT_COMPILED(clip, sse41)
#endif
