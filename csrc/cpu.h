/* Runtime CPU feature detection. */
#ifndef SIMDOPS_CPU_H
#define SIMDOPS_CPU_H

typedef struct simdops_cpu {
    int sse2, sse41, avx, avx2, f16c, fma, osxsave, os_ymm, neon;
} simdops_cpu;

/* Detected once; x86 uses cpuid plus xgetbv (the OS must save YMM state). */
const simdops_cpu *simdops_cpu_detect(void);

#endif
