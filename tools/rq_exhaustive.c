/* Exhaustive check of the per-tensor double-rounding, ties-up
 * (rounding="double_ties_up") and single-rounding (rounding="single",
 * "single_away") requant kernels: every int32 input (or a few
 * 2^24 slices of them) for a few parameter sets, through each ISA tier's
 * kernel, against the scalar formula (simdops_requant_one, the scalar
 * kernel's; ties-up: rqf_ties_up; single: rqf_single, rqf_single_away, with
 * the set's pair read as (M, shift), t = 31 + shift). Each set names the
 * families it runs for. The sets cover the float32 fast
 * path of the AVX2/AVX-512 tiers (csrc/kernels/requant/rq_fast_x86.h): the
 * benchmark's scale, whole-range-unclamped shifts (every fraction, every exact
 * tie), i16 outputs with the widest window, and a set outside the path.
 * Sets in the fast path's domain run per channel too (16 channels around the
 * set's pair, the per-channel kernel with the driver's arrays: AVX-512's
 * per-channel fast path). Also prints the share of 16-lane vectors the fast path sends back to the
 * integer rule, from a scalar model of its test.
 * Calls are pieces of CALL elements (every piece starts unclamped on AVX-512).
 * Build: bash tools/cbench.sh OUT (builds it too).
 * Run: OUT/rq_exhaustive [slices=0: all 256 | k: slices -1, 0, 127, 128 and k-4 more] [isa...]
 * RQ_EXHAUSTIVE_SETS=0,3 (environment) runs only those sets (for splitting a full run),
 * RQ_EXHAUSTIVE_FAMILY=double,ties (any of double, ties, single, away) only those families.
 * Exit status 1 on any mismatch. OUT/rq_exhaustive rates: the modelled share of
 * vectors sent to the integer rule on the benchmark's data (uniform in
 * +-150,000) over random scales and zero points, for each family. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "simdops/simdops.h"
#include "core/fixedpoint.h"
#include "core/kernel_abi.h"
#include "dispatch/dispatch.h"
#include "kernels/registry.h"
#include "kernels/requant/requant_families.h"
#include "kernels/requant/rq_fast_params.h"
#include "driver/requant_channels.h"

/* CALL: the kernels are called on pieces of a chunk, so that every piece starts
 * on AVX-512's unclamped float path (a call switches to the clamp for its rest
 * after a block with a value out of range; a whole chunk would be clamped from
 * its first saturating block on) */
enum { CHUNK = 1 << 20, SLICE = 1 << 24, CALL = 256 };

/* the families, a set's fams holding 1 << family for each it runs */
enum { F_DOUBLE, F_TIES, F_SINGLE, F_AWAY, F_COUNT };
static const char *const FAMILY_NAME[F_COUNT] = {"double", "ties", "single", "away"};
static const char *const FAMILY_PREFIX[F_COUNT] = {"", "ties-up ", "single ", "single away "};
#define F_DT ((1 << F_DOUBLE) | (1 << F_TIES))
#define F_ALL (F_DT | (1 << F_SINGLE) | (1 << F_AWAY))

typedef struct pset {
    const char *name;
    int32_t mult, rshift, offset, lo, hi;
    int out;
    int fams;
} pset;

