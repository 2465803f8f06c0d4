/* The table entries of an x86 tier's low-bit hot paths over its dq4 / q4 /
 * q8f / dq8f (qlow_avx2.c, qlow_avx512.c define them, then SIMDOPS_QLOW_X86_TIER,
 * then include this): int4 / uint4 dequantize (run and row) to float32,
 * float16, bfloat16; their quantize from float32; float8 e4m3fn / e5m2
 * quantize from and dequantize to float32 (run and row). */
#define QX_CAT_(a, b) a##__##b
#define QX_CAT(a, b) QX_CAT_(a, b)
#define QX_NAME(n) QX_CAT(n, SIMDOPS_QLOW_X86_TIER)

#define QX_DQ4(qtag, sgn, ftag, FS)                                                                          \
    static void QX_NAME(qtag##_dq_run_##ftag)(const void *x, size_t first, size_t n, void *y,               \
                                              const simdops_qlow_params *p)                                 \
    {                                                                                                        \
        dq4(x, first, n, y, FS, sgn, p->scale, p->zp_f, NULL, NULL);                                        \
    }                                                                                                        \
    static void QX_NAME(qtag##_dq_row_##ftag)(const void *x, size_t first, size_t n, void *y,               \
                                              const float *scale, const float *zp, const simdops_qlow_params *p) \
    {                                                                                                        \
        (void)p;                                                                                             \
        dq4(x, first, n, y, FS, sgn, 0.0f, 0.0f, scale, zp);                                                \
    }
#define QX_DQ4_ALL(qtag, sgn) \
    QX_DQ4(qtag, sgn, f32, SIMDOPS_QF_F32) QX_DQ4(qtag, sgn, f16, SIMDOPS_QF_F16) QX_DQ4(qtag, sgn, bf16, SIMDOPS_QF_BF16)
QX_DQ4_ALL(i4, 1)
QX_DQ4_ALL(u4, 0)

#define QX_Q4(qtag, sgn)                                                                                     \
    static void QX_NAME(qtag##_q_run_f32)(const void *x, size_t n, void *y, size_t first,                  \
                                          const simdops_qlow_params *p)                                     \
    {                                                                                                        \
        q4((const float *)x, n, y, first, sgn, p->scale, p->zero_point, NULL, NULL, p);                     \
    }                                                                                                        \
    static void QX_NAME(qtag##_q_row_f32)(const void *x, size_t n, void *y, size_t first,                  \
                                          const float *scale, const float *zp, const simdops_qlow_params *p) \
    {                                                                                                        \
        q4((const float *)x, n, y, first, sgn, 0.0f, 0, scale, zp, p);                                      \
    }
QX_Q4(i4, 1)
QX_Q4(u4, 0)

#define QX_F8(qtag)                                                                                          \
    static void QX_NAME(qtag##_q_run_f32)(const void *x, size_t n, void *y, size_t first,                  \
                                          const simdops_qlow_params *p)                                     \
    {                                                                                                        \
        q8f((const float *)x, n, (uint8_t *)y + first, SIMDOPS_QT_##qtag, NULL, p);                         \
    }                                                                                                        \
    static void QX_NAME(qtag##_q_row_f32)(const void *x, size_t n, void *y, size_t first,                  \
                                          const float *scale, const float *zp, const simdops_qlow_params *p) \
    {                                                                                                        \
        (void)zp;                                                                                            \
        q8f((const float *)x, n, (uint8_t *)y + first, SIMDOPS_QT_##qtag, scale, p);                        \
    }                                                                                                        \
    static void QX_NAME(qtag##_dq_run_f32)(const void *x, size_t first, size_t n, void *y,                 \
                                           const simdops_qlow_params *p)                                    \
    {                                                                                                        \
        dq8f((const uint8_t *)x + first, n, (float *)y, SIMDOPS_QT_##qtag, p->scale, NULL);                 \
    }                                                                                                        \
    static void QX_NAME(qtag##_dq_row_f32)(const void *x, size_t first, size_t n, void *y,                 \
                                           const float *scale, const float *zp, const simdops_qlow_params *p) \
    {                                                                                                        \
        (void)zp;                                                                                            \
        (void)p;                                                                                             \
        dq8f((const uint8_t *)x + first, n, (float *)y, SIMDOPS_QT_##qtag, 0.0f, scale);                    \
    }
QX_F8(e4m3fn)
QX_F8(e5m2)

#define QX_REGISTER_(tier)                                                                                   \
    int simdops_qlow_register__##tier(simdops_qlow_table *t)                                                 \
    {                                                                                                        \
        QLOW_SET(t, dq_run, i4, f32, tier) QLOW_SET(t, dq_run, i4, f16, tier) QLOW_SET(t, dq_run, i4, bf16, tier)                             \
        QLOW_SET(t, dq_row, i4, f32, tier) QLOW_SET(t, dq_row, i4, f16, tier) QLOW_SET(t, dq_row, i4, bf16, tier)                             \
        QLOW_SET(t, dq_run, u4, f32, tier) QLOW_SET(t, dq_run, u4, f16, tier) QLOW_SET(t, dq_run, u4, bf16, tier)                             \
        QLOW_SET(t, dq_row, u4, f32, tier) QLOW_SET(t, dq_row, u4, f16, tier) QLOW_SET(t, dq_row, u4, bf16, tier)                             \
        QLOW_SET(t, q_run, i4, f32, tier) QLOW_SET(t, q_row, i4, f32, tier) QLOW_SET(t, q_run, u4, f32, tier) QLOW_SET(t, q_row, u4, f32, tier)          \
        QLOW_SET(t, q_run, e4m3fn, f32, tier) QLOW_SET(t, q_row, e4m3fn, f32, tier) QLOW_SET(t, dq_run, e4m3fn, f32, tier)                    \
        QLOW_SET(t, dq_row, e4m3fn, f32, tier) QLOW_SET(t, q_run, e5m2, f32, tier) QLOW_SET(t, q_row, e5m2, f32, tier)                        \
        QLOW_SET(t, dq_run, e5m2, f32, tier) QLOW_SET(t, dq_row, e5m2, f32, tier)                                                  \
        return 1;                                                                                            \
    }
#define QX_REGISTER(tier) QX_REGISTER_(tier)
QX_REGISTER(SIMDOPS_QLOW_X86_TIER)
