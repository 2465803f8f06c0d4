/* AVX-512 (F+BW+VL+DQ, with AVX2 and F16C) clip kernels, bit-exact with
 * clip_scalar.c: the shared body (clip_body.h) over 64-byte vectors, opmask
 * blends and masked tails (vec/avx512.h). Entries left NULL inherit avx2's:
 * ScaleBias of integers, and float16, whose opmask form (sign to mask, masked
 * negate, two compares, two masked moves) ran at 0.77-0.81 of avx2's blend
 * form in four interleaved runs at 64K and 1M on this Zen 4 core. */
#include "kernels/registry.h"
#include "kernels/vec/isa.h"

#if SIMDOPS_COMPILE_AVX512
#define SIMDOPS_TIER avx512
#include "kernels/vec/avx512.h"
#include "kernels/clip/clip_body.h"

SIMDOPS_DEFINE_REGISTER(clip, CLIP_BODY_KERNELS)
#else
SIMDOPS_TIER_NOT_COMPILED(clip, avx512)
#endif
