#include "driver/binary.h"

#include <stdint.h>
#include <string.h>

#include "core/atomic_int.h"
#include "core/kernel_abi.h"
#include "driver/gather.h"
#include "driver/row_walk.h"
#include "driver/strided.h"
#include "driver/threadpool.h"

/* Elements per gathered chunk (stack buffers of CHUNK * 8 bytes each). */
enum { CHUNK = 256 };

typedef struct bplan {
    int nd;
    int64_t shape[SIMDOPS_MAX_DIMS + 1];
    int64_t sa[SIMDOPS_MAX_DIMS + 1], sb[SIMDOPS_MAX_DIMS + 1], sy[SIMDOPS_MAX_DIMS + 1];
    unsigned char ba[SIMDOPS_MAX_DIMS + 1], bb[SIMDOPS_MAX_DIMS + 1]; /* broadcast dims */
    const char *a, *b;
    char *y;
    size_t es;
    simdops_binary_row_fn row;
    const void *ctx;
    /* a per-channel input (periodic_input): which one (0 none, 1 a, 2 b), its
     * period, its tile of whole periods and the run length a call takes */
    int periodic;
    size_t period, run;
    const char *tile;
} bplan;

/* An input's extent and stride along y's dimension d (1 and 0 before its first). */
static void input_dim(const simdops_tensor *t, int d, int ynd, int64_t *ext, int64_t *stride)
{
    int k = d - (ynd - t->ndim);
    *ext = k < 0 ? 1 : t->shape[k];
    *stride = k < 0 || *ext == 1 ? 0 : t->strides[k];
}

static void make_plan(bplan *p, const simdops_tensor *a, const simdops_tensor *b,
                      const simdops_tensor *y)
{
    int nd = 0;
    p->a = (const char *)a->data;
    p->b = (const char *)b->data;
    p->y = (char *)y->data;
    for (int d = 0; d < y->ndim; d++) {
        int64_t s = y->shape[d], ea, eb, ta, tb, ty = y->strides[d];
        unsigned char fa, fb;
        if (s == 1)
            continue;
        input_dim(a, d, y->ndim, &ea, &ta);
        input_dim(b, d, y->ndim, &eb, &tb);
        fa = ea == 1;
        fb = eb == 1;
        /* merged, the inner axis keeps its strides: the outer one steps exactly
         * over it in every operand, with the same broadcast flags */
        if (nd > 0 && p->ba[nd - 1] == fa && p->bb[nd - 1] == fb && p->sa[nd - 1] == ta * s &&
            p->sb[nd - 1] == tb * s && p->sy[nd - 1] == ty * s) {
            p->shape[nd - 1] *= s;
            p->sa[nd - 1] = ta;
            p->sb[nd - 1] = tb;
            p->sy[nd - 1] = ty;
            continue;
        }
        p->shape[nd] = s;
        p->sa[nd] = ta;
        p->sb[nd] = tb;
        p->sy[nd] = ty;
        p->ba[nd] = fa;
        p->bb[nd] = fb;
        nd++;
    }
    if (nd == 0) { /* one element: both inputs are vectors of one */
        p->shape[0] = 1;
        p->sa[0] = p->sb[0] = p->sy[0] = (int64_t)p->es;
        p->ba[0] = p->bb[0] = 0;
        nd = 1;
    }
    p->nd = nd;
}

static int direct(const char *ptr, int64_t stride, size_t es)
{
    return stride == (int64_t)es && (uintptr_t)ptr % es == 0;
}

/* One row of n output elements; fa / fb: that input is one element. */
static void run_row(const bplan *p, const char *a, const char *b, char *y, size_t n, int64_t sa,
                    int64_t sb, int64_t sy, int fa, int fb)
{
    uint64_t abuf[CHUNK], bbuf[CHUNK], ybuf[CHUNK], a1, b1;
    const size_t es = p->es;
    int form = fa ? SIMDOPS_QB_SV : fb ? SIMDOPS_QB_VS : SIMDOPS_QB_VV;
    int da, db, dy = direct(y, sy, es);
    /* a one-element input is read once, into an aligned word when its address
     * is not aligned */
    if (fa && (uintptr_t)a % es) {
        memcpy(&a1, a, es);
        a = (const char *)&a1;
    }
    if (fb && (uintptr_t)b % es) {
        memcpy(&b1, b, es);
        b = (const char *)&b1;
    }
    da = fa || direct(a, sa, es);
    db = fb || direct(b, sb, es);
    if (da && db && dy) {
        p->row(a, b, y, n, form, p->ctx);
        return;
    }
    for (size_t k = 0; k < n; k += CHUNK) {
        size_t m = n - k < CHUNK ? n - k : CHUNK;
        const void *ain = fa ? (const void *)a : (const void *)(a + (int64_t)k * sa);
        const void *bin = fb ? (const void *)b : (const void *)(b + (int64_t)k * sb);
        char *ys = y + (int64_t)k * sy;
        void *yout = dy ? (void *)ys : (void *)ybuf;
        if (!da) {
            simdops_copy_elements((char *)abuf, (int64_t)es, (const char *)ain, sa, m, es);
            ain = abuf;
        }
        if (!db) {
            simdops_copy_elements((char *)bbuf, (int64_t)es, (const char *)bin, sb, m, es);
            bin = bbuf;
        }
        p->row(ain, bin, yout, m, form, p->ctx);
        if (!dy)
            simdops_copy_elements(ys, sy, (const char *)ybuf, (int64_t)es, m, es);
    }
}

