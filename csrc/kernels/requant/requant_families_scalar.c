/* Reference kernels of the requantization families (requant_families.h):
 * single rounding (ties up; ties away: TVM), LiteRT x86's two ties-up roundings, ACL's floor stage and the float
 * families, per tensor and per channel, into uint8 / int8 / int16. */
#include "kernels/registry.h"
#include "requant_families.h"

#define SIMDOPS_TIER scalar

/* an integer family's row from its start */
RQF_INLINE void rqf_int_row(const int32_t *x, void *y, size_t n, const int32_t *bias,
                            const simdops_requant_channels *ch, const simdops_requant_params *p,
                            int out, int fam)
{
    rqf_int_rest(x, y, 0, n, bias, ch, p, out, fam);
}

RQF_ENTRIES3(single, rqf_int_row, RQF_SINGLE)
RQF_ENTRIES3(single_away, rqf_int_row, RQF_SINGLE_AWAY)
RQF_ENTRIES3(ties_up, rqf_int_row, RQF_TIES_UP)
RQF_ENTRIES3(floor, rqf_int_row, RQF_FLOOR)
RQF_ENTRIES3(fp, rqf_fp_rows, 0)

#define RQF_KERNELS(X)                                                                 \
    RQF_LIST(X, single) RQF_LIST(X, ties_up) RQF_LIST(X, floor) RQF_LIST(X, fp)        \
    RQF_LIST(X, single_away)
SIMDOPS_DEFINE_REGISTER(requant_families, RQF_KERNELS)
