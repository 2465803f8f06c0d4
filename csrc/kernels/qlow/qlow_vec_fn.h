/* The wrapper shapes of the qlow_body.h vocabulary headers (qlow_vec_x86.h,
 * qlow_vec_neon.h): a vocabulary word that is one intrinsic. */
#ifndef SIMDOPS_QLOW_VEC_FN_H
#define SIMDOPS_QLOW_VEC_FN_H
#define QV_FN1(R, name, T, fn) static inline R name(T a) { return fn(a); }
#define QV_FN2(T, name, fn) static inline T name(T a, T b) { return fn(a, b); }
#endif
