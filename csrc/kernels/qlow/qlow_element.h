/* One element of the low-bit QuantizeLinear / DequantizeLinear (qlow_abi.h
 * states the arithmetic): the float8 / float4 / bfloat16 conversions as
 * ml_dtypes rounds them, the packed loads and stores, and the quantize of one
 * quotient. The scalar kernels are loops over these, and every SIMD tier's
 * tail uses them, so a tail is the reference by construction. */
#ifndef SIMDOPS_QLOW_ELEMENT_H
#define SIMDOPS_QLOW_ELEMENT_H

#include <math.h>
#include <string.h>

#include "core/fp16.h"
#include "core/qlow_abi.h"

/* ------------------------------------------------------------------ bfloat16 */
static inline float qlow_bf16_to_f32(uint16_t h) { return simdops_f32_from_bits((uint32_t)h << 16); }

/* RNE; NaN -> 0x7fc0 | sign (ml_dtypes drops the payload) */
static inline uint16_t qlow_f32_to_bf16(float f)
{
    uint32_t u = simdops_f32_bits(f);
    if ((u & 0x7fffffffu) > 0x7f800000u)
        return (uint16_t)(((u >> 16) & 0x8000u) | 0x7fc0u);
    return (uint16_t)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

/* x rounded to the type of r (SIMDOPS_QR_*), as float32 */
static inline float qlow_round_to(float v, int r)
{
    if (r == SIMDOPS_QR_F16)
        return simdops_f16_to_f32(simdops_f32_to_f16(v));
    if (r == SIMDOPS_QR_BF16)
        return qlow_bf16_to_f32(qlow_f32_to_bf16(v));
    return v;
}

/* element i of a float32 / float16 / bfloat16 output (SIMDOPS_QF_*) set to v, rounded to it */
static inline void qlow_store_float(int fs, void *y, size_t i, float v)
{
    if (fs == SIMDOPS_QF_F32) {
        memcpy((char *)y + 4 * i, &v, 4);
    } else {
        uint16_t h = fs == SIMDOPS_QF_F16 ? simdops_f32_to_f16(v) : qlow_f32_to_bf16(v);
        memcpy((char *)y + 2 * i, &h, 2);
    }
}

/* ------------------------------------------------------------------ float8 / float4 formats
 * format: exponent bits, mantissa bits, bias, the largest finite encoding
 * (magnitude), and what overflow and NaN become. */
enum qlow_fkind { QLOW_IEEE = 0, QLOW_FN = 1, QLOW_FNUZ = 2, QLOW_NONAN = 3 };
typedef struct qlow_format {
    int ebits, mbits, bias, kind;
    uint32_t maxenc;  /* largest finite magnitude's encoding */
    uint32_t signbit; /* 0x80, or 0x8 for float4 */
} qlow_format;

static inline qlow_format qlow_format_of(int qt)
{
    qlow_format f;
    switch (qt) {
    case SIMDOPS_QT_e4m3fn: f.ebits = 4; f.mbits = 3; f.bias = 7; f.kind = QLOW_FN; f.maxenc = 0x7e; f.signbit = 0x80; break;
    case SIMDOPS_QT_e4m3fnuz: f.ebits = 4; f.mbits = 3; f.bias = 8; f.kind = QLOW_FNUZ; f.maxenc = 0x7f; f.signbit = 0x80; break;
    case SIMDOPS_QT_e5m2: f.ebits = 5; f.mbits = 2; f.bias = 15; f.kind = QLOW_IEEE; f.maxenc = 0x7b; f.signbit = 0x80; break;
    case SIMDOPS_QT_e5m2fnuz: f.ebits = 5; f.mbits = 2; f.bias = 16; f.kind = QLOW_FNUZ; f.maxenc = 0x7f; f.signbit = 0x80; break;
    default: /* float4e2m1 */ f.ebits = 2; f.mbits = 1; f.bias = 1; f.kind = QLOW_NONAN; f.maxenc = 0x7; f.signbit = 0x8; break;
    }
    return f;
}

/* float32 -> the format, RNE (ml_dtypes' cast; saturate: np.clip to +-max first) */
static inline uint32_t qlow_f32_to_fmt(float v, const qlow_format *f, int saturate)
{
    uint32_t u = simdops_f32_bits(v);
    uint32_t neg = u >> 31, sign = neg ? f->signbit : 0;
    uint32_t e32 = (u >> 23) & 0xffu, enc;
    uint64_t m;
    int e, emin = 1 - f->bias, shift;
    if (e32 == 0xff) {
        if (u & 0x7fffffu) { /* NaN */
            switch (f->kind) {
            case QLOW_IEEE: return sign | 0x7e;
            case QLOW_FN: return sign | 0x7f;
            case QLOW_FNUZ: return 0x80;
            default: return neg ? 0 : f->signbit; /* ml_dtypes: a zero of the other sign */
            }
        }
        enc = 0x7fffffffu; /* infinity: overflow below */
    } else if (e32 == 0) {
        enc = 0; /* float32 subnormals and zeros are far below every format's smallest */
    } else {
        m = (u & 0x7fffffu) | 0x800000u; /* value = m * 2^(e - 23) */
        e = (int)e32 - 127;
        if (e > 64) {
            enc = 0x7fffffffu;
        } else {
            shift = e >= emin ? 23 - f->mbits : 23 - f->mbits + (emin - e);
            if (shift > 40) {
                enc = 0;
            } else {
                uint64_t q = m >> shift, rem = m & ((1ull << shift) - 1), half = 1ull << (shift - 1);
                if (rem > half || (rem == half && (q & 1)))
                    q++;
                if (e >= emin) /* a carry to 2^(mbits+1) moves into the next exponent */
                    enc = (uint32_t)(((uint64_t)(e + f->bias) << f->mbits) + q - (1ull << f->mbits));
                else /* subnormal; q == 2^mbits is the smallest normal's encoding */
                    enc = (uint32_t)q;
            }
        }
    }
    if (enc > f->maxenc) {
        if (saturate || f->kind == QLOW_NONAN)
            enc = f->maxenc;
        else if (f->kind == QLOW_IEEE)
            enc = (0xffu >> (8 - f->ebits)) << f->mbits; /* infinity */
        else if (f->kind == QLOW_FN)
            enc = 0x7f; /* NaN */
        else
            return 0x80; /* fnuz NaN */
    }
    if (f->kind == QLOW_FNUZ && enc == 0)
        return 0; /* no negative zero */
    return sign | enc;
}

/* the format -> float32, exact; NaN -> 0x7fc00000 | sign */
static inline float qlow_fmt_to_f32(uint32_t c, const qlow_format *f)
{
    uint32_t nbits = 1 + f->ebits + f->mbits;
    uint32_t neg = (c >> (nbits - 1)) & 1u, mag = c & (f->signbit - 1);
    uint32_t ex = mag >> f->mbits, mt = mag & ((1u << f->mbits) - 1);
    float v;
    if (f->kind == QLOW_FNUZ && c == 0x80)
        return simdops_f32_from_bits(0xffc00000u);
    if (f->kind == QLOW_FN && mag == 0x7f)
        return simdops_f32_from_bits((neg << 31) | 0x7fc00000u);
    if (f->kind == QLOW_IEEE && ex == (1u << f->ebits) - 1)
        return simdops_f32_from_bits((neg << 31) | (mt ? 0x7fc00000u : 0x7f800000u));
    if (ex == 0)
        v = ldexpf((float)mt, 1 - f->bias - f->mbits);
    else
        v = ldexpf((float)(mt | (1u << f->mbits)), (int)ex - f->bias - f->mbits);
    return neg ? -v : v;
}

/* e8m0 scale: 2^(c - 127); 0xff NaN */
static inline float qlow_e8m0_to_f32(uint8_t c)
{
    if (c == 0xff)
        return simdops_f32_from_bits(0x7fc00000u);
    if (c == 0)
        return simdops_f32_from_bits(0x00400000u); /* 2^-127, a float32 subnormal */
    return simdops_f32_from_bits((uint32_t)c << 23);
}

/* ------------------------------------------------------------------ packed integers */
/* element k of a stream of `bits`-bit fields (4 or 2), low bits first, as its
 * unsigned field */
static inline uint32_t qlow_field(const uint8_t *b, size_t k, int bits)
{
    size_t per = (size_t)(8 / bits);
    return (uint32_t)(b[k / per] >> ((k % per) * (size_t)bits)) & ((1u << bits) - 1);
}

static inline void qlow_set_field(uint8_t *b, size_t k, int bits, uint32_t v)
{
    size_t per = (size_t)(8 / bits), sh = (k % per) * (size_t)bits;
    uint32_t mask = ((1u << bits) - 1) << sh;
    b[k / per] = (uint8_t)((b[k / per] & ~mask) | ((v << sh) & mask));
}

static inline int32_t qlow_sext(uint32_t v, int bits) { return (int32_t)(v ^ (1u << (bits - 1))) - (1 << (bits - 1)); }

/* ------------------------------------------------------------------ quantize of one quotient */
/* integer types: clamp to [lo - zp, hi - zp] (NaN -> lo - zp; both exact in
 * float32), round half to even, + zp */
static inline int32_t qlow_quantize_int(float q, float qlo, float qhi, int32_t zp)
{
    float r, diff;
    if (!(q >= qlo))
        q = qlo;
    if (q > qhi)
        q = qhi;
    r = floorf(q);
    diff = q - r; /* exact: |q| < 2^17 */
    if (diff > 0.5f || (diff == 0.5f && fmodf(r, 2.0f) != 0.0f))
        r += 1.0f;
    return (int32_t)r + zp;
}

/* the quotient of one element: x (as float32) / scale in the call's precision */
static inline float qlow_quotient(float x, float scale, const simdops_qlow_params *p)
{
    return qlow_round_to(qlow_round_to(x, p->pre) / scale, p->div);
}

#endif
