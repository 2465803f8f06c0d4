/* Quantized binary ops for AVX-512 (F+BW+VL+DQ), 8-bit types: the shared body
 * (qbinary_body.h) over 16-lane int32 vectors (qbinary_x86.h), 64 elements a
 * step, RDBPOT's step up by a mask add. The conversions use embedded rounding
 * (nearest even, no exceptions), so the float multiply (its multiply and add
 * in MXCSR's mode, as the scalar element's) runs vectors in every mode;
 * ONNX Runtime's add is two fused multiply-adds rounding to nearest in the
 * instruction (vfmadd: fmaf's bits only while MXCSR rounds to nearest, fmaf
 * following the caller's mode), so under any other mode that entry runs the
 * scalar element for the whole row. XNNPACK's add has rows of its own
 * (qbinary_xnn_avx512.h), and so have the fp32 multiply (int16 products,
 * qbinary_fpmul_avx512.h) and TFLite's add and multiply (windows:
 * qbinary_tfl_avx512.h, qbinary_tfl_mul_avx512.h). int16 inherits avx2's (scalar) kernels. */
#include "kernels/registry.h"
#include "kernels/vec/isa.h"

#if SIMDOPS_COMPILE_AVX512
#define SIMDOPS_TIER avx512
#define QV_BITS 512
#define QV_PREFIX _mm512
#define QV_SI si512
#define QB_MUL_EVEN(x, m) _mm512_mul_epi32(x, m)
#define QB_ODD_BLEND(e, o) _mm512_mask_blend_epi32(0xAAAA, e, o)
#define QB_LOAD_LANES(s) _mm_loadu_si128((const __m128i *)(const void *)(s))
/* the packs work within 128-bit lanes: after them dword 4j + k holds v_k's
 * elements 4j..4j+3; this index puts v0's 16 first, then v1's, ... */
#define QB_UNLANE(p)                                                                               \
    _mm512_permutexvar_epi32(_mm512_setr_epi32(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15), p)
#define QB_CVT_RNE(v) _mm512_cvt_roundps_epi32(v, QB_RN)
#define QV_OWN_ADD_IF_GT
#include "qbinary_x86.h"
#include "kernels/vec/mxcsr.h"

static inline qv_i32 qv_add_if_gt(qv_i32 s, qv_i32 r, qv_i32 t)
{
    return _mm512_mask_add_epi32(s, _mm512_cmpgt_epi32_mask(r, t), s, _mm512_set1_epi32(1));
}

typedef __m512 qv_ort;
static inline qv_ort qv_ort_set1(float v) { return _mm512_set1_ps(v); }
static inline qv_i32 qv_ort_add(qv_i32 a, qv_i32 b, qv_ort ra, qv_ort rb, qv_ort fixed)
{
    __m512 t = _mm512_fmadd_round_ps(_mm512_cvtepi32_ps(b), rb, fixed, QB_RN);
    return qv_cvt_rne(_mm512_fmadd_round_ps(_mm512_cvtepi32_ps(a), ra, t, QB_RN));
}
#define QV_ORT_VECTORS(p) simdops_mxcsr_round_nearest()
#define QV_FP_VECTORS(p) 1

/* XNNPACK's add: its own rows (the pair form on AVX512-VNNI CPUs) */
#include <string.h>
#include "qbinary_xnn_avx512.h"
#define QV_OWN_XNN_ROWS
/* the fp32 multiply: int16 products (qbinary_fpmul_avx512.h) */
#include "qbinary_fpmul_avx512.h"
#define QV_OWN_FPMUL_ROWS
/* TFLite's add: the linear form with a window on VNNI CPUs, its rows and
 * kernel after the body's (qbinary_tfl_avx512.h) */
#define QV_OWN_TFL_ADD_ROWS
/* TFLite's multiply: the requant fast path's float form with a window on the
 * exact int16 products (qbinary_tfl_mul_avx512.h) */
#define QV_OWN_TFL_MUL_ROWS

#include "qbinary_body.h"
#include "qbinary_tfl_avx512.h"
#include "qbinary_tfl_mul_avx512.h"
SIMDOPS_DEFINE_REGISTER(qbinary, QBINARY_BODY_KERNELS)
#else
SIMDOPS_TIER_NOT_COMPILED(qbinary, avx512)
#endif
