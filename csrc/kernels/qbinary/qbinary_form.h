/* The broadcast-form loop of every quantized binary kernel: the form says
 * where a and b are read (both vectors, or a / b one element, read once); the
 * tier's vector rows run first and say how many elements they did, the
 * element of qbinary_element.h does the rest (all of a scalar row), so a tail
 * is the reference by construction.
 * QB_FORM_KERNEL(entry, tag, T, ONE, ROWS): ROWS(a, b, y, n, form, p) returns
 * the elements done; QB_NO_ROWS does none. */
#ifndef SIMDOPS_QBINARY_FORM_H
#define SIMDOPS_QBINARY_FORM_H

#define QB_NO_ROWS(a, b, y, n, form, p) ((size_t)0)

#define QB_FORM_KERNEL(entry, tag, T, ONE, ROWS)                                                   \
    static void SIMDOPS_KERNEL_NAME(tag, entry)(const void *av, const void *bv, void *yv,         \
                                                size_t n, int form,                               \
                                                const simdops_qbinary_params *p)                  \
    {                                                                                              \
        const T *a = (const T *)av;                                                                \
        const T *b = (const T *)bv;                                                                \
        T *y = (T *)yv;                                                                            \
        size_t i = ROWS(a, b, y, n, form, p);                                                      \
        if (form == SIMDOPS_QB_SV) {                                                               \
            const int32_t a0 = a[0];                                                               \
            for (; i < n; i++)                                                                     \
                y[i] = (T)ONE(a0, (int32_t)b[i], p);                                               \
        } else if (form == SIMDOPS_QB_VS) {                                                        \
            const int32_t b0 = b[0];                                                               \
            for (; i < n; i++)                                                                     \
                y[i] = (T)ONE((int32_t)a[i], b0, p);                                               \
        } else {                                                                                   \
            for (; i < n; i++)                                                                     \
                y[i] = (T)ONE((int32_t)a[i], (int32_t)b[i], p);                                    \
        }                                                                                          \
    }

#endif
