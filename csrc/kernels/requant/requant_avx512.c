/* requant kernels for AVX-512 (F+BW+VL+DQ), bit-exact with requant_scalar.c:
 * requant_avx2.c's arithmetic over 16 lanes (SRDHM from vpmuldq, RDBPOT as
 * sign(q) * ((|q| + half) >>> e) with the sign applied by a masked negate,
 * since AVX-512 has no vpsignd), the blocks of requant_x86_skeleton.h at 64
 * elements. The lane-wise packs are put back in order with one vpermd/vpermq
 * per store. Only the per-channel entries are registered (see the register
 * function); per-tensor and the other requantization families inherit avx2's. */
#include "kernels/registry.h"
#include "kernels/vec/isa.h"

#if SIMDOPS_COMPILE_AVX512
#include <immintrin.h>

#include "requant_x86.h"

#define RQ_BLOCK 64
#define RQ_ODDLOAD RQ_F_ODDLOAD

typedef struct rq_consts {
    __m512i mult, half, offset, off16, lo16, hi16, lo8, hi8, ls, rs;
} rq_consts;

RQ_INLINE void rq_consts_init(rq_consts *c, const simdops_requant_params *p)
{
    c->mult = _mm512_set1_epi32(p->multiplier);
    c->ls = _mm512_set1_epi32(p->left_shift);
    c->rs = _mm512_set1_epi32(p->right_shift);
    c->half = _mm512_set1_epi32((int32_t)(((int64_t)1 << p->right_shift) >> 1));
    c->offset = _mm512_set1_epi32(p->offset);
    c->off16 = _mm512_set1_epi16((int16_t)p->offset); /* used only under RQ_F_OFF16 */
    c->lo16 = _mm512_set1_epi16((int16_t)p->min);
    c->hi16 = _mm512_set1_epi16((int16_t)p->max);
    c->lo8 = _mm512_set1_epi8((char)p->min);
    c->hi8 = _mm512_set1_epi8((char)p->max);
}

RQ_INLINE __m512i rq_load(const int32_t *p, size_t k)
{
    return _mm512_loadu_si512((const void *)(p + k));
}

/* SRDHM(a, b) as rq_srdhm_avx2: exact vpmuldq products, +2^30, bits 31..62;
 * 0x80000000 only from INT32_MIN*INT32_MIN, which saturates to INT32_MAX. */
RQ_INLINE __m512i rq_srdhm_avx512(__m512i a, __m512i ao, __m512i b, __m512i bo, int sat)
{
    const __m512i nudge = _mm512_set1_epi64((int64_t)1 << 30);
    __m512i pe = _mm512_add_epi64(_mm512_mul_epi32(a, b), nudge);
    __m512i po = _mm512_add_epi64(_mm512_mul_epi32(ao, bo), nudge);
    __m512i q = _mm512_mask_blend_epi32(0xAAAA, _mm512_srli_epi64(pe, 31),
                                        _mm512_slli_epi64(po, 1));
    if (sat)
        q = _mm512_mask_sub_epi32(
            q, _mm512_cmpeq_epi32_mask(q, _mm512_set1_epi32(INT32_MIN)), q,
            _mm512_set1_epi32(1));
    return q;
}

/* sign(q) * ((|q| + half) >>> rs); q == 0 gives 0 already (half < 2^rs). */
RQ_INLINE __m512i rq_rdbpot(__m512i q, __m512i half, __m512i rs)
{
    __m512i u = _mm512_srlv_epi32(_mm512_add_epi32(_mm512_abs_epi32(q), half), rs);
    return _mm512_mask_sub_epi32(u, _mm512_movepi32_mask(q), _mm512_setzero_si512(), u);
}

/* 16 elements at x + k; under RQ_F_ODDLOAD the odd lanes come from a load
 * one element on. */
