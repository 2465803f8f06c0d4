"""The divergence atlas's counterexamples for the runtimes' chains (docs/requantization.md,
rows 14-25): each pair of calls told apart by one input, every output checked against
the formula written out here in numpy float32 / Python ints, and the pair shown to
differ."""
from fractions import Fraction

import numpy as np
import pytest

import simdops
from simdops import runtimes

F = np.float32


def rne(v):
    return int(np.rint(np.float64(v)))


def test_14_onednn_chain_vs_one_combined_scale():
    s_a, s_w, s_o, acc = F(0.02), F(0.5), F(0.1), -1255
    chain = rne(F(F(F(F(acc) * s_a) * s_w) * F(F(1) / s_o)))
    combined = rne(F(F(acc) * F(F(s_a * s_w) / s_o)))
    assert (chain, combined) == (-126, -125)
    x = np.array([acc] * 40, np.int32)
    p = runtimes.onednn_requant_params(s_a, s_w, s_o)
    assert (simdops.requantize_fp32(x, **p) == chain).all()
    assert (simdops.requantize_fp32(x, float(F(F(s_a * s_w) / s_o)), out_dtype="int8")
            == combined).all()


def test_15_onednn_jit_reciprocal_vs_reference_division():
    s_a, s_w, s_o, acc = F(0.1), F(0.3), F(0.7), -105
    jit = rne(F(F(F(F(acc) * s_a) * s_w) * F(F(1) / s_o)))
    ref = rne(F(F(F(F(acc) * s_a) * s_w) / s_o))
    assert (jit, ref) == (-5, -4)
    x = np.array([acc] * 40, np.int32)
    assert (simdops.requantize_fp32(x, **runtimes.onednn_requant_params(s_a, s_w, s_o)) == jit).all()
    assert (simdops.requantize_fp32(x, **runtimes.onednn_requant_params(
        s_a, s_w, s_o, reference=True)) == ref).all()


def test_16_fbgemm_float_bias_vs_int32_bias():
    s_a, s_w, s_o, bias, acc = F(0.02), F(0.005), F(0.05), F(0.00025), -49253
    S = s_a * s_w
    fb = F(bias / S)  # 2.5000002: added unrounded
    float_bias = rne(F(F(F(acc) + fb) * F(S / s_o)))
    int_bias = rne(F(F(acc + rne(fb)) * F(S / s_o)))  # the int32-bias recipe rounds it to 3
    assert (float_bias, int_bias) == (-99, -98)
    x = np.array([[acc]] * 40, np.int32)
    p = runtimes.fbgemm_float_bias_params([bias], s_a, s_w, s_o, 0, out_dtype="int8")
    assert (simdops.requantize_fp32(x, **p) == float_bias).all()
    assert (simdops.requantize_fp32(x, p["scale"], bias=np.array([3], np.int32),
                                    out_dtype="int8") == int_bias).all()


def test_17_openvino_fused_fakequantize_vs_fp32_with_zero_point():
    s_a, s_w, il, ih, acc = F(0.0123), F(0.004), F(-2.5), F(2.48), -50614
    S = s_a * s_w
    il_n, ih_n = il / S, ih / S
    m = F(F(255) / F(ih_n - il_n))
    b = F(F(-il_n * F(255)) / F(ih_n - il_n))  # 128.012: not the integer zero point
    # per tensor OpenVINO runs one fused multiply-add: acc * m + b rounded once (0.50136)
    exact = Fraction(acc) * Fraction(float(m)) + Fraction(float(b))
    ov = min(max(rne(F(float(exact))), 0), 255)
    s_out = F(F(ih - il) / F(255))
    zp = rne(-il / s_out)
    fp = min(max(rne(F(F(acc) * F(S / s_out))) + zp, 0), 255)
    assert (ov, fp) == (1, 0)
    x = np.array([acc] * 40, np.int32)
    assert (runtimes.openvino_fq_requant(x, s_a, s_w, il, ih, 0, 255) == ov).all()
    assert (simdops.requantize_fp32(x, float(F(S / s_out)), zp) == fp).all()


def test_18_add_half_vs_ties_away():
    below = F(np.nextafter(F(0.5), F(0)))  # 0.49999997
    x = np.array([1] * 40, np.int32)
    assert (simdops.requantize_fp32(x, below, ties="add_half", out_dtype="int8") == 1).all()
    assert (simdops.requantize_fp32(x, below, ties="away", out_dtype="int8") == 0).all()


def test_19_single_away_vs_single():
    x = np.array([-1] * 40, np.int32)  # -1 * 2^30 / 2^31 = -0.5
    assert (simdops.quantize_down_int32(x, 1 << 30, 0, out_dtype="int8",
                                        rounding="single_away") == -1).all()
    assert (simdops.quantize_down_int32(x, 1 << 30, 0, out_dtype="int8",
                                        rounding="single") == 0).all()


