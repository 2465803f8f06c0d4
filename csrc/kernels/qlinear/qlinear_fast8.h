/* Which quantize kernels of an x86 tier start with the tier's 8-bit fast loop:
 * FAST_<x>_<out>(x, y, n, p) returns how many elements it did (a multiple of its
 * step), the rest going through the tier's ordinary loop. The including file
 * defines q8_steps(x, y, n, p, is_signed) first (float32 x, 8-bit outputs);
 * float16 x and 16-bit outputs have no fast loop. Include inside the tier's
 * SIMDOPS_COMPILE_<ISA> block. */
#ifndef SIMDOPS_QLINEAR_FAST8_H
#define SIMDOPS_QLINEAR_FAST8_H

#include <stddef.h>

static inline size_t fast_none(void) { return 0; }

/* the steps FAST takes before the 16-lane loop: 8-bit outputs of float32 x */
#define FAST_f32_u8(x, y, n, p) q8_steps(x, y, n, p, 0)
#define FAST_f32_i8(x, y, n, p) q8_steps(x, y, n, p, 1)
#define FAST_f32_u16(x, y, n, p) fast_none()
#define FAST_f32_i16(x, y, n, p) fast_none()
#define FAST_f16_u8(x, y, n, p) fast_none()
#define FAST_f16_i8(x, y, n, p) fast_none()
#define FAST_f16_u16(x, y, n, p) fast_none()
#define FAST_f16_i16(x, y, n, p) fast_none()

#endif
