/* requantize_fp32's memo of the last prepared chain (_core_requant.pyx includes it; static:
 * one translation unit, _core.c). */
#ifndef SIMDOPS_PY_REQUANT_MEMO_H
#define SIMDOPS_PY_REQUANT_MEMO_H

#include "simdops/simdops.h"

/* This thread's last prepared requantize_fp32 chain and what it was prepared from: a
 * model calls a layer with the same chain again and again, and the chain's prepare
 * (validation, the steps' float32 roundings, oneDNN's fold) was ~75 ns of a call (perf
 * samples, 256-element per-channel calls), ~3% of a 64K-element one. The key is every input of simdops_prepare_requant_fp_chain (out
 * type, scale's bits, zero point, the bounds given or not, mode, the chain's bytes,
 * which the caller zeroes first) and the floating-point environment its roundings
 * happen in (_memo_common.h: MXCSR without its sticky flags on x86, elsewhere the rounding
 * mode), as _core_qbinary.pyx's memo keys its handle: a hit is exactly
 * the handle C would return. A refused chain is not remembered (it prepares again and
 * raises the same error). Built and compared as 8-byte words (a key of 4-byte stores
 * read with 8-byte loads stalls store forwarding). */
#include <stdint.h>
#include <string.h>

#include "_memo_common.h"
#define SIMDOPS_PY_RQ_KEY_WORDS (7 + (sizeof(simdops_requant_fp_chain) + 7) / 8)
typedef struct simdops_py_rq_memo {
    int valid;
    uint64_t key[SIMDOPS_PY_RQ_KEY_WORDS];
    simdops_prepared prep;
} simdops_py_rq_memo;
static SIMDOPS_PY_TLS simdops_py_rq_memo simdops_py_rq_last;

static int simdops_py_prepare_requant_fp_chain(simdops_dtype out_dtype, double scale,
                                               int64_t zero_point, const int64_t *min,
                                               const int64_t *max, int mode,
                                               const simdops_requant_fp_chain *chain,
                                               simdops_prepared *p, simdops_error *err)
{
    simdops_py_rq_memo *m = &simdops_py_rq_last;
    uint64_t key[SIMDOPS_PY_RQ_KEY_WORDS], diff = 0;
    int s;
    key[0] = (uint64_t)(uint32_t)out_dtype | (uint64_t)(uint32_t)mode << 32;
    memcpy(&key[1], &scale, 8);
    key[2] = (uint64_t)zero_point;
    key[3] = (uint64_t)(min != NULL) | (uint64_t)(max != NULL) << 1;
    key[4] = min ? (uint64_t)*min : 0;
    key[5] = max ? (uint64_t)*max : 0;
    key[6] = (uint64_t)simdops_py_fp_env();
    key[SIMDOPS_PY_RQ_KEY_WORDS - 1] = 0; /* a chain of whole words: a no-op */
    memcpy(&key[7], chain, sizeof(*chain)); /* four ints, four doubles: no padding */
    for (size_t k = 0; k < SIMDOPS_PY_RQ_KEY_WORDS; k++)
        diff |= key[k] ^ m->key[k];
    if (m->valid && !diff) {
        *p = m->prep;
        return 0;
    }
    s = simdops_prepare_requant_fp_chain(out_dtype, scale, zero_point, min, max, mode, chain,
                                         p, err);
    if (s == 0) {
        memcpy(m->key, key, sizeof(key));
        m->prep = *p;
        m->valid = 1;
    }
    return s;
}

#endif
