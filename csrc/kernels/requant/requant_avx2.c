/* requant kernels for AVX2 (docs/semantics.md): SRDHM from vpmuldq, RDBPOT with
 * vpabsd/vpsignd, per-channel shifts with vpsllvd/vpsrlvd; the lane-wise
 * packs are put back in order with one cross-lane permute per store. */
#include "kernels/registry.h"
#include "kernels/vec/isa.h"

#if SIMDOPS_COMPILE_AVX2
#include <immintrin.h>

#include "requant_x86.h"

#define RQ_BLOCK 32
#define RQ_ODDLOAD RQ_F_ODDLOAD

typedef struct rq_consts {
    __m256i mult, half, offset, off16, lo16, hi16, lo8, hi8;
    __m256i ls, rs; /* shift counts in every lane: vpsllvd/vpsrlvd are one uop, a count in xmm two */
} rq_consts;

RQ_INLINE void rq_consts_init(rq_consts *c, const simdops_requant_params *p)
{
    c->mult = _mm256_set1_epi32(p->multiplier);
    c->ls = _mm256_set1_epi32(p->left_shift);
    c->rs = _mm256_set1_epi32(p->right_shift);
    c->half = _mm256_set1_epi32((int32_t)(((int64_t)1 << p->right_shift) >> 1));
    c->offset = _mm256_set1_epi32(p->offset);
    c->off16 = _mm256_set1_epi16((int16_t)p->offset); /* used only under RQ_F_OFF16 */
    /* bounds are inside the output type (uint8 bounds as byte patterns) */
    c->lo16 = _mm256_set1_epi16((int16_t)p->min);
    c->hi16 = _mm256_set1_epi16((int16_t)p->max);
    c->lo8 = _mm256_set1_epi8((char)p->min);
    c->hi8 = _mm256_set1_epi8((char)p->max);
}

RQ_INLINE __m256i rq_load(const int32_t *p, size_t k)
{
    return _mm256_loadu_si256((const __m256i *)(p + k));
}

/* SRDHM(a, b); ao, bo hold the odd lanes of a, b in even positions. vpmuldq
 * gives the exact signed products; +2^30 then bits 31..62 is the floor
 * division by 2^31. 0x80000000 only comes from INT32_MIN*INT32_MIN (see
 * rq_srdhm_sse2). */
RQ_INLINE __m256i rq_srdhm_avx2(__m256i a, __m256i ao, __m256i b, __m256i bo, int sat)
{
    const __m256i nudge = _mm256_set1_epi64x((int64_t)1 << 30);
    __m256i pe = _mm256_add_epi64(_mm256_mul_epi32(a, b), nudge);
    __m256i po = _mm256_add_epi64(_mm256_mul_epi32(ao, bo), nudge);
    __m256i q = _mm256_blend_epi32(_mm256_srli_epi64(pe, 31), _mm256_slli_epi64(po, 1), 0xAA);
    return sat ? _mm256_add_epi32(q, _mm256_cmpeq_epi32(q, _mm256_set1_epi32(INT32_MIN))) : q;
}

/* 8 elements at x + k. RDBPOT as sign(q) * ((|q| + half) >>> e), see
 * requant_x86.h. Under RQ_F_ODDLOAD the odd lanes come from a load one
 * element on, which saves a shift. */
RQ_INLINE __m256i rq_vec(const int32_t *x, const int32_t *b, size_t k, const rq_consts *c,
                         int f)
{
    __m256i a = rq_load(x, k), ao, q, u;
    if (f & RQ_F_BIAS)
        a = _mm256_add_epi32(a, rq_load(b, k));
    if (f & RQ_F_GENERAL)
        a = _mm256_sllv_epi32(a, c->ls);
    ao = (f & RQ_F_ODDLOAD) ? rq_load(x, k + 1) : _mm256_srli_epi64(a, 32);
    q = rq_srdhm_avx2(a, ao, c->mult, c->mult, f & RQ_F_GENERAL);
    u = _mm256_srlv_epi32(_mm256_add_epi32(_mm256_abs_epi32(q), c->half), c->rs);
    u = _mm256_sign_epi32(u, q);
    return (f & RQ_F_OFF16) ? u : _mm256_add_epi32(u, c->offset);
}

/* 8 elements at x (and b) of channels k..k+7. Under RQ_F_DERIVED ch's
 * derived arrays (built once per call) make this the per-tensor arithmetic
 * plus loads, the multiplier's odd lanes coming from a load one element on
 * (ch->mult[n] is readable); else the shifts are derived from ch->shift. */
