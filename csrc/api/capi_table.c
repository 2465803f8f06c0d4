/* The one instance of the C API table, exported to other extensions as the
 * capsule simdops._C_API. Append-only: see simdops/simdops_capi.h. */
#include "api/capi_table.h"

static const simdops_capi capi_table = {
    .abi_version = SIMDOPS_CAPI_VERSION,
    .size = (uint32_t)sizeof(simdops_capi),
    /* version 1 */
    .status_message = simdops_status_message,
    .error_format = simdops_error_format,
    .dtype_size = simdops_dtype_size,
    .dtype_name = simdops_dtype_name,
    .op_supports = simdops_op_supports,
    .isa = simdops_isa,
    .set_thread_isa = simdops_set_thread_isa,
    .clip = simdops_clip,
    .shrink = simdops_shrink,
    .hardmax = simdops_hardmax,
    .requant = simdops_requant,
    .prepare_clip = simdops_prepare_clip,
    .prepare_shrink = simdops_prepare_shrink,
    .prepare_requant = simdops_prepare_requant,
    .clip_prepared = simdops_clip_prepared,
    .shrink_prepared = simdops_shrink_prepared,
    .requant_prepared = simdops_requant_prepared,
    .clip_1d = simdops_clip_1d,
    .shrink_1d = simdops_shrink_1d,
    .hardmax_rows = simdops_hardmax_rows,
    .requant_1d = simdops_requant_1d,
    .requant_pc_1d = simdops_requant_pc_1d,
    /* version 2: the requantization families, then the ONNX profile */
    .prepare_requant_rounding = simdops_prepare_requant_rounding,
    .prepare_requant_fp = simdops_prepare_requant_fp,
    .requant_fp_prepared = simdops_requant_fp_prepared,
    .requant_fp_pc_1d = simdops_requant_fp_pc_1d,
    .quantize_linear = simdops_quantize_linear,
    .dequantize_linear = simdops_dequantize_linear,
    .clip_onnx = simdops_clip_onnx,
    .shrink_onnx = simdops_shrink_onnx,
};

const simdops_capi *simdops_capi_table(void) { return &capi_table; }
