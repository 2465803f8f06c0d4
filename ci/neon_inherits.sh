# shellcheck shell=bash
# The kernel-table entries that run the scalar kernel on aarch64 (no NEON kernel written
# yet; x86 has AVX2 ones): the int8 matmul accumulators and the int16 quantized add / multiply
# (TFLite's; their 8-bit kernels are native). The harness's --require-native neon fails on
# any other inherited entry (sourced by ci/neon.sh and ci/clang.sh).
NEON_INHERITS=int8_dot,int8_dot_pairsat,qadd_tflite,qmul_tflite
export NEON_INHERITS
