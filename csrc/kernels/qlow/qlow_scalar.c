/* Reference kernels of the low-bit QuantizeLinear / DequantizeLinear
 * (qlow_abi.h): loops over qlow_element.h, one instance per (quantized type,
 * float side). Rounding is explicit integer / floor arithmetic, never the
 * floating-point environment's mode. */
#include "kernels/qlow/qlow_kernels.h"

#define SIMDOPS_TIER scalar

/* ------------------------------------------------------------------ one element */
static inline float load_float(int fs, const void *x, size_t i)
{
    if (fs == SIMDOPS_QF_F32) {
        float v;
        memcpy(&v, (const char *)x + 4 * i, 4);
        return v;
    } else {
        uint16_t h;
        memcpy(&h, (const char *)x + 2 * i, 2);
        return fs == SIMDOPS_QF_F16 ? simdops_f16_to_f32(h) : qlow_bf16_to_f32(h);
    }
}

/* the integer value of quantized element k (integer types) */
static inline int32_t load_int(int qt, const void *x, size_t k)
{
    const char *b = (const char *)x;
    switch (qt) {
    case SIMDOPS_QT_u8: return ((const uint8_t *)b)[k];
    case SIMDOPS_QT_i8: return ((const int8_t *)b)[k];
    case SIMDOPS_QT_u16: { uint16_t v; memcpy(&v, b + 2 * k, 2); return v; }
    case SIMDOPS_QT_i16: { int16_t v; memcpy(&v, b + 2 * k, 2); return v; }
    case SIMDOPS_QT_i32: { int32_t v; memcpy(&v, b + 4 * k, 4); return v; }
    case SIMDOPS_QT_u4: return (int32_t)qlow_field((const uint8_t *)b, k, 4);
    case SIMDOPS_QT_i4: return qlow_sext(qlow_field((const uint8_t *)b, k, 4), 4);
    case SIMDOPS_QT_u2: return (int32_t)qlow_field((const uint8_t *)b, k, 2);
    default: return qlow_sext(qlow_field((const uint8_t *)b, k, 2), 2);
    }
}

static inline void store_int(int qt, void *y, size_t k, int32_t v)
{
    char *b = (char *)y;
    switch (qt) {
    case SIMDOPS_QT_u8: ((uint8_t *)b)[k] = (uint8_t)v; break;
    case SIMDOPS_QT_i8: ((int8_t *)b)[k] = (int8_t)v; break;
    case SIMDOPS_QT_u16: { uint16_t w = (uint16_t)v; memcpy(b + 2 * k, &w, 2); break; }
    case SIMDOPS_QT_i16: { int16_t w = (int16_t)v; memcpy(b + 2 * k, &w, 2); break; }
    case SIMDOPS_QT_i32: memcpy(b + 4 * k, &v, 4); break;
    case SIMDOPS_QT_u4: case SIMDOPS_QT_i4: qlow_set_field((uint8_t *)b, k, 4, (uint32_t)v); break;
    default: qlow_set_field((uint8_t *)b, k, 2, (uint32_t)v); break;
    }
}

static inline int is_int(int qt) { return qt <= SIMDOPS_QT_i2 && qt >= SIMDOPS_QT_u8; }

/* float32(x - zp) * scale, the product before OUT's rounding */
static inline float dq_one(int qt, const void *x, size_t k, float scale, float zpf)
{
    if (is_int(qt)) {
        if (qt == SIMDOPS_QT_i32) /* float32(x) (rounded, as astype) - 0 */
            return (float)load_int(qt, x, k) * scale;
        return ((float)load_int(qt, x, k) - zpf) * scale; /* exact difference */
    }
    {
        qlow_format f = qlow_format_of(qt);
        uint32_t c = qt == SIMDOPS_QT_f4e2m1 ? qlow_field((const uint8_t *)x, k, 4)
                                              : ((const uint8_t *)x)[k];
        float v = qlow_fmt_to_f32(c, &f);
        /* NaN x: its NaN, whatever the scale (numpy's x * scale returns the first
         * NaN operand; C's commutative * may be emitted either way round) */
        return v != v ? v : v * scale;
    }
}

