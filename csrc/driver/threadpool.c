/* The intra-op thread pool (see threadpool.h for the model).
 *
 * One mutex guards the pool. A caller posts a job (fn, ctx, a range cut into
 * chunks), wakes the workers and claims chunks itself like any worker; each
 * chunk is claimed under the mutex and run outside it, so a slow or
 * descheduled thread (this is often a shared machine) leaves its chunks to
 * the others. The job lives on the caller's stack: every worker access to it
 * happens under the mutex, and the caller unpublishes it before returning. */
#include "driver/threadpool.h"

#include "simdops/simdops.h"

#if defined(__GNUC__) || defined(__clang__)
#define LOAD_INT(p) __atomic_load_n((p), __ATOMIC_RELAXED)
#define STORE_INT(p, v) __atomic_store_n((p), (v), __ATOMIC_RELAXED)
#define LOAD_I64(p) __atomic_load_n((p), __ATOMIC_RELAXED)
#define STORE_I64(p, v) __atomic_store_n((p), (v), __ATOMIC_RELAXED)
#define EXCHANGE_I64(p, v) __atomic_exchange_n((p), (v), __ATOMIC_RELAXED)
#else /* MSVC x64: aligned loads and stores of these sizes are atomic */
#define LOAD_INT(p) (*(volatile int *)(p))
#define STORE_INT(p, v) (*(volatile int *)(p) = (v))
#define LOAD_I64(p) (*(volatile int64_t *)(p))
#define STORE_I64(p, v) (*(volatile int64_t *)(p) = (v))
static int64_t exchange_i64(int64_t *p, int64_t v)
{
    int64_t old = *(volatile int64_t *)p;
    *(volatile int64_t *)p = v;
    return old;
}
#define EXCHANGE_I64(p, v) exchange_i64((p), (v))
#endif

/* The settings; read by every call without a lock. */
static int num_threads = 1;
static int64_t grain_bytes = SIMDOPS_DEFAULT_GRAIN_BYTES;
static int64_t jobs_run;

int64_t simdops_grain_bytes(void) { return LOAD_I64(&grain_bytes); }

int64_t simdops_set_grain_bytes(int64_t bytes)
{
    return EXCHANGE_I64(&grain_bytes, bytes < 1 ? 1 : bytes);
}

int64_t simdops_pool_jobs(void) { return LOAD_I64(&jobs_run); }

int simdops_set_num_threads(int n)
{
    if (n < 1 || n > SIMDOPS_MAX_THREADS)
        return SIMDOPS_E_PARAM;
    STORE_INT(&num_threads, n);
    return SIMDOPS_OK;
}

int simdops_get_num_threads(void) { return LOAD_INT(&num_threads); }

int simdops_threads_supported(void) { return SIMDOPS_HAVE_THREADS; }

#if !SIMDOPS_HAVE_THREADS

int simdops_parallel_for(int64_t n_items, int64_t grain, simdops_range_fn fn, void *ctx)
{
    (void)grain;
    return n_items > 0 ? fn(ctx, 0, n_items) : SIMDOPS_OK;
}

#else

#include <pthread.h>
#include <signal.h>

#include "driver/glibc_compat.h" /* after <pthread.h>: keeps wheels at manylinux_2_17 */

/* The floating-point control state a job runs under: the caller's. A
 * single-threaded call runs under whatever the calling thread set (x86 MXCSR:
 * rounding, flush-to-zero, denormals-are-zero; aarch64 FPCR: rounding, FZ),
 * e.g. torch.set_flush_denormal(True); so that every thread count gives the
 * same bits, a worker takes the caller's state for the job's chunks and
 * restores its own after (threads.md). The x86 exception flags (MXCSR bits
 * 0-5) are sticky status, not control: not copied. */
#if defined(__x86_64__) || defined(_M_X64) || defined(__SSE__)
#include <xmmintrin.h>
typedef unsigned int fp_control;
static fp_control fp_control_get(void) { return _mm_getcsr() & ~0x3Fu; }
static void fp_control_set(fp_control v) { _mm_setcsr(v); }
#elif defined(__aarch64__) && (defined(__GNUC__) || defined(__clang__))
typedef uint64_t fp_control;
static fp_control fp_control_get(void)
{
    uint64_t v;
    __asm__ __volatile__("mrs %0, fpcr" : "=r"(v));
    return v;
}
static void fp_control_set(fp_control v) { __asm__ __volatile__("msr fpcr, %0" : : "r"(v)); }
#else /* no control state the kernels depend on that we know how to read */
typedef int fp_control;
static fp_control fp_control_get(void) { return 0; }
static void fp_control_set(fp_control v) { (void)v; }
#endif

/* Chunks per participating thread: more than one so that a thread that gets
 * descheduled does not hold up the whole call. */
enum { CHUNKS_PER_THREAD = 4 };

typedef struct job {
    simdops_range_fn fn;
    void *ctx;
    int64_t n_items, n_chunks;
    int64_t next, done; /* chunks claimed / finished */
    int helpers_left;   /* workers that may still join */
    int status;
    fp_control fp;      /* the caller's floating-point control state */
} job;