def test_20_litert_double_per_channel_scales_vs_float32_scales():
    s_in, s_w, s_o, acc = 0.045349787920713425, 0.0013404169585555792, 0.09062259644269943, 134918
    assert all(float(F(v)) == v for v in (s_in, s_w, s_o))  # the model's float32 numbers
    d = s_in * s_w / s_o
    assert (acc * d, acc * float(F(d))) < (90.5, 91) and acc * float(F(d)) >= 90.5
    x = np.array([[acc, acc]] * 20, np.int32)
    p = runtimes.litert_fc_params(s_in, [s_w, s_w], s_o, 0)
    assert (simdops.requantize_fp32(x, **p) == 90).all()
    f32 = dict(p, scale=p["scale"].astype(np.float32))
    assert (simdops.requantize_fp32(x, **f32) == 91).all()


def test_21_openvino_quantize_linear_vs_onnx():
    s = F(0.0137)
    x = F(F(-111.5) * s)  # -1.52755
    onnx = rne(F(x / s))
    assert onnx == -112
    assert runtimes.openvino_quantize_linear(np.array([x]), s, 0, "int8").tolist() == [-111]


def test_22_executorch_reciprocal_vs_onnx_division():
    s = F(0.0137)
    x = F(F(-111.5) * s)
    assert rne(F(x * F(F(1) / s))) == -111 and rne(F(x / s)) == -112
    assert runtimes.executorch_quantize_per_tensor(np.array([x]), s, 0, -128, 127,
                                                   "int8").tolist() == [-111]


def test_23_onednn_brgemm_chain_vs_avx2_gemm_combined():
    """oneDNN's brgemm (AVX-512 CPUs) multiplies by s_a then s_w; its gemm kernel (AVX2
    CPUs, what torch runs under ONEDNN_MAX_CPU_ISA=AVX2) by f32(s_a * s_w)."""
    s_a, s_w, s_o, acc = F(0.03), F(0.007), F(0.05), -2500
    inv = F(F(1) / s_o)
    brgemm = rne(F(F(F(F(acc) * s_a) * s_w) * inv))  # -10.500001
    gemm = rne(F(F(F(acc) * F(s_a * s_w)) * inv))    # -10.5
    assert (brgemm, gemm) == (-11, -10)
    x = np.array([acc] * 40, np.int32)
    assert (simdops.requantize_fp32(x, **runtimes.onednn_requant_params(s_a, s_w, s_o))
            == brgemm).all()
    assert (simdops.requantize_fp32(x, **runtimes.onednn_requant_params(
        s_a, s_w, s_o, kernel="gemm")) == gemm).all()
    fo = runtimes.onednn_float_output(x, s_a, s_w)
    fg = runtimes.onednn_float_output(x, s_a, s_w, kernel="gemm")
    assert fo[0] == F(F(F(acc) * s_a) * s_w) and fg[0] == F(F(acc) * F(s_a * s_w))
    assert fo[0] != fg[0]


def test_24_onednn_zero_point_before_rounding_vs_fbgemm_after():
    """oneDNN (PyTorch's x86 path) adds the output zero point in float32 before rounding,
    fbgemm / the fp32 family after; they differ on a tie with an odd zero point
    (tests/test_runtime_torch_x86.py runs this layer in both runtimes)."""
    acc, s_a, s_w, s_o, zp = -824, 2.0 ** -6, 2.0 ** -5, 2.0 ** -7, 115
    v = F(F(F(F(acc) * F(s_a)) * F(s_w)) * F(1 / s_o))
    assert v == -51.5
    assert (rne(F(v + zp)), rne(v) + zp) == (64, 63)
    x = np.array([acc] * 40, np.int32)
    p = runtimes.onednn_requant_params(s_a, s_w, s_o, zp, out_dtype="uint8")
    assert (simdops.requantize_fp32(x, **p) == 64).all()
    assert (simdops.requantize_fp32(x, s_a * s_w / s_o, zp) == 63).all()


def test_25_avx2_pair_saturation_vs_vnni_exact():
    """The same u8 x s8 layer on an AVX2 CPU (VPMADDUBSW: each pair saturates to int16)
    and on one with VNNI (exact), then oneDNN's requantization: the outputs differ by far
    more than a rounding (tests/test_runtime_torch_x86.py runs torch under
    ONEDNN_MAX_CPU_ISA=AVX2)."""
    a = np.array([[255, 255, 255, 0]], np.uint8)
    w = np.full((4, 1), 127, np.int8)
    exact = simdops.int8_matmul_accumulators(a, w)
    pairs = simdops.int8_matmul_accumulators(a, w, pair_saturation=True)
    assert (int(exact[0, 0]), int(pairs[0, 0])) == (97155, 32767 + 32385)
    p = runtimes.onednn_requant_params(2.0 ** -8, 2.0 ** -6, 2.0 ** -3, 0, out_dtype="uint8")
    # 97155 / 2048 = 47.44 and 65152 / 2048 = 31.81
    assert int(simdops.requantize_fp32(exact, **p)[0, 0]) == 47
    assert int(simdops.requantize_fp32(pairs, **p)[0, 0]) == 32
