/* cpuid + xgetbv on x86 (no ISA flags needed here: inline asm / MSVC
 * intrinsics), NEON as the AArch64 baseline. */
#include "dispatch/cpu.h"

#if defined(__x86_64__) || defined(__i386__) || defined(_M_X64) || defined(_M_IX86)
#define SIMDOPS_X86 1
#if defined(_MSC_VER)
#include <intrin.h>
static void cpuid(int leaf, int sub, unsigned r[4])
{
    int v[4];
    __cpuidex(v, leaf, sub);
    r[0] = (unsigned)v[0]; r[1] = (unsigned)v[1]; r[2] = (unsigned)v[2]; r[3] = (unsigned)v[3];
}
static unsigned long long xgetbv0(void) { return _xgetbv(0); }
#else
#include <cpuid.h>
static void cpuid(int leaf, int sub, unsigned r[4])
{
    __cpuid_count(leaf, sub, r[0], r[1], r[2], r[3]);
}
static unsigned long long xgetbv0(void)
{
    unsigned lo, hi;
    __asm__ volatile(".byte 0x0f, 0x01, 0xd0" : "=a"(lo), "=d"(hi) : "c"(0));
    return ((unsigned long long)hi << 32) | lo;
}
#endif
#endif

static simdops_cpu detected;
static int detected_done;

const simdops_cpu *simdops_cpu_detect(void)
{
    simdops_cpu c = {0};
    if (detected_done)
        return &detected;
#ifdef SIMDOPS_X86
    {
        unsigned r[4], max_leaf, osxsave = 0;
        unsigned long long xcr0 = 0;
        cpuid(0, 0, r);
        max_leaf = r[0];
        if (max_leaf >= 1) {
            cpuid(1, 0, r);
            osxsave = (r[2] >> 27) & 1; /* xgetbv is usable */
        }
        if (osxsave)
            xcr0 = xgetbv0();
#define SIMDOPS_X_CPU_DETECT(name, leaf, sub, reg, bit, mask)                                   \
        if ((unsigned)(leaf) <= max_leaf) {                                                     \
            cpuid(leaf, sub, r);                                                                \
            c.name = ((r[reg] >> (bit)) & 1) && (xcr0 & (mask)) == (mask);                     \
        }
        SIMDOPS_CPU_FEATURES(SIMDOPS_X_CPU_DETECT)
#undef SIMDOPS_X_CPU_DETECT
    }
#elif defined(__aarch64__) || defined(_M_ARM64)
    c.neon = 1;
#endif
    detected = c; /* benign race: every thread computes the same value */
    detected_done = 1;
    return &detected;
}