static const pset SETS[] = {
    {"bench 1/1000 u8", 1099511628, 9, 100, 0, 255, SIMDOPS_RQ_U8, F_ALL},
    {"rqbench 1.024/1000 u8", 1125899907, 9, 100, 0, 255, SIMDOPS_RQ_U8, 1 << F_DOUBLE},
    {"bench pc-like u8 [10,245]", 1407374884, 10, 100, 10, 245, SIMDOPS_RQ_U8, 1 << F_DOUBLE},
    {"2^-23 i16 (all unclamped)", INT32_MAX, 23, -5, -32768, 32767, SIMDOPS_RQ_I16, F_DT},
    {"2^-17 i16 exact ties", 1 << 30, 16, 0, -32768, 32767, SIMDOPS_RQ_I16, F_ALL},
    {"sqrt(1/2)/256 i16 [-1000,30000]", 1518500250, 8, 3, -1000, 30000, SIMDOPS_RQ_I16, 1 << F_DOUBLE},
    {"e=1 i8", (1 << 30) + 12345, 1, -7, -128, 127, SIMDOPS_RQ_I8, F_ALL},
    {"e=20 u8 zp 128", 1999999999, 20, 128, 0, 255, SIMDOPS_RQ_U8, 1 << F_DOUBLE},
    {"left shift (integer kernel) i8", 1288490189, 0, 1, -100, 100, SIMDOPS_RQ_I8, F_ALL},
    /* single rounding's own: a negative multiplier (no sign term, every M) */
    {"-2^-17 i16 exact ties", -(1 << 30), 16, 7, -32768, 32767, SIMDOPS_RQ_I16,
     (1 << F_SINGLE) | (1 << F_AWAY)},
};

/* the family's scalar result (rshift 0: the left-shift set, a left shift of 3) */
static int32_t ref_pair(const pset *s, int fam, int32_t x, int32_t mult, int32_t rshift)
{
    int ls = rshift == 0 ? 3 : 0;
    if (fam == F_TIES)
        return rqf_ties_up(x, mult, rshift - ls, s->offset, s->lo, s->hi);
    if (fam == F_SINGLE)
        return rqf_single(x, mult, rshift - ls, s->offset, s->lo, s->hi);
    if (fam == F_AWAY)
        return rqf_single_away(x, mult, rshift - ls, s->offset, s->lo, s->hi);
    return simdops_requant_one(x, mult, ls, rshift, s->offset, s->lo, s->hi);
}

static int32_t ref_one(const pset *s, int fam, int32_t x)
{
    return ref_pair(s, fam, x, s->mult, s->rshift);
}

static int32_t get_out(const void *y, size_t i, int out)
{
    return out == SIMDOPS_RQ_U8 ? ((const uint8_t *)y)[i]
           : out == SIMDOPS_RQ_I8 ? ((const int8_t *)y)[i]
                                  : ((const int16_t *)y)[i];
}

/* the family's per-tensor and per-channel entries on the current tier */
static void family_entries(int fam, int out, simdops_requant_fn *pt, simdops_requant_pc_fn *pc)
{
    const simdops_kernel_table *k = simdops_current_kernels();
    switch (fam) {
    case F_TIES: *pt = k->requant_ties_up[out], *pc = k->requant_ties_up_pc[out]; break;
    case F_SINGLE: *pt = k->requant_single[out], *pc = k->requant_single_pc[out]; break;
    case F_AWAY: *pt = k->requant_single_away[out], *pc = k->requant_single_away_pc[out]; break;
    default: *pt = k->requant[out], *pc = k->requant_pc[out]; break;
    }
}

/* The fast path's flag for one lane, modelled in scalar (with rqf_window and
 * rqf_pair_consts or rqf_single_mu, as rqf_init / rqf_convert compute it,
 * AVX-512's FMA form; ties-up and single: one constant, c+, for every lane);
 * -1 when the path does not cover s. */
static int model_flag(const pset *s, int fam, int32_t y)
{
    const int K = RQF_PC_K; /* AVX-512's */
    const int single = fam == F_SINGLE || fam == F_AWAY;
    double tc;
    int32_t a, j;
    float m, cpos, cneg, w;
    if (!(a = rqf_window(s->offset, s->lo, s->hi, K, 2.001, &tc)))
        return -1;
    if (single) {
        if (s->rshift == 0 || !rqf_single_mu(s->mult, 31 + s->rshift, K, &m))
            return -1;
        cpos = cneg = rqf_pc_base(s->offset, a, K);
    } else if (!rqf_pair_consts(s->mult, s->rshift, 0, s->offset, a, K, &m, &cpos, &cneg)) {
        return -1;
    }
    w = fmaf((float)y, m, y < 0 && fam == F_DOUBLE ? cneg : cpos);
    w = fminf(fmaxf(w, (float)-tc), (float)tc);
    j = (int32_t)lrintf(w);
    return ((uint32_t)j & ((1u << K) - 1) & ~(uint32_t)(2 * a - 1)) == 0;
}

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint32_t rng32(void)
{
    rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(rng_state >> 32);
}

