/* SSE4.1 kernels of the requantization families: requant_families_sse2.c's,
 * over rq_vec_sse41.h (pabsd, pminsb / pmaxsb) and compiled for SSE4.1 */
#define RQFX_SSE41 1
#include "requant_families_sse2.c"
