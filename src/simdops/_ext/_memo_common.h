/* What the per-thread memos of prepared parameters share (the ufunc loops' in
 * _ufunc_memo.h; the last handle of the quantized binary ops in _core_qbinary.pyx and of
 * requantize_fp32's chain in _core_requant_memo.h): the storage class that makes a memo
 * per thread (no lock: a thread only reads and writes its own), and the floating-point
 * environment a preparation depends on. C converts a Python float parameter to float32 and derives
 * scale ratios in the current environment, so a handle prepared under one rounding mode is
 * not the handle of another: each memo keys on this value beside the parameters' bytes.
 *
 * On x86 with SSE it is MXCSR less its six sticky status flags: the rounding mode,
 * flush-to-zero and denormals-are-zero (a conversion's rounding and a subnormal result);
 * one stmxcsr, a few cycles. Elsewhere the C rounding mode (fegetround): aarch64's FPCR
 * flush-to-zero is not set by CPython or numpy, and fegetround is what C guarantees. */
#ifndef SIMDOPS_PY_MEMO_COMMON_H
#define SIMDOPS_PY_MEMO_COMMON_H

#if defined(_MSC_VER)
#define SIMDOPS_PY_TLS __declspec(thread)
#elif defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
#define SIMDOPS_PY_TLS _Thread_local
#else
#define SIMDOPS_PY_TLS __thread
#endif

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