/* Flagged shares over 1M bench-like inputs for the benchmark's scale and 200
 * random scales in [2^-20, 2^-4) (u8, zero point 0..255). */
static int rates(int fam)
{
    double worst = 0, sum = 0;
    for (int k = 0; k <= 200; k++) {
        pset s = {"random", 1099511628, 9, 100, 0, 255, SIMDOPS_RQ_U8, 1 << fam};
        uint64_t lanes = 0, vecs = 0, vf = 0, fl = 0;
        if (k > 0) {
            double scale = ldexp(1.0 + rng32() / 4294967296.0, -4 - (int)(rng32() % 16));
            int ex;
            double fr = frexp(scale, &ex); /* scale = fr * 2^ex, fr in [0.5, 1) */
            long long mm = llround(ldexp(fr, 31));
            if (mm > INT32_MAX)
                mm = INT32_MAX;
            s.mult = (int32_t)mm;
            s.rshift = -ex;
            s.offset = (int32_t)(rng32() % 256);
        }
        for (int i = 0; i < (1 << 20); i++) {
            int f = model_flag(&s, fam, (int32_t)(rng32() % 300001) - 150000);
            if (f < 0)
                break;
            lanes++;
            fl += f;
            vf |= (uint64_t)f;
            if (lanes % 16 == 0) {
                vecs += vf;
                vf = 0;
            }
        }
        if (!lanes) {
            printf("scale M=%d e=%d: not covered\n", s.mult, s.rshift);
            continue;
        }
        if (k == 0)
            printf("%s: ", fam == F_DOUBLE ? "double rounding" : FAMILY_PREFIX[fam]);
        if (k == 0)
            printf("bench scale 1/1000 zp 100: %.4f%% of lanes, %.3f%% of 16-lane vectors\n",
                   100.0 * fl / lanes, 100.0 * vecs / (lanes / 16));
        else {
            double r = 100.0 * vecs / (lanes / 16);
            sum += r;
            worst = r > worst ? r : worst;
        }
    }
    printf("200 random scales in [2^-20, 2^-4): 16-lane vectors flagged: mean %.3f%%, worst %.3f%%\n",
           sum / 200, worst);
    return 0;
}

/* Per channel: the inputs of the slices spread over 16 channels whose pairs
 * vary around the set's (multiplier +- k * 40503, right shift +- 0..2 within
 * 1..23), through the tier's per-channel kernel with the arrays the driver
 * builds (derived + fast-path constants); the set's own bias-free call. */