RQ_INLINE __m256i rq_pc_vec(const int32_t *x, const int32_t *b,
                            const simdops_requant_channels *ch, size_t k, const rq_consts *c,
                            int f)
{
    const __m256i zero = _mm256_setzero_si256();
    __m256i a = rq_load(x, 0), m = rq_load(ch->mult, k), mo, rs, half, q, u;
    if (f & RQ_F_BIAS)
        a = _mm256_add_epi32(a, rq_load(b, 0));
    if (f & RQ_F_DERIVED) {
        mo = rq_load(ch->mult, k + 1);
        rs = rq_load(ch->right, k);
        half = rq_load(ch->half, k);
        if (f & RQ_F_GENERAL)
            a = _mm256_sllv_epi32(a, rq_load(ch->left, k));
    } else {
        __m256i s = rq_load(ch->shift, k);
        mo = _mm256_srli_epi64(m, 32);
        rs = _mm256_max_epi32(s, zero);
        half = _mm256_srli_epi32(_mm256_sllv_epi32(_mm256_set1_epi32(1), rs), 1);
        if (f & RQ_F_GENERAL)
            a = _mm256_sllv_epi32(a, _mm256_sub_epi32(rs, s)); /* max(-s, 0) */
    }
    q = rq_srdhm_avx2(a, _mm256_srli_epi64(a, 32), m, mo, f & RQ_F_GENERAL);
    u = _mm256_add_epi32(_mm256_abs_epi32(q), half);
    u = _mm256_sign_epi32(_mm256_srlv_epi32(u, rs), q);
    return (f & RQ_F_OFF16) ? u : _mm256_add_epi32(u, c->offset);
}

RQ_INLINE __m256i rq_pack16(__m256i v0, __m256i v1, const rq_consts *c, int f)
{
    __m256i w = _mm256_packs_epi32(v0, v1);
    return (f & RQ_F_OFF16) ? _mm256_adds_epi16(w, c->off16) : w;
}

/* packs work per 128-bit lane: dword j of the byte pack holds 4 outputs of
 * v[j % 4], half j / 4; this permute restores element order. */
RQ_INLINE __m256i rq_unlane8(__m256i b)
{
    return _mm256_permutevar8x32_epi32(b, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
}

RQ_INLINE void rq_store_u8(uint8_t *y, __m256i v0, __m256i v1, __m256i v2, __m256i v3,
                           const rq_consts *c, int f)
{
    __m256i b = _mm256_packus_epi16(rq_pack16(v0, v1, c, f), rq_pack16(v2, v3, c, f));
    if (!(f & RQ_F_NOCLAMP))
        b = _mm256_min_epu8(_mm256_max_epu8(b, c->lo8), c->hi8);
    _mm256_storeu_si256((__m256i *)y, rq_unlane8(b));
}

RQ_INLINE void rq_store_i8(int8_t *y, __m256i v0, __m256i v1, __m256i v2, __m256i v3,
                           const rq_consts *c, int f)
{
    __m256i b = _mm256_packs_epi16(rq_pack16(v0, v1, c, f), rq_pack16(v2, v3, c, f));
    if (!(f & RQ_F_NOCLAMP))
        b = _mm256_min_epi8(_mm256_max_epi8(b, c->lo8), c->hi8);
    _mm256_storeu_si256((__m256i *)y, rq_unlane8(b));
}

RQ_INLINE __m256i rq_clamp16(__m256i w, const rq_consts *c, int f)
{
    /* qwords of a 16-bit pack come as v0.lo, v1.lo, v0.hi, v1.hi */
    w = _mm256_permute4x64_epi64(w, _MM_SHUFFLE(3, 1, 2, 0));
    return (f & RQ_F_NOCLAMP) ? w : _mm256_min_epi16(_mm256_max_epi16(w, c->lo16), c->hi16);
}

RQ_INLINE void rq_store_i16(int16_t *y, __m256i v0, __m256i v1, __m256i v2, __m256i v3,
                            const rq_consts *c, int f)
{
    _mm256_storeu_si256((__m256i *)y, rq_clamp16(rq_pack16(v0, v1, c, f), c, f));
    _mm256_storeu_si256((__m256i *)(y + 16), rq_clamp16(rq_pack16(v2, v3, c, f), c, f));
}

#define RQ_AVX2_BLOCKS(T, tag)                                                         \
    RQ_INLINE void rq_block_##tag(const int32_t *x, const int32_t *b, T *y,            \
                                  const rq_consts *c, int f)                           \
    {                                                                                  \
        __m256i v0 = rq_vec(x, b, 0, c, f), v1 = rq_vec(x, b, 8, c, f);                \
        __m256i v2 = rq_vec(x, b, 16, c, f), v3 = rq_vec(x, b, 24, c, f);              \
        rq_store_##tag(y, v0, v1, v2, v3, c, f);                                       \
    }                                                                                  \
    RQ_INLINE void rq_pc_block_##tag(const int32_t *x, const int32_t *b,               \
                                     const simdops_requant_channels *ch, size_t k,     \
                                     T *y, const rq_consts *c, int f)                  \
    {                                                                                  \
        __m256i v0 = rq_pc_vec(x, b, ch, k, c, f);                                     \
        __m256i v1 = rq_pc_vec(x + 8, b ? b + 8 : NULL, ch, k + 8, c, f);              \
        __m256i v2 = rq_pc_vec(x + 16, b ? b + 16 : NULL, ch, k + 16, c, f);           \
        __m256i v3 = rq_pc_vec(x + 24, b ? b + 24 : NULL, ch, k + 24, c, f);           \
        rq_store_##tag(y, v0, v1, v2, v3, c, f);                                       \
    }

RQ_AVX2_BLOCKS(uint8_t, u8)
RQ_AVX2_BLOCKS(int8_t, i8)
RQ_AVX2_BLOCKS(int16_t, i16)
#define RQ_FAMILIES_REGISTER(t) requant_families_register__avx2(t)
#include "requant_x86_skeleton.h"
RQ_X86_TIER(avx2)

#else
SIMDOPS_TIER_NOT_COMPILED(requant, avx2)
#endif