static void walk_row(const void *ctx, char *const *at, int64_t col, int64_t m)
{
    const bplan *p = (const bplan *)ctx;
    int last = p->nd - 1;
    (void)col;
    run_row(p, at[0], at[1], at[2], (size_t)m, p->sa[last], p->sb[last], p->sy[last],
            p->ba[last], p->bb[last]);
}

/* Bytes of whole periods a kernel call takes from a per-channel input's tile
 * built on the stack (a call's own, when the kept tile below is in use):
 * enough that a call's setup is small against its elements. */
enum { TILE_BYTES = 8192 };

/* The kept tile: one per process (68 KiB of zeroed static memory, touched once
 * used), holding whole periods of the last per-channel vector it was built
 * from, up to KEPT_BYTES. A kernel call has a fixed cost (~25-30 ns with
 * TFLite's add: its constants, the flagged lanes' last step, the loops' exits)
 * and writing a tile costs ~5 ns a KiB, so a tile built per call is as dear
 * at 64 KiB (one kernel call for 64K elements) as at 8 KiB (eight); kept, it
 * is built once for a vector the caller passes again (a model's per-channel
 * bias or scale) and a 64K call makes one kernel call. A vector other than
 * the last one gets the 8 KiB a call would build for itself; passed again, it
 * gets the full length. Exact by construction: a call reads the tile only
 * after comparing its first period with the vector's bytes, all of them,
 * every call (memcmp; the rest are copies of that period, written while the
 * flag was held), and reads no more whole periods than it holds. One caller
 * at a time holds it (an atomic flag taken without waiting); another caller
 * meanwhile, or a child forked while a thread held it (whose copy may be half
 * built: never freed there), builds its own tile on the stack. */
enum { KEPT_BYTES = 65536 };
static uint64_t kept_tile[(KEPT_BYTES + TILE_BYTES / 2) / sizeof(uint64_t)];
static size_t kept_period_bytes, kept_reps; /* the period it repeats, whole periods held - 1 */
static simdops_atomic_int kept_busy; /* 1 while a caller holds the kept tile */
#define KEPT_TAKE() (simdops_exchange_acquire(&kept_busy, 1) == 0)
#define KEPT_GIVE() simdops_store_release(&kept_busy, 0)

/* the harness's mutant only: a period's last byte not compared */
#ifdef SIMDOPS_BINARY_MUTANT_KEPT_CMP
#define KEPT_CMP_BYTES(bytes) ((bytes) - 1)
#else
#define KEPT_CMP_BYTES(bytes) (bytes)
#endif

int simdops_binary_kept_tile_hold(int hold)
{
    if (!hold) {
        KEPT_GIVE();
        return 1;
    }
    return KEPT_TAKE();
}

/* (reps + 1) whole periods of the bytes-long vec into tile: doubling, few
 * copies for a short period */
static void build_tile(char *tile, const char *vec, size_t bytes, size_t reps)
{
    const size_t want = (reps + 1) * bytes;
    size_t have = bytes;
    memcpy(tile, vec, bytes);
    for (; have < want; have *= 2)
        memcpy(tile + have, tile, want - have < have ? want - have : have);
}

/* A per-channel input: two dimensions, one input repeating a contiguous row
 * (stride 0 along the outer one), the other input and y contiguous across
 * both. Row by row, each kernel call would do one short row; instead y is one
 * row of n elements against the repeated input laid out as a tile of whole
 * periods (the kept tile, or one built for the call), so a kernel call runs
 * over several rows. Returns
 * the input that repeats (1 a, 2 b), or 0 when the plan is not of this form. */