RQ_INLINE __m512i rq_vec(const int32_t *x, const int32_t *b, size_t k, const rq_consts *c,
                         int f)
{
    __m512i a = rq_load(x, k), ao, q, u;
    if (f & RQ_F_BIAS)
        a = _mm512_add_epi32(a, rq_load(b, k));
    if (f & RQ_F_GENERAL)
        a = _mm512_sllv_epi32(a, c->ls);
    ao = (f & RQ_F_ODDLOAD) ? rq_load(x, k + 1) : _mm512_srli_epi64(a, 32);
    q = rq_srdhm_avx512(a, ao, c->mult, c->mult, f & RQ_F_GENERAL);
    u = rq_rdbpot(q, c->half, c->rs);
    return (f & RQ_F_OFF16) ? u : _mm512_add_epi32(u, c->offset);
}

/* 16 elements at x (and b) of channels k..k+15, as rq_pc_vec of requant_avx2.c
 * (ch->mult[n] is readable under RQ_F_DERIVED). */
RQ_INLINE __m512i rq_pc_vec(const int32_t *x, const int32_t *b,
                            const simdops_requant_channels *ch, size_t k, const rq_consts *c,
                            int f)
{
    __m512i a = rq_load(x, 0), m = rq_load(ch->mult, k), mo, rs, half, q, u;
    if (f & RQ_F_BIAS)
        a = _mm512_add_epi32(a, rq_load(b, 0));
    if (f & RQ_F_DERIVED) {
        mo = rq_load(ch->mult, k + 1);
        rs = rq_load(ch->right, k);
        half = rq_load(ch->half, k);
        if (f & RQ_F_GENERAL)
            a = _mm512_sllv_epi32(a, rq_load(ch->left, k));
    } else {
        __m512i s = rq_load(ch->shift, k);
        mo = _mm512_srli_epi64(m, 32);
        rs = _mm512_max_epi32(s, _mm512_setzero_si512());
        half = _mm512_srli_epi32(_mm512_sllv_epi32(_mm512_set1_epi32(1), rs), 1);
        if (f & RQ_F_GENERAL)
            a = _mm512_sllv_epi32(a, _mm512_sub_epi32(rs, s)); /* max(-s, 0) */
    }
    q = rq_srdhm_avx512(a, _mm512_srli_epi64(a, 32), m, mo, f & RQ_F_GENERAL);
    u = rq_rdbpot(q, half, rs);
    return (f & RQ_F_OFF16) ? u : _mm512_add_epi32(u, c->offset);
}

RQ_INLINE __m512i rq_pack16(__m512i v0, __m512i v1, const rq_consts *c, int f)
{
    __m512i w = _mm512_packs_epi32(v0, v1);
    return (f & RQ_F_OFF16) ? _mm512_adds_epi16(w, c->off16) : w;
}

/* packs work per 128-bit lane: dword 4l + j of the byte pack holds outputs
 * 4l..4l+3 of v[j]; this permute restores element order. */
RQ_INLINE __m512i rq_unlane8(__m512i b)
{
    return _mm512_permutexvar_epi32(
        _mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15), b);
}

RQ_INLINE void rq_store_u8(uint8_t *y, __m512i v0, __m512i v1, __m512i v2, __m512i v3,
                           const rq_consts *c, int f)
{
    __m512i b = _mm512_packus_epi16(rq_pack16(v0, v1, c, f), rq_pack16(v2, v3, c, f));
    if (!(f & RQ_F_NOCLAMP))
        b = _mm512_min_epu8(_mm512_max_epu8(b, c->lo8), c->hi8);
    _mm512_storeu_si512((void *)y, rq_unlane8(b));
}

RQ_INLINE void rq_store_i8(int8_t *y, __m512i v0, __m512i v1, __m512i v2, __m512i v3,
                           const rq_consts *c, int f)
{
    __m512i b = _mm512_packs_epi16(rq_pack16(v0, v1, c, f), rq_pack16(v2, v3, c, f));
    if (!(f & RQ_F_NOCLAMP))
        b = _mm512_min_epi8(_mm512_max_epi8(b, c->lo8), c->hi8);
    _mm512_storeu_si512((void *)y, rq_unlane8(b));
}

