/* Runtime CPU feature detection, generated from one list. */
#ifndef SIMDOPS_CPU_H
#define SIMDOPS_CPU_H

/* X(name, cpuid leaf, subleaf, register (0 eax, 1 ebx, 2 ecx, 3 edx), bit,
 *   XCR0 mask) -- one line per x86 feature a tier may test. A feature is set
 * when cpuid reports it and, for a nonzero mask, the OS has enabled every
 * state component of the mask in XCR0 (OSXSAVE set, xgetbv): 0x6 is XMM+YMM
 * (AVX), 0xe6 adds the AVX-512 opmask and both halves of the ZMM state. This
 * list makes the struct fields, the detection and simdops_cpu_features(). */
#define SIMDOPS_XCR0_YMM 0x6u
#define SIMDOPS_XCR0_ZMM 0xe6u
#define SIMDOPS_CPU_FEATURES(X)                                  \
    X(sse2, 1, 0, 3, 26, 0)                                      \
    X(sse41, 1, 0, 2, 19, 0)                                     \
    X(avx, 1, 0, 2, 28, SIMDOPS_XCR0_YMM)                        \
    X(avx2, 7, 0, 1, 5, SIMDOPS_XCR0_YMM)                        \
    X(f16c, 1, 0, 2, 29, SIMDOPS_XCR0_YMM)                       \
    X(fma, 1, 0, 2, 12, SIMDOPS_XCR0_YMM)                        \
    X(avx512f, 7, 0, 1, 16, SIMDOPS_XCR0_ZMM)                    \
    X(avx512dq, 7, 0, 1, 17, SIMDOPS_XCR0_ZMM)                   \
    X(avx512bw, 7, 0, 1, 30, SIMDOPS_XCR0_ZMM)                   \
    X(avx512vl, 7, 0, 1, 31, SIMDOPS_XCR0_ZMM)                   \
    X(avx512fp16, 7, 0, 3, 23, SIMDOPS_XCR0_ZMM)

typedef struct simdops_cpu {
#define SIMDOPS_X_CPU_FIELD(name, leaf, sub, reg, bit, xcr0) int name;
    SIMDOPS_CPU_FEATURES(SIMDOPS_X_CPU_FIELD)
#undef SIMDOPS_X_CPU_FIELD
    int neon; /* AArch64 baseline: no cpuid */
} simdops_cpu;

/* Detected once. */
const simdops_cpu *simdops_cpu_detect(void);

#endif