static uint64_t check_pc(const pset *s, int fam, const char *isa, const int *slice_list,
                         int nslice, int32_t *x, int16_t *got, int32_t *store, uint64_t *checked)
{
    enum { CH = 16 };
    int32_t mult[CH], shift[CH];
    simdops_requant_params p;
    simdops_requant_channels ch;
    const size_t stride = CHUNK + 16;
    uint64_t bad = 0;
    memset(&p, 0, sizeof p);
    p.offset = s->offset;
    p.min = s->lo;
    p.max = s->hi;
    const int single = fam == F_SINGLE || fam == F_AWAY;
    simdops_requant_fn ptfn;
    simdops_requant_pc_fn pcfn;
    family_entries(fam, s->out, &ptfn, &pcfn);
    for (int k = 0; k < CH; k++) {
        int64_t m = (int64_t)s->mult + (int64_t)(k - CH / 2) * 40503;
        int e = s->rshift + k % 3 - 1;
        mult[k] = (int32_t)(m > INT32_MAX ? INT32_MAX : m < 1 && !single ? 1 : m);
        /* single rounding's derived fast form: t = 31 + e >= 33 */
        shift[k] = single ? (e < 2 ? 2 : e > 31 ? 31 : e) : (e < 1 ? 1 : e > 23 ? 23 : e);
    }
    if (single)
        simdops_requant_channels_init_single(&ch, store, stride, mult, shift, CH, CHUNK / CH);
    else
        simdops_requant_channels_init_strided(&ch, store, stride, mult, shift, CH, CHUNK / CH);
    simdops_requant_channels_init_fast(&ch, store + 5 * stride, stride, CH, CHUNK, p.offset,
                                       p.min, p.max);
    if (!ch.fast_mult)
        printf("%s%-34s %-7s per channel: fast path not covered\n", FAMILY_PREFIX[fam], s->name,
               isa);
    for (int sl = 0; sl < nslice; sl++) {
        for (uint32_t c0 = 0; c0 < SLICE; c0 += CHUNK) {
            uint32_t base = (uint32_t)slice_list[sl] * SLICE + c0;
            for (uint32_t i = 0; i < CHUNK; i++)
                x[i] = (int32_t)(base + i);
            for (uint32_t at = 0; at < CHUNK; at += CALL) /* CALL % CH == 0: channel at % CH */
                pcfn(
                    x + at, (char *)got + at * simdops_requant_out_size(s->out), CALL, NULL, &ch,
                    &p);
            for (uint32_t i = 0; i < CHUNK; i++) {
                int32_t w = ref_pair(s, fam, x[i], mult[i % CH], shift[i % CH]);
                int32_t g = get_out(got, i, s->out);
                if (w != g && bad++ < 3)
                    printf("  MISMATCH %s %s per channel x=%d ch %u want %d got %d\n", s->name,
                           isa, x[i], i % CH, w, g);
            }
            *checked += CHUNK;
        }
    }
    return bad;
}

/* 1 when key is one of the comma-separated names of list */
static int listed(const char *list, const char *key)
{
    for (const char *q = list; *q;) {
        size_t len = strcspn(q, ",");
        if (len == strlen(key) && !strncmp(q, key, len))
            return 1;
        q += len + (q[len] == ',');
    }
    return 0;
}

