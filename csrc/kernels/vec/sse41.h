/* The vector vocabulary of vec_map.h for SSE4.1: sse2.h with the native
 * pminsb/pminuw/pminud/pminsd in place of SSE2's emulations. Its kind lists
 * name only those four kinds: for the rest SSE4.1 would compile the same
 * instructions as SSE2, so the tier inherits SSE2's kernels. Include only
 * inside #if SIMDOPS_COMPILE_SSE41. */
#ifndef SIMDOPS_VEC_SSE41_H
#define SIMDOPS_VEC_SSE41_H

#define VEC_SSE41 1
#include "kernels/vec/sse2.h"

#undef VEC_MINMAX_KINDS
#undef VEC_FLOAT_KINDS
#define VEC_MINMAX_KINDS(X, a) X(i8, a) X(u16, a) X(u32, a) X(i32, a)
#define VEC_FLOAT_KINDS(X, a)

#endif