RQ_INLINE __m512i rq_clamp16(__m512i w, const rq_consts *c, int f)
{
    /* qword 2l of a 16-bit pack is v0's lane l, qword 2l + 1 v1's */
    w = _mm512_permutexvar_epi64(_mm512_setr_epi64(0, 2, 4, 6, 1, 3, 5, 7), w);
    return (f & RQ_F_NOCLAMP) ? w : _mm512_min_epi16(_mm512_max_epi16(w, c->lo16), c->hi16);
}

RQ_INLINE void rq_store_i16(int16_t *y, __m512i v0, __m512i v1, __m512i v2, __m512i v3,
                            const rq_consts *c, int f)
{
    _mm512_storeu_si512((void *)y, rq_clamp16(rq_pack16(v0, v1, c, f), c, f));
    _mm512_storeu_si512((void *)(y + 32), rq_clamp16(rq_pack16(v2, v3, c, f), c, f));
}

#define RQ_AVX512_BLOCKS(T, tag)                                                       \
    RQ_INLINE void rq_block_##tag(const int32_t *x, const int32_t *b, T *y,            \
                                  const rq_consts *c, int f)                           \
    {                                                                                  \
        __m512i v0 = rq_vec(x, b, 0, c, f), v1 = rq_vec(x, b, 16, c, f);               \
        __m512i v2 = rq_vec(x, b, 32, c, f), v3 = rq_vec(x, b, 48, c, f);              \
        rq_store_##tag(y, v0, v1, v2, v3, c, f);                                       \
    }                                                                                  \
    RQ_INLINE void rq_pc_block_##tag(const int32_t *x, const int32_t *b,               \
                                     const simdops_requant_channels *ch, size_t k,     \
                                     T *y, const rq_consts *c, int f)                  \
    {                                                                                  \
        __m512i v0 = rq_pc_vec(x, b, ch, k, c, f);                                     \
        __m512i v1 = rq_pc_vec(x + 16, b ? b + 16 : NULL, ch, k + 16, c, f);           \
        __m512i v2 = rq_pc_vec(x + 32, b ? b + 32 : NULL, ch, k + 32, c, f);           \
        __m512i v3 = rq_pc_vec(x + 48, b ? b + 48 : NULL, ch, k + 48, c, f);           \
        rq_store_##tag(y, v0, v1, v2, v3, c, f);                                       \
    }

RQ_AVX512_BLOCKS(uint8_t, u8)
RQ_AVX512_BLOCKS(int8_t, i8)
RQ_AVX512_BLOCKS(int16_t, i16)
#include "requant_x86_skeleton.h"

/* Only the per-channel entries: they measured faster than avx2's on this
 * project's benchmark machine (docs/performance.md); the per-tensor ones did
 * not, so they stay avx2's (rq_kernel above is instantiated for neither). */
#define RQ_AVX512_PC_ENTRY(name, out, tlo, thi)                                        \
    static void name(const int32_t *x, void *y, size_t n, const int32_t *bias,         \
                     const simdops_requant_channels *ch,                               \
                     const simdops_requant_params *p)                                  \
    {                                                                                  \
        rq_pc_kernel(x, y, n, bias, ch, p, out, tlo, thi);                             \
    }
RQ_AVX512_PC_ENTRY(i32_u8_requant_pc__avx512, SIMDOPS_RQ_U8, 0, 255)
RQ_AVX512_PC_ENTRY(i32_i8_requant_pc__avx512, SIMDOPS_RQ_I8, -128, 127)
RQ_AVX512_PC_ENTRY(i32_i16_requant_pc__avx512, SIMDOPS_RQ_I16, -32768, 32767)

int requant_register__avx512(simdops_kernel_table *t)
{
    t->requant_pc[SIMDOPS_RQ_U8] = i32_u8_requant_pc__avx512;
    t->requant_pc[SIMDOPS_RQ_I8] = i32_i8_requant_pc__avx512;
    t->requant_pc[SIMDOPS_RQ_I16] = i32_i16_requant_pc__avx512;
    return requant_families_register__avx512(t); /* the fp32 family */
}

#else
SIMDOPS_TIER_NOT_COMPILED(requant, avx512)
#endif
