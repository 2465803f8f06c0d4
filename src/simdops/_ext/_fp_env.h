/* The floating-point environment a memoized preparation depends on, for the two memos of
 * prepared parameters (the ufunc loops' in _ufunc_memo.h, the quantized binary ops' last
 * handle in _core_qbinary.pyx). C converts a Python float parameter to float32 and derives
 * scale ratios in the current environment, so a handle prepared under one rounding mode is
 * not the handle of another: each memo keys on this value beside the parameters' bytes.
 *
 * On x86 with SSE it is MXCSR less its six sticky status flags: the rounding mode,
 * flush-to-zero and denormals-are-zero (a conversion's rounding and a subnormal result);
 * one stmxcsr, a few cycles. Elsewhere the C rounding mode (fegetround): aarch64's FPCR
 * flush-to-zero is not set by CPython or numpy, and fegetround is what C guarantees. */
#ifndef SIMDOPS_PY_FP_ENV_H
#define SIMDOPS_PY_FP_ENV_H

#if defined(__SSE2__) || defined(_M_X64) || (defined(_M_IX86_FP) && _M_IX86_FP >= 2)
#include <xmmintrin.h>
#define SIMDOPS_PY_HAVE_MXCSR 1
#else
#include <fenv.h>
#endif

static inline unsigned simdops_py_fp_env(void)
{
#if defined(SIMDOPS_PY_HAVE_MXCSR)
    return _mm_getcsr() & ~0x3Fu;
#else
    return (unsigned)fegetround();
#endif
}

#endif
