/* requant kernels called directly on an L2-resident block (compute cost only):
 * min-of-many thread CPU time per element. Build like cbench (tools/cbench.sh links it too). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "internal.h"

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

enum { N = 16384, CH = 256 };

int main(int argc, char **argv)
{
    static int32_t x[N], mult[N], shift[N], bias[N];
    static uint8_t y[N];
    const simdops_kernel_table *kt = simdops_active_kernels();
    simdops_requant_params p = {1125899907, 0, 9, 100, 0, 255};
    double best_pt = 1e9, best_pc = 1e9;
    for (int i = 0; i < N; i++) {
        x[i] = rand() % 300000 - 150000;
        mult[i] = 1100000000 + (i % CH) * 1000000;
        shift[i] = 10 + (i & 1);
        bias[i] = 40 * ((i % CH) - 128);
    }
    for (int r = 0; r < (argc > 1 ? atoi(argv[1]) : 200); r++) {
        double t0 = now();
        for (int k = 0; k < 20; k++)
            kt->requant[SIMDOPS_RQ_U8](x, y, N, NULL, &p);
        double t1 = now();
        /* per-channel rows of CH, as the strided driver calls it */
        simdops_requant_params q = p;
        q.min = 10;
        q.max = 245;
        for (int k = 0; k < 20; k++)
            for (int row = 0; row < N; row += CH)
                kt->requant_pc[SIMDOPS_RQ_U8](x + row, y + row, CH, bias, mult, shift, &q);
        double t2 = now();
        if (t1 - t0 < best_pt) best_pt = t1 - t0;
        if (t2 - t1 < best_pc) best_pc = t2 - t1;
    }
    printf("%s per-tensor %.3f ns/elem  pc+bias %.3f ns/elem  pc/pt speed %.2f\n", kt->isa,
           best_pt / 20 / N * 1e9, best_pc / 20 / N * 1e9, best_pt / best_pc);
    return 0;
}
