/* The few atomics the C core orders memory with, on one type (a long: what MSVC's
 * _Interlocked* take): a load-acquire, a store-release and an exchange-acquire.
 * dispatch.c publishes its built tables and the process tier with them, and
 * driver/binary.c takes and gives back its kept tile's flag; written once here so
 * the GCC / MSVC split is spelled once. (driver/threadpool.c's counters are relaxed
 * and under its mutex: its own macros.) */
#ifndef SIMDOPS_ATOMIC_INT_H
#define SIMDOPS_ATOMIC_INT_H

#if defined(_MSC_VER)
#include <intrin.h>
typedef volatile long simdops_atomic_int;
static inline int simdops_load_acquire(simdops_atomic_int *p)
{
    return (int)_InterlockedOr(p, 0);
}
static inline void simdops_store_release(simdops_atomic_int *p, int v)
{
    _InterlockedExchange(p, v);
}
/* the old value */
static inline int simdops_exchange_acquire(simdops_atomic_int *p, int v)
{
    return (int)_InterlockedExchange(p, v);
}
#else
typedef long simdops_atomic_int;
static inline int simdops_load_acquire(simdops_atomic_int *p)
{
    return (int)__atomic_load_n(p, __ATOMIC_ACQUIRE);
}
static inline void simdops_store_release(simdops_atomic_int *p, int v)
{
    __atomic_store_n(p, (long)v, __ATOMIC_RELEASE);
}
/* the old value */
static inline int simdops_exchange_acquire(simdops_atomic_int *p, int v)
{
    return (int)__atomic_exchange_n(p, (long)v, __ATOMIC_ACQUIRE);
}
#endif

#endif