static int periodic_input(const bplan *p)
{
    const int64_t es = (int64_t)p->es, len = p->shape[1];
    int pa, pb;
    if (p->nd != 2 || p->ba[1] || p->bb[1] || p->sy[1] != es || p->sy[0] != len * es ||
        p->sa[1] != es || p->sb[1] != es || (uint64_t)(len * es) > TILE_BYTES / 2 ||
        (uintptr_t)p->a % p->es || (uintptr_t)p->b % p->es || (uintptr_t)p->y % p->es)
        return 0;
    pa = p->ba[0] && !p->bb[0] && p->sb[0] == len * es;
    pb = p->bb[0] && !p->ba[0] && p->sa[0] == len * es;
    return pa ? 1 : pb ? 2 : 0;
}

/* A piece of the one row: the tile read from the piece's phase in the period,
 * runs of whole periods, so every run starts at that phase. */
static void tiled_row(const void *ctx, char *const *at, int64_t col, int64_t m)
{
    const bplan *p = (const bplan *)ctx;
    const char *tile = p->tile + (size_t)col % p->period * p->es;
    for (int64_t k = 0; k < m; k += (int64_t)p->run) {
        size_t n = (size_t)(m - k) < p->run ? (size_t)(m - k) : p->run;
        size_t off = (size_t)k * p->es;
        p->row(p->periodic == 1 ? tile : at[0] + off, p->periodic == 2 ? tile : at[1] + off,
               at[2] + off, n, SIMDOPS_QB_VV, p->ctx);
    }
}

void simdops_binary_elementwise(const simdops_tensor *a, const simdops_tensor *b,
                                const simdops_tensor *y, simdops_binary_row_fn row,
                                const void *ctx)
{
    bplan p;
    simdops_walk w;
    uint64_t tile[(TILE_BYTES + TILE_BYTES / 2) / sizeof(uint64_t)];
    int kept = 0;
    w.n = simdops_numel(y);
    if (w.n == 0)
        return;
    p.es = simdops_dtype_size(y->dtype);
    p.row = row;
    p.ctx = ctx;
    make_plan(&p, a, b, y);
    p.periodic = periodic_input(&p);
    if (p.periodic) { /* the tile: whole periods, one more than a run's */
        const char *vec = p.periodic == 1 ? p.a : p.b;
        size_t bytes = (size_t)p.shape[1] * p.es, reps;
        kept = KEPT_TAKE();
        reps = (kept ? KEPT_BYTES : TILE_BYTES) / bytes;
        if (reps > (size_t)p.shape[0]) /* a small call builds no more than it reads */
            reps = (size_t)p.shape[0];
        if (!kept) {
            build_tile((char *)tile, vec, bytes, reps);
            p.tile = (const char *)tile;
        } else {
            if (kept_period_bytes != bytes ||
                memcmp(kept_tile, vec, KEPT_CMP_BYTES(bytes)) != 0) {
                /* a vector other than the last one: the tile a call builds for
                 * itself, so a vector that changes every call costs what it did */
                kept_period_bytes = bytes;
                kept_reps = TILE_BYTES / bytes < reps ? TILE_BYTES / bytes : reps;
                build_tile((char *)kept_tile, vec, bytes, kept_reps);
            } else if (kept_reps < reps) { /* passed again: built to its full length */
                kept_reps = reps;
                build_tile((char *)kept_tile, vec, bytes, kept_reps);
            }
            if (reps > kept_reps)
                reps = kept_reps;
            p.tile = (const char *)kept_tile;
        }
        p.period = (size_t)p.shape[1];
        p.run = reps * p.period;
        p.shape[0] = w.n; /* one row of every element */
        p.sa[0] = p.periodic == 1 ? 0 : (int64_t)p.es; /* the tile is read by phase */
        p.sb[0] = p.periodic == 2 ? 0 : (int64_t)p.es;
        p.sy[0] = (int64_t)p.es;
        p.nd = 1;
    }
    w.nd = p.nd;
    w.nops = 3;
    w.shape = p.shape;
    w.base[0] = (char *)p.a;
    w.base[1] = (char *)p.b;
    w.base[2] = p.y;
    w.strides[0] = p.sa;
    w.strides[1] = p.sb;
    w.strides[2] = p.sy;
    w.row = p.periodic ? tiled_row : walk_row;
    w.ctx = &p;
    simdops_walk_all(&w, (int64_t)(3 * p.es));
    if (kept)
        KEPT_GIVE();
}
