/* Integer shrink's type list (every tier's) and clamp forms, the latter shared by
 * the avx2 and avx512 kernels (and the scalar loop they fall back to): y = gt ?
 * clamp(x, sub_lo, sub_hi) - B : lt ? clamp(x, add_lo, add_hi) + B : 0, wrapping.
 * With params.c's bounds only one side of each clamp can bind (B >= 0: sub's lower
 * and add's upper; B < 0: the other two), so a kernel picks the form at entry;
 * CLAMP_BOTH is min then max, the scalar's nested test when lo <= hi. Empty ranges
 * (never made by params.c) take the scalar loop (SHRINK_INT_EMPTY). lt = 0 when
 * x < neg_thr cannot hold (neg_thr is the type's minimum, as for every unsigned
 * shrink).
 * CLAMP_NONE: B >= 0 with sub_lo <= thr + 1 and add_hi >= neg_thr - 1, i.e.
 * B <= thr + 1 unsigned, B <= thr + max + 1 signed (softshrink's B = thr and
 * hardshrink's B = 0 among them). A lane whose subtraction is kept has
 * x > thr, so x >= thr + 1 >= sub_lo and sub_hi is the type's maximum: its
 * clamp is x itself; a lane whose addition is kept has x <= neg_thr - 1 <=
 * add_hi and add_lo the minimum: the same. Lanes of the other branch are
 * discarded by the masks, so no clamp is computed at all.
 * SHRINK_NONE_SLACK (1: the proof's) is the harness's mutant: 2 lets x = thr + 1
 * (and neg_thr - 1) wrap instead of saturating, which test_elementwise.c's
 * binding-clamp sweep catches (bash csrc/tests/build.sh OUT -DSHRINK_NONE_SLACK=2). */
#ifndef SIMDOPS_SHRINK_INT_FORM_H
#define SIMDOPS_SHRINK_INT_FORM_H

#include <stdint.h>

#ifndef SHRINK_NONE_SLACK
#define SHRINK_NONE_SLACK 1
#endif

/* The integer shrink types, in registration order: every tier's kernels and register list
 * expand this one list (here, beside the form they share), so a type added or dropped
 * changes every tier at once. Y(C, tag, T, UT, tmin, tmax, esize): tag is the parameters'
 * union field and the kernel name's prefix, UT the type the +-B wraps in, tmin..tmax its
 * range, esize its bytes; C passes through (a register list's X). */
#define SHRINK_INT_TYPES(Y, C)                                                         \
    Y(C, u8, uint8_t, uint8_t, 0, UINT8_MAX, 1)                                        \
    Y(C, i8, int8_t, uint8_t, INT8_MIN, INT8_MAX, 1)                                   \
    Y(C, u16, uint16_t, uint16_t, 0, UINT16_MAX, 2)                                    \
    Y(C, i16, int16_t, uint16_t, INT16_MIN, INT16_MAX, 2)                              \
    Y(C, u32, uint32_t, uint32_t, 0, UINT32_MAX, 4)                                    \
    Y(C, i32, int32_t, uint32_t, INT32_MIN, INT32_MAX, 4)
/* a register list's entries: SHRINK_INT_TYPES(SHRINK_INT_ENTRY, X) */
#define SHRINK_INT_ENTRY(X, tag, T, UT, tmin, tmax, esize) X(shrink, tag)

enum { CLAMP_BOTH = 0, CLAMP_POS = 1, CLAMP_NEG = 2, CLAMP_NONE = 3, SHRINK_INT_EMPTY = 4 };

/* the form of one call's parameters (as int64: every shrink type up to 32 bits fits) */
static inline int shrink_int_form(int64_t thr, int64_t neg_thr, int64_t sub_lo, int64_t sub_hi,
                                  int64_t add_lo, int64_t add_hi, int64_t tmin, int64_t tmax)
{
    if (sub_lo > sub_hi || add_lo > add_hi)
        return SHRINK_INT_EMPTY;
    if (sub_hi == tmax && add_lo == tmin)
        return sub_lo <= thr + SHRINK_NONE_SLACK && add_hi >= neg_thr - SHRINK_NONE_SLACK
                   ? CLAMP_NONE
                   : CLAMP_POS;
    if (sub_lo == tmin && add_hi == tmax)
        return CLAMP_NEG;
    return CLAMP_BOTH;
}

/* The scalar reference's loop, for parameters whose clamp ranges are empty (x, y, n
 * and p are the kernel's arguments). */
#define SHRINK_INT_SCALAR(T, UT, field)                                                \
    do {                                                                               \
        const T *xs = (const T *)x;                                                    \
        T *ys = (T *)y;                                                                \
        for (size_t i = 0; i < n; i++) {                                               \
            T v = xs[i];                                                               \
            if (v > p->thr.field) {                                                    \
                v = v < p->sub_lo.field ? p->sub_lo.field                              \
                                        : (v > p->sub_hi.field ? p->sub_hi.field : v); \
                ys[i] = (T)(UT)((UT)v - (UT)p->bias.field);                            \
            } else if (v < p->neg_thr.field) {                                         \
                v = v < p->add_lo.field ? p->add_lo.field                              \
                                        : (v > p->add_hi.field ? p->add_hi.field : v); \
                ys[i] = (T)(UT)((UT)v + (UT)p->bias.field);                            \
            } else {                                                                   \
                ys[i] = 0;                                                             \
            }                                                                          \
        }                                                                              \
    } while (0)