static inline void q_one(int qt, float q, void *y, size_t k, float zpf, int32_t zp,
                         const simdops_qlow_params *p)
{
    if (is_int(qt)) {
        const simdops_qtype_row *r = &simdops_qtype_rows[qt];
        store_int(qt, y, k, qlow_quantize_int(q, (float)(r->lo - zp), (float)(r->hi - zp), zp));
        return;
    }
    {
        qlow_format f = qlow_format_of(qt);
        if (qt == SIMDOPS_QT_f4e2m1) {
            if (p->has_zp)
                q = qlow_round_to(q + zpf, p->div == SIMDOPS_QR_BF16 ? SIMDOPS_QR_BF16 : SIMDOPS_QR_NONE);
            qlow_set_field((uint8_t *)y, k, 4, qlow_f32_to_fmt(q, &f, 1));
        } else {
            ((uint8_t *)y)[k] = (uint8_t)qlow_f32_to_fmt(q, &f, p->saturate);
        }
    }
}

/* ------------------------------------------------------------------ the kernels */
#define QLOW_SCALAR_KERNELS(qt, fs, qtag, ftag)                                                   \
    static void qtag##_dq_run_##ftag##__scalar(const void *x, size_t first, size_t n, void *y,   \
                                               const simdops_qlow_params *p)                     \
    {                                                                                             \
        for (size_t i = 0; i < n; i++)                                                            \
            qlow_store_float(fs, y, i, dq_one(qt, x, first + i, p->scale, p->zp_f));          \
    }                                                                                             \
    static void qtag##_dq_row_##ftag##__scalar(const void *x, size_t first, size_t n, void *y,   \
                                               const float *scale, const float *zp,              \
                                               const simdops_qlow_params *p)                     \
    {                                                                                             \
        (void)p;                                                                                  \
        for (size_t i = 0; i < n; i++)                                                            \
            qlow_store_float(fs, y, i, dq_one(qt, x, first + i, scale[i], zp ? zp[i] : 0.0f)); \
    }                                                                                             \
    static void qtag##_q_run_##ftag##__scalar(const void *x, size_t n, void *y, size_t first,    \
                                              const simdops_qlow_params *p)                      \
    {                                                                                             \
        for (size_t i = 0; i < n; i++)                                                            \
            q_one(qt, qlow_quotient(load_float(fs, x, i), p->scale, p), y, first + i, p->zp_f,   \
                  p->zero_point, p);                                                              \
    }                                                                                             \
    static void qtag##_q_row_##ftag##__scalar(const void *x, size_t n, void *y, size_t first,    \
                                              const float *scale, const float *zp,               \
                                              const simdops_qlow_params *p)                      \
    {                                                                                             \
        for (size_t i = 0; i < n; i++) {                                                          \
            float z = zp ? zp[i] : 0.0f;                                                          \
            q_one(qt, qlow_quotient(load_float(fs, x, i), scale[i], p), y, first + i, z,         \
                  (int32_t)z, p);                                                                 \
        }                                                                                         \
    }

#define QLOW_X_INSTANCES(qtag, ...)                                                               \
    QLOW_SCALAR_KERNELS(SIMDOPS_QT_##qtag, SIMDOPS_QF_F32, qtag, f32)                             \
    QLOW_SCALAR_KERNELS(SIMDOPS_QT_##qtag, SIMDOPS_QF_F16, qtag, f16)                             \
    QLOW_SCALAR_KERNELS(SIMDOPS_QT_##qtag, SIMDOPS_QF_BF16, qtag, bf16)
QLOW_QUANTIZED(QLOW_X_INSTANCES)

#define QLOW_X_SET(qtag, ...)                                                                     \
    QLOW_SET_ALL(t, qtag, f32, scalar) QLOW_SET_ALL(t, qtag, f16, scalar)                         \
    QLOW_SET_ALL(t, qtag, bf16, scalar)
int simdops_qlow_register__scalar(simdops_qlow_table *t)
{
    QLOW_QUANTIZED(QLOW_X_SET)
    return 1;
}
