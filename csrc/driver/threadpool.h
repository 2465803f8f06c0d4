/* Intra-op threads: a persistent pool of native worker threads and a
 * parallel-for over an index range.
 *
 * Model (docs/threads.md): the thread count is a process-wide setting,
 * default 1 (no worker thread is ever started then). A call splits its work
 * only when it has at least two grains of it; the calling thread takes part.
 * One job runs on the pool at a time: a caller that finds the pool busy
 * (another Python thread, or a nested call from inside a job) runs its whole
 * range inline, so concurrent callers never deadlock and never start more
 * threads than the setting. After fork() the child starts with an empty pool
 * that fills again on first use.
 *
 * Builds without POSIX threads (Windows) run every job on the calling thread;
 * the setting is still kept and reported. */
#ifndef SIMDOPS_THREADPOOL_H
#define SIMDOPS_THREADPOOL_H

#include <stdint.h>

#if defined(_WIN32)
#define SIMDOPS_HAVE_THREADS 0
#define SIMDOPS_THREAD_EXPORT
#else
#define SIMDOPS_HAVE_THREADS 1
/* exported from the extension module so threadpoolctl can find them */
#define SIMDOPS_THREAD_EXPORT __attribute__((visibility("default")))
#endif

/* Upper bound of simdops_set_num_threads. */
#define SIMDOPS_MAX_THREADS 1024

/* Bytes (read + written) each thread gets at least, for the memory-bound
 * drivers: below two of these a call runs on the caller alone. Tuned on
 * x86-64 (docs/threads.md). */
#define SIMDOPS_DEFAULT_GRAIN_BYTES ((int64_t)1 << 18)

/* The grain in use; set returns the previous one (tests use a tiny grain to
 * split small arrays; tuning runs try others). bytes < 1 is taken as 1. */
int64_t simdops_grain_bytes(void);
int64_t simdops_set_grain_bytes(int64_t bytes);

/* Jobs that ran split over the pool since the process started (tests check
 * that a call really was split). */
int64_t simdops_pool_jobs(void);

/* Work on items [begin, end); returns a status (0 = SIMDOPS_OK). */
typedef int (*simdops_range_fn)(void *ctx, int64_t begin, int64_t end);

/* Calls fn over disjoint ranges that cover [0, n_items) exactly once, each at
 * least grain items long (except when all of it is shorter), on up to
 * simdops_get_num_threads() threads including the caller. Returns the first
 * non-zero status any range returned (every range still runs). Which thread
 * runs which range is unspecified: fn must give the same result for any
 * split. */
int simdops_parallel_for(int64_t n_items, int64_t grain, simdops_range_fn fn, void *ctx);

/* The process-wide thread count. set: SIMDOPS_E_PARAM unless
 * 1 <= n <= SIMDOPS_MAX_THREADS. */
SIMDOPS_THREAD_EXPORT int simdops_set_num_threads(int n);
SIMDOPS_THREAD_EXPORT int simdops_get_num_threads(void);

/* 1 when this build runs jobs on several threads, 0 for the single-thread
 * fallback. */
SIMDOPS_THREAD_EXPORT int simdops_threads_supported(void);

#endif