static struct {
    pthread_mutex_t lock;
    pthread_cond_t wake;     /* workers: a job was posted */
    pthread_cond_t finished; /* caller: the last chunk finished */
    int n_workers;
    int busy;     /* a caller owns the pool */
    job *current; /* the posted job, or NULL */
} pool = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0,
          NULL};

/* Runs chunks of j until none is left. Called and returns with pool.lock held. */
static void run_chunks(job *j)
{
    while (j->next < j->n_chunks) {
        /* balanced split: every chunk is n/k or n/k + 1 items, so >= grain */
        int64_t i = j->next++, q = j->n_items / j->n_chunks, r = j->n_items % j->n_chunks;
        int64_t begin = i * q + (i < r ? i : r), end = begin + q + (i < r);
        int status;
        pthread_mutex_unlock(&pool.lock);
        status = j->fn(j->ctx, begin, end);
        pthread_mutex_lock(&pool.lock);
        if (status && !j->status)
            j->status = status;
        if (++j->done == j->n_chunks)
            pthread_cond_signal(&pool.finished);
    }
}

static int has_work(const job *j) { return j && j->helpers_left > 0 && j->next < j->n_chunks; }

static void *worker_main(void *arg)
{
    sigset_t all;
    (void)arg;
    /* signals belong to the interpreter's threads, not to ours */
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, NULL);
    pthread_mutex_lock(&pool.lock);
    for (;;) {
        job *j;
        fp_control own, callers;
        while (!has_work(pool.current))
            pthread_cond_wait(&pool.wake, &pool.lock);
        own = fp_control_get();
        j = pool.current;
        j->helpers_left--;
        callers = j->fp; /* j is not read after run_chunks: the caller may return */
        if (callers != own)
            fp_control_set(callers);
        run_chunks(j);
        if (callers != own)
            fp_control_set(own);
    }
    return NULL; /* not reached: workers live as long as the process */
}

/* fork(): hold the lock across it so the child's copy of the pool is
 * consistent, then give the child an empty pool (its workers did not survive
 * the fork; fresh ones start on first use). The condition variables are
 * re-initialised: waiters of the parent's copies do not exist in the child. */
static void before_fork(void) { pthread_mutex_lock(&pool.lock); }
static void after_fork_parent(void) { pthread_mutex_unlock(&pool.lock); }
static void after_fork_child(void)
{
    pthread_mutex_init(&pool.lock, NULL);
    pthread_cond_init(&pool.wake, NULL);
    pthread_cond_init(&pool.finished, NULL);
    pool.n_workers = 0;
    pool.busy = 0;
    pool.current = NULL;
}

static pthread_once_t fork_handlers_once = PTHREAD_ONCE_INIT;
static void install_fork_handlers(void)
{
    pthread_atfork(before_fork, after_fork_parent, after_fork_child);
}

/* Starts workers until there are `wanted` (as many as the system allows).
 * Called with pool.lock held. */
static void start_workers(int wanted)
{
    pthread_attr_t attr;
    if (pool.n_workers >= wanted)
        return;
    pthread_once(&fork_handlers_once, install_fork_handlers);
    if (pthread_attr_init(&attr))
        return;
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    /* the drivers keep a few KB of buffers on the stack */
    pthread_attr_setstacksize(&attr, 1 << 20);
    while (pool.n_workers < wanted) {
        pthread_t t;
        if (pthread_create(&t, &attr, worker_main, NULL))
            break; /* run with the workers we have */
        pool.n_workers++;
    }
    pthread_attr_destroy(&attr);
}

int simdops_parallel_for(int64_t n_items, int64_t grain, simdops_range_fn fn, void *ctx)
{
    int threads = LOAD_INT(&num_threads), helpers;
    int64_t max_chunks, n_chunks;
    job j;
    if (n_items <= 0)
        return SIMDOPS_OK;
    if (grain < 1)
        grain = 1;
    max_chunks = n_items / grain;
    if (threads <= 1 || max_chunks < 2)
        return fn(ctx, 0, n_items);

    pthread_mutex_lock(&pool.lock);
    if (pool.busy) { /* another caller's job, or ours (nested): run inline */
        pthread_mutex_unlock(&pool.lock);
        return fn(ctx, 0, n_items);
    }
    start_workers(threads - 1);
    helpers = pool.n_workers < threads - 1 ? pool.n_workers : threads - 1;
    if (helpers == 0) {
        pthread_mutex_unlock(&pool.lock);
        return fn(ctx, 0, n_items);
    }
    n_chunks = (int64_t)(helpers + 1) * CHUNKS_PER_THREAD;
    if (n_chunks > max_chunks)
        n_chunks = max_chunks;
    j.fn = fn;
    j.ctx = ctx;
    j.n_items = n_items;
    j.n_chunks = n_chunks;
    j.next = j.done = 0;
    j.helpers_left = helpers;
    j.status = SIMDOPS_OK;
    j.fp = fp_control_get();
    pool.busy = 1;
    pool.current = &j;
    STORE_I64(&jobs_run, jobs_run + 1); /* only written under pool.lock */
    pthread_cond_broadcast(&pool.wake);
    run_chunks(&j);
    while (j.done < j.n_chunks)
        pthread_cond_wait(&pool.finished, &pool.lock);
    pool.current = NULL;
    pool.busy = 0;
    pthread_mutex_unlock(&pool.lock);
    return j.status;
}

#endif
