/* The x86 floating-point control word (MXCSR) as kernels read it: a vector
 * step that rounds to nearest in the instruction (embedded rounding, or a
 * value made exact in double and rounded once by a conversion) gives the
 * scalar element's bits only while MXCSR's rounding control (bits 13-14) is
 * round to nearest, the scalar element following the caller's mode. (The
 * denormals-are-zero bit, SIMDOPS_MXCSR_DAZ, is in avx2_util.h.)
 * Include only in x86 translation units. */
#ifndef SIMDOPS_VEC_MXCSR_H
#define SIMDOPS_VEC_MXCSR_H

#include <xmmintrin.h>

#define SIMDOPS_MXCSR_RC 0x6000u /* rounding control: 0 = to nearest (even) */

/* True while the caller's MXCSR rounds to nearest, ties to even. */
static inline int simdops_mxcsr_round_nearest(void)
{
    return (_mm_getcsr() & SIMDOPS_MXCSR_RC) == 0;
}

#endif
