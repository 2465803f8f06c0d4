/* Symbol versions that keep a wheel built on a new glibc at manylinux_2_17.
 *
 * glibc 2.32-2.34 moved pthread_sigmask, pthread_create, pthread_once and
 * pthread_attr_setstacksize from libpthread into libc under new symbol
 * versions, so a thread pool linked on this machine's glibc 2.36 would need
 * GLIBC_2.34 and auditwheel would tag it manylinux_2_34. The old versions stay
 * in libc as compatibility symbols: binding to them (the base version of the
 * architecture) links the same calls an old glibc provides. The dynamic
 * linker matches a versioned symbol by its version name in every loaded
 * object, so on glibc < 2.34 the definition comes from libpthread.so.0 (which
 * setup.py adds as a dependency). Release wheels are built on manylinux2014
 * (glibc 2.17), where these lines name the symbols' only versions.
 * Include after <pthread.h>, in the one file that calls these functions. */
#ifndef SIMDOPS_GLIBC_COMPAT_H
#define SIMDOPS_GLIBC_COMPAT_H

#if defined(__linux__) && defined(__GLIBC__) && !defined(SIMDOPS_NO_GLIBC_COMPAT)
#if defined(__x86_64__)
#define SIMDOPS_GLIBC_BASE "GLIBC_2.2.5"
#elif defined(__aarch64__)
#define SIMDOPS_GLIBC_BASE "GLIBC_2.17"
#endif
#ifdef SIMDOPS_GLIBC_BASE
__asm__(".symver pthread_create,pthread_create@" SIMDOPS_GLIBC_BASE);
__asm__(".symver pthread_once,pthread_once@" SIMDOPS_GLIBC_BASE);
__asm__(".symver pthread_attr_setstacksize,pthread_attr_setstacksize@" SIMDOPS_GLIBC_BASE);
__asm__(".symver pthread_sigmask,pthread_sigmask@" SIMDOPS_GLIBC_BASE);
#endif
#endif

#endif
