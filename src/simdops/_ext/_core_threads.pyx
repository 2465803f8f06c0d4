# Intra-op threads (csrc/driver/threadpool.c): a fragment of _core.pyx (included by
# it, not a module of its own).
import operator

MAX_THREADS = SIMDOPS_MAX_THREADS


def set_num_threads(n):
    """Sets the process-wide number of threads a large call may use (default 1)."""
    v = operator.index(n)
    # values beyond a C int reach C as 0, which it rejects: the rule lives there
    if simdops_set_num_threads(v if -2**31 <= v < 2**31 else 0) != SIMDOPS_OK:
        raise ValueError(f"number of threads must be between 1 and {SIMDOPS_MAX_THREADS}, "
                         f"got {n!r}")


def get_num_threads():
    """The number of threads a large call may use."""
    return simdops_get_num_threads()


def threads_supported():
    """False when this build runs every call on the calling thread (Windows)."""
    return bool(simdops_threads_supported())


def _set_grain_bytes(bytes):
    """Sets the grain (bytes per thread, at least); returns the previous one.
    For tests and tuning runs: every other call uses the tuned default."""
    return simdops_set_grain_bytes(bytes)


def _pool_jobs():
    """How many calls have run split over the thread pool in this process."""
    return simdops_pool_jobs()
