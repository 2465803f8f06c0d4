/* shrink kernels for SSE2, as shrink_scalar.c: float32 and float64 from the
 * shared body (shrink_body.h), and here the integers: both branches are
 * computed and selected by their (exclusive: neg_thr <= 0 <= thr) masks, the
 * zero branch being what neither mask keeps. Lanes SSE2 cannot compare or
 * min/max directly are XORed into a domain it can; the wrapping +-B then
 * uses B XOR the flip, since (c ^ f) -+ (B ^ f) == c -+ B modulo the lane. */
#include "kernels/registry.h"
#include "kernels/vec/isa.h"

#if SIMDOPS_COMPILE_SSE2
#include "kernels/vec/sse_util.h"
#define SIMDOPS_TIER sse2
#include "kernels/vec/sse2.h"
#include "kernels/shrink/shrink_body.h"
#include "kernels/shrink/shrink_int_form.h"


/* u8 compares flipped (pcmpgtb is signed), clamps unflipped (pmaxub/pminub). */
static void u8_init(ishrink *c, const simdops_shrink_params *p)
{
    c->f = _mm_set1_epi8((char)0x80);
    c->thr = _mm_xor_si128(SET1_8(p->thr.u8), c->f);
    c->nthr = _mm_xor_si128(SET1_8(p->neg_thr.u8), c->f);
    c->sub_lo = SET1_8(p->sub_lo.u8);
    c->sub_hi = SET1_8(p->sub_hi.u8);
    c->add_lo = SET1_8(p->add_lo.u8);
    c->add_hi = SET1_8(p->add_hi.u8);
    c->b = SET1_8(p->bias.u8);
}

/* i8 the other way round: compares unflipped, clamps flipped into epu8. */
static void i8_init(ishrink *c, const simdops_shrink_params *p)
{
    const __m128i f = _mm_set1_epi8((char)0x80);
    c->f = f;
    c->thr = SET1_8(p->thr.i8);
    c->nthr = SET1_8(p->neg_thr.i8);
    c->sub_lo = _mm_xor_si128(SET1_8(p->sub_lo.i8), f);
    c->sub_hi = _mm_xor_si128(SET1_8(p->sub_hi.i8), f);
    c->add_lo = _mm_xor_si128(SET1_8(p->add_lo.i8), f);
    c->add_hi = _mm_xor_si128(SET1_8(p->add_hi.i8), f);
    c->b = _mm_xor_si128(SET1_8(p->bias.i8), f);
}

ISHRINK_INIT(u16_init, u16, SET1_16, _mm_set1_epi16((short)0x8000))
ISHRINK_INIT(i16_init, i16, SET1_16, _mm_setzero_si128())
ISHRINK_INIT(u32_init, u32, SET1_32, _mm_set1_epi32((int)0x80000000u))
ISHRINK_INIT(i32_init, i32, SET1_32, _mm_setzero_si128())

/* u8 compares flipped, clamps unflipped; i8 the other way round; u16 / u32
 * (flipped) and i16 / i32 do both on xf (f = 0 for the signed ones). */
ISHRINK_OP(u8_op, _mm_cmpgt_epi8, _mm_sub_epi8, _mm_add_epi8, _mm_min_epu8, _mm_max_epu8, xf, x)
ISHRINK_OP(i8_op, _mm_cmpgt_epi8, _mm_sub_epi8, _mm_add_epi8, _mm_min_epu8, _mm_max_epu8, x, xf)
ISHRINK_OP(x16_op, _mm_cmpgt_epi16, _mm_sub_epi16, _mm_add_epi16, _mm_min_epi16, _mm_max_epi16,
           xf, xf)
ISHRINK_OP(x32_op, _mm_cmpgt_epi32, _mm_sub_epi32, _mm_add_epi32, sseu_min_epi32, sseu_max_epi32,
           xf, xf)

/* One kernel per row of shrink_int_form.h's SHRINK_INT_TYPES (every tier's list), with
 * its type's vector op: OP_<tag> (u16 / i16 and u32 / i32 share theirs). */
#define OP_u8 u8_op
#define OP_i8 i8_op
#define OP_u16 x16_op
#define OP_i16 x16_op
#define OP_u32 x32_op
#define OP_i32 x32_op
#define INT_KERNEL(C, tag, T, UT, tmin, tmax, esize)                                              \
    SSEU_MAP_KERNEL(SIMDOPS_KERNEL_NAME(tag, shrink), simdops_shrink_params, esize, 4, ishrink,  \
                    tag##_init, OP_##tag)
SHRINK_INT_TYPES(INT_KERNEL, _)

#define SHRINK_KERNELS(X) SHRINK_BODY_KERNELS(X) SHRINK_INT_TYPES(SHRINK_INT_ENTRY, X)
SIMDOPS_DEFINE_REGISTER(shrink, SHRINK_KERNELS)
#else
SIMDOPS_TIER_NOT_COMPILED(shrink, sse2)
#endif
