/* ONNX Runtime's add on x86 tiers without FMA: fmaf(x, r, z) for an 8-bit
 * integer x and floats r, z as RN_f(x * r + z) computed in double: x * r (at
 * most 8 + 24 significant bits) is exact in double, and so is the sum when
 * every nonzero value it can take spans at most 53 bits: qb_ort_double_exact
 * proves that from the parameters, for both steps (t = fmaf(b, rb, fixed),
 * then fmaf(a, ra, t)). The one rounding left is the conversion to float
 * (MXCSR's: the vectors run only while it rounds to nearest), i.e. fmaf's.
 * Otherwise the scalar element runs. x86 tiers only. */
#ifndef SIMDOPS_QBINARY_ORT_DOUBLE_H
#define SIMDOPS_QBINARY_ORT_DOUBLE_H

#include <math.h>

#include "kernels/registry.h"
#include "kernels/vec/mxcsr.h"

static inline int qb_ort_double_exact(const simdops_qbinary_params *p)
{
    const double ra = p->ratio_a, rb = p->ratio_b, z = fabs((double)p->fixed);
    int lsb, top;
    if (!simdops_mxcsr_round_nearest())
        return 0;
    /* ratios and fixed normal floats (a multiple of 2^(exponent - 23) each) */
    if (!(ra >= 0x1p-126 && ra <= 0x1p100 && rb >= 0x1p-126 && rb <= 0x1p100 &&
          (z == 0.0 || (z >= 0x1p-126 && z <= 0x1p100))))
        return 0;
    /* every product and sum (and t, the float the first step rounds to) is a
     * multiple of 2^lsb ... */
    lsb = ilogb(ra) < ilogb(rb) ? ilogb(ra) : ilogb(rb);
    if (z != 0.0 && ilogb(z) < lsb)
        lsb = ilogb(z);
    lsb -= 23;
    /* ... below 2^top in magnitude: |x| <= 255, |t| <= |b * rb + fixed| (1 + 2^-24) */
    top = ilogb((256.0 * ra + 256.0 * rb + z) * 1.001) + 1;
    return top - lsb <= 53;
}

#endif
