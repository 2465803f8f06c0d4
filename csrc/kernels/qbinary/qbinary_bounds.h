/* Whether a quantized binary call's output bounds are its 8-bit type's own range
 * ([-128, 127] for int8, [0, 255] for uint8). Then the saturating packs that narrow the
 * rows' int32 / int16 lanes to the type clamp already, and a row may leave its min / max
 * out: every row body and plan of the 8-bit kinds asks this one question here. Portable
 * C (the plans are derived without intrinsics). */
#ifndef SIMDOPS_QBINARY_BOUNDS_H
#define SIMDOPS_QBINARY_BOUNDS_H

#include "core/kernel_abi.h"

static inline int qb_bounds_are_type(const simdops_qbinary_params *p, int is_u8)
{
    return is_u8 ? p->lo <= 0 && p->hi >= 255 : p->lo <= -128 && p->hi >= 127;
}

#endif
