/* Which ISA translation units have their instructions enabled. Each
 * kernels/<op>/<op>_<isa>.c is wrapped in #if SIMDOPS_COMPILE_<ISA>, so a
 * compiler run without the ISA's flag yields a tier that is "not compiled"
 * rather than a broken build. MSVC needs no flag below AVX2 on x64. */
#ifndef SIMDOPS_ISA_H
#define SIMDOPS_ISA_H

#if defined(__SSE2__) || defined(_M_X64)
#define SIMDOPS_COMPILE_SSE2 1
#else
#define SIMDOPS_COMPILE_SSE2 0
#endif

#if defined(__SSE4_1__) || (defined(_MSC_VER) && defined(_M_X64))
#define SIMDOPS_COMPILE_SSE41 1
#else
#define SIMDOPS_COMPILE_SSE41 0
#endif

#if defined(__AVX2__) && (defined(__F16C__) || defined(_MSC_VER))
#define SIMDOPS_COMPILE_AVX2 1
#else
#define SIMDOPS_COMPILE_AVX2 0
#endif

/* AVX-512 F+BW+VL+DQ with AVX2 and F16C (MSVC's /arch:AVX512 defines the
 * __AVX512*__ macros and allows F16C). */
#if defined(__AVX512F__) && defined(__AVX512BW__) && defined(__AVX512VL__) &&               \
    defined(__AVX512DQ__) && SIMDOPS_COMPILE_AVX2
#define SIMDOPS_COMPILE_AVX512 1
#else
#define SIMDOPS_COMPILE_AVX512 0
#endif

#if defined(__aarch64__) || defined(_M_ARM64)
#define SIMDOPS_COMPILE_NEON 1
#else
#define SIMDOPS_COMPILE_NEON 0
#endif

/* The register function of a kernel file whose ISA is not compiled in: its
 * flags were missing, or the file is another architecture's (dispatch names
 * every listed file's register function on every target). */
#define SIMDOPS_TIER_NOT_COMPILED(op, isa)                    \
    int op##_register__##isa(simdops_kernel_table *t)         \
    {                                                         \
        (void)t;                                              \
        return 0;                                             \
    }

#endif