int main(int argc, char **argv)
{
    const int nsets = (int)(sizeof SETS / sizeof SETS[0]);
    int slices = argc > 1 ? atoi(argv[1]) : 0, nslice = 0, bad_total = 0;
    int slice_list[256];
    const char *default_isas[] = {"avx512", "avx2", "sse41", "sse2"};
    const char **isas = argc > 2 ? (const char **)argv + 2 : default_isas;
    int nisas = argc > 2 ? argc - 2 : 4;
    int32_t *x = malloc(CHUNK * sizeof(int32_t));
    int16_t *want = malloc(CHUNK * sizeof(int16_t)), *got = malloc(CHUNK * sizeof(int16_t));
    int32_t *store = malloc(7 * (CHUNK + 16) * sizeof(int32_t));
    simdops_error err;
    if (!x || !want || !got || !store)
        return 2;
    if (argc > 1 && !strcmp(argv[1], "rates"))
        return rates(F_DOUBLE) || rates(F_TIES) || rates(F_SINGLE) || rates(F_AWAY);
    if (slices <= 0 || slices >= 256) {
        for (int k = 0; k < 256; k++)
            slice_list[nslice++] = k;
    } else {
        /* the slices around 0 (where the unclamped lanes are) and INT32_MIN/MAX, then spread */
        const int fixed[4] = {255, 0, 127, 128};
        for (int k = 0; k < 4 && k < slices; k++)
            slice_list[nslice++] = fixed[k];
        for (int k = 4; k < slices; k++)
            slice_list[nslice++] = (k * 97 + 11) % 256;
    }
    for (int si = 0; si < nsets; si++) {
        const pset *s = &SETS[si];
        const char *only = getenv("RQ_EXHAUSTIVE_SETS");
        char key[8];
        snprintf(key, sizeof key, "%d", si);
        if (only && !listed(only, key))
            continue;
        for (int fam = 0; fam < F_COUNT; fam++) {
            const char *fam_only = getenv("RQ_EXHAUSTIVE_FAMILY"); /* FAMILY_NAME */
            char name[64];
            if (!(s->fams & (1 << fam)) || (fam_only && !listed(fam_only, FAMILY_NAME[fam])))
                continue;
            snprintf(name, sizeof name, "%s%s", FAMILY_PREFIX[fam], s->name);
            simdops_requant_params p;
            uint64_t flagged_lanes = 0, flagged_vecs = 0, lanes = 0, vec_flag = 0;
            int modelled = 0; /* the flag model runs along the first available tier */
            memset(&p, 0, sizeof p);
            p.multiplier = s->mult;
            p.left_shift = s->rshift == 0 ? 3 : 0;
            p.right_shift = s->rshift;
            p.offset = s->offset;
            p.min = s->lo;
            p.max = s->hi;
            for (int ii = 0; ii < nisas; ii++) {
                uint64_t checked = 0, bad = 0;
                simdops_requant_fn fn;
                simdops_requant_pc_fn pcfn;
                if (simdops_set_thread_isa(isas[ii], &err) != SIMDOPS_OK) {
                    printf("%-34s %-7s NOT TESTED (not available)\n", name, isas[ii]);
                    continue;
                }
                family_entries(fam, s->out, &fn, &pcfn);
                modelled++;
                for (int sl = 0; sl < nslice; sl++) {
                    for (uint32_t c0 = 0; c0 < SLICE; c0 += CHUNK) {
                        uint32_t base = (uint32_t)slice_list[sl] * SLICE + c0;
                        for (uint32_t i = 0; i < CHUNK; i++)
                            x[i] = (int32_t)(base + i);
                        for (uint32_t at = 0; at < CHUNK; at += CALL)
                            fn(x + at, (char *)got + at * simdops_requant_out_size(s->out), CALL,
                               NULL, &p);
                        for (uint32_t i = 0; i < CHUNK; i++) {
                            int32_t w = ref_one(s, fam, x[i]), g = get_out(got, i, s->out);
                            if (modelled == 1) {
                                int fl = model_flag(s, fam, x[i]);
                                lanes++;
                                flagged_lanes += fl > 0;
                                vec_flag |= (uint64_t)(fl > 0);
                                if (lanes % 16 == 0) {
                                    flagged_vecs += vec_flag;
                                    vec_flag = 0;
                                }
                            }
                            if (w != g && bad++ < 3)
                                printf("  MISMATCH %s %s x=%d want %d got %d\n", name, isas[ii],
                                       x[i], w, g);
                        }
                        checked += CHUNK;
                    }
                }
                (void)want;
                printf("%-34s %-7s %llu inputs, %llu mismatches\n", name, isas[ii],
                       (unsigned long long)checked, (unsigned long long)bad);
                bad_total += bad != 0;
                if (model_flag(s, fam, 0) >= 0) { /* per channel, in the fast path's domain */
                    uint64_t pc_checked = 0, pc_bad =
                        check_pc(s, fam, isas[ii], slice_list, nslice, x, got, store, &pc_checked);
                    printf("%-34s %-7s per channel: %llu inputs, %llu mismatches\n", name,
                           isas[ii], (unsigned long long)pc_checked, (unsigned long long)pc_bad);
                    bad_total += pc_bad != 0;
                }
                fflush(stdout);
            }
            if (model_flag(s, fam, 0) < 0)
                printf("%-34s fast path: not covered (integer kernel)\n", name);
            else
                printf("%-34s fast path: %.3g%% of lanes, %.3g%% of 16-lane vectors to the integer rule\n",
                       name, 100.0 * (double)flagged_lanes / (double)(lanes ? lanes : 1),
                       100.0 * (double)flagged_vecs / (double)(lanes ? lanes / 16 : 1));
        }
    }
    printf("rq_exhaustive: %s\n", bad_total ? "FAILED" : "OK");
    return bad_total ? 1 : 0;
}