/* shrink_int_form of a kernel's parameters p, type T with limits tmin..tmax */
#define SHRINK_INT_FORM_OF(p, field, tmin, tmax)                                                \
    shrink_int_form((int64_t)(p)->thr.field, (int64_t)(p)->neg_thr.field,                      \
                    (int64_t)(p)->sub_lo.field, (int64_t)(p)->sub_hi.field,                    \
                    (int64_t)(p)->add_lo.field, (int64_t)(p)->add_hi.field, (int64_t)(tmin),   \
                    (int64_t)(tmax))

/* One integer kernel of a tier: the form picked at entry, the constants set up in the
 * tier's constants struct CT (fields thr, neg_thr, b, sub_lo, sub_hi, add_lo, add_hi:
 * vectors of set1) and one loop per clamp form and negative branch through the tier's
 * MAP(x, y, bytes, esize, fn, &c, form, has_neg) (form and has_neg constants for the
 * vector function fn, so each compiles to its own loop). Written once for avx2 and
 * avx512, whose kernels differ only in CT, MAP and fn. */
#define SHRINK_INT_MAP_FORMS(MAP, fn, esize, has_neg)                                  \
    do {                                                                               \
        if (form == CLAMP_NONE)                                                        \
            MAP(x, y, n * (esize), esize, fn, &c, CLAMP_NONE, has_neg);                \
        else if (form == CLAMP_POS)                                                    \
            MAP(x, y, n * (esize), esize, fn, &c, CLAMP_POS, has_neg);                 \
        else if (form == CLAMP_NEG)                                                    \
            MAP(x, y, n * (esize), esize, fn, &c, CLAMP_NEG, has_neg);                 \
        else                                                                           \
            MAP(x, y, n * (esize), esize, fn, &c, CLAMP_BOTH, has_neg);                \
    } while (0)

#define SHRINK_INT_TIER_KERNEL(CT, MAP, name, fn, T, UT, field, tmin, tmax, esize, set1, ST) \
    static void name(const void *x, void *y, size_t n, const simdops_shrink_params *p)   \
    {                                                                                    \
        CT c;                                                                            \
        const int form = SHRINK_INT_FORM_OF(p, field, tmin, tmax);                       \
        if (form == SHRINK_INT_EMPTY) {                                                  \
            SHRINK_INT_SCALAR(T, UT, field);                                             \
            return;                                                                      \
        }                                                                                \
        c.thr = set1((ST)p->thr.field);                                                  \
        c.neg_thr = set1((ST)p->neg_thr.field);                                          \
        c.b = set1((ST)p->bias.field);                                                   \
        c.sub_lo = set1((ST)p->sub_lo.field);                                            \
        c.sub_hi = set1((ST)p->sub_hi.field);                                            \
        c.add_lo = set1((ST)p->add_lo.field);                                            \
        c.add_hi = set1((ST)p->add_hi.field);                                            \
        if (p->neg_thr.field != (tmin))                                                  \
            SHRINK_INT_MAP_FORMS(MAP, fn, esize, 1);                                     \
        else                                                                             \
            SHRINK_INT_MAP_FORMS(MAP, fn, esize, 0);                                     \
    }

/* Every row of SHRINK_INT_TYPES as a kernel of the tier that defines SHRINK_INT_CT (its
 * constants struct) and SHRINK_INT_MAP (its map) and expands
 * SHRINK_INT_TYPES(SHRINK_INT_TIER_ROW, P), P its intrinsics' prefix (_mm256, _mm512):
 * SHRINK_INT_TIER_KERNEL with the vector function tag##_shrink_v and P##_set1_epi8 / 16 / 32,
 * whose lanes are char / short / int. Here, so the list's columns are read in one place. */
#define SHRINK_INT_TIER_ROW(P, tag, T, UT, tmin, tmax, esize)                                \
    SHRINK_INT_TIER_KERNEL(SHRINK_INT_CT, SHRINK_INT_MAP, SIMDOPS_KERNEL_NAME(tag, shrink),  \
                           tag##_shrink_v, T, UT, tag, tmin, tmax, esize,                    \
                           SHRINK_SET1_##esize(P), SHRINK_LANE_##esize)
#define SHRINK_SET1_1(P) P##_set1_epi8
#define SHRINK_SET1_2(P) P##_set1_epi16
#define SHRINK_SET1_4(P) P##_set1_epi32
#define SHRINK_LANE_1 char
#define SHRINK_LANE_2 short
#define SHRINK_LANE_4 int

#endif
