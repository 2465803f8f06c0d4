"""simdops.runtimes' OpenVINO layer helpers without OpenVINO: the activation decomposition
(openvino_activation_quantization) on hand-checked ranges, the zero point and bias forms
of openvino_fq_requant(_params) against Fractions, and their errors. The runtime proof
is tests/test_runtime_openvino.py."""
from fractions import Fraction

import numpy as np
import pytest

import simdops
from simdops import runtimes

F = np.float32
RNG = np.random.default_rng(2026)


def f32(fr):
    """The float32 nearest the Fraction fr, ties to even."""
    f = F(float(fr))
    best = min((F(np.nextafter(f, F(-np.inf))), f, F(np.nextafter(f, F(np.inf)))),
               key=lambda v: (abs(Fraction(float(v)) - fr), int(np.array(v).view(np.int32)) & 1))
    return best


@pytest.mark.parametrize("ol, oh, dtype, zero_point", [
    (0.0, 2.55, "uint8", 0.0),            # unsigned, low end 0: no zero point
    (-1.28, 1.27, "int8", 0.0),           # symmetric: int8
    (-1.2801, 1.27, "int8", 0.0),         # within 0.2 % of -256/254: int8, zero point dropped
    (-1.0, 1.27, "uint8", None),          # asymmetric: uint8 with a zero point
    (-2.0, 0.0, "uint8", None),           # high end 0: uint8, zero point 255
    (0.5, 2.0, "uint8", None),            # both positive, low end not 0
])
def test_activation_quantization(ol, oh, dtype, zero_point):
    a = runtimes.openvino_activation_quantization(ol, oh)
    assert a["dtype"] == dtype
    qmin, qmax = (0, 255) if dtype == "uint8" else (-128, 127)
    assert a["input_scale"] == F(F(F(oh) - F(ol)) / F(qmax - qmin))
    if zero_point is None:  # (qmin * oh - qmax * ol) / (oh - ol), each step rounded
        want = F(F(F(F(qmin) * F(oh)) - F(F(qmax) * F(ol))) / F(F(oh) - F(ol)))
        assert a["zero_point"] == want and want != 0
    else:
        assert a["zero_point"] == zero_point
    assert runtimes.openvino_activation_quantization(-2.0, 0.0)["zero_point"] == 255


def _layer(n, k, per_channel):
    w = RNG.integers(-127, 128, (n, k)).astype(np.int8)
    q = RNG.integers(0, 256, (24, k)).astype(np.uint8)
    s_w = (2.0 ** RNG.uniform(-9, -5, n if per_channel else 1)).astype(F)
    return w, q, s_w


def _chain(acc, scale, shift, sub=None):
    """f32(f32(f32(acc) - sub) * scale) + shift, RNE, clamp: Fractions, one rounding each."""
    out = np.empty(acc.shape, np.int64)
    for (i, j), a in np.ndenumerate(acc):
        v = Fraction(int(a))
        if sub is not None:
            v = Fraction(float(f32(v - Fraction(float(sub[j])))))
        v = Fraction(float(f32(v * Fraction(float(scale[j])))))
        v = f32(v + Fraction(float(shift[j])))
        out[i, j] = min(max(int(np.rint(v)), -128), 127)
    return out


def test_zero_point_compensation_folded_into_ranges():
    w, q, s_w = _layer(5, 23, True)
    s_a, zp = 0.0123, F(83.25)  # a float zero point, as OpenVINO may derive
    il, ih = -2.5, 2.48
    acc = simdops.int8_matmul_accumulators(q, np.ascontiguousarray(w.T))
    p = runtimes.openvino_fq_requant_params(s_a, s_w, il, ih, -128, 127, zero_point=zp,
                                            weights=w)
    comp = np.zeros(5, F)
    for kk in range(w.shape[1]):  # zp times the weights, in order of k
        comp = (comp + (zp * w[:, kk].astype(F)).astype(F)).astype(F)
    S = (F(s_a) * s_w).astype(F)
    ilp = ((F(il) / S).astype(F) + comp).astype(F)
    ihp = ((F(ih) / S).astype(F) + comp).astype(F)
    m = (F(255) / (ihp - ilp)).astype(F)
    b = ((-ilp * F(255)).astype(F) / (ihp - ilp)).astype(F)
    assert np.array_equal(p["scale"], m)
    assert np.array_equal(p["bias"], (b - F(128)).astype(F))
    want = _chain(acc, m, (b - F(128)).astype(F))
    np.testing.assert_array_equal(simdops.requantize_fp32(acc, **p), want)
    np.testing.assert_array_equal(runtimes.openvino_fq_requant(
        acc, s_a, s_w, il, ih, -128, 127, zero_point=zp, weights=w), want)


@pytest.mark.parametrize("zero_point", [0.0, 17.0])
def test_bias_folded_into_the_fake_quantize_shift(zero_point):
    w, q, s_w = _layer(6, 9, True)
    s_a, il, ih = 0.0123, -2.5, 2.48
    bias = (RNG.uniform(-0.5, 0.5, 6)).astype(F)
    acc = simdops.int8_matmul_accumulators(q, np.ascontiguousarray(w.T))
    isc = F(F(255) / F(F(ih) - F(il)))
    ish = F(F(-F(il) * F(255)) / F(F(ih) - F(il)))
    scale = (isc * (F(s_a) * s_w).astype(F)).astype(F)
    shift = ((ish + (bias * isc).astype(F)).astype(F) - F(128)).astype(F)
    sub = None
    if zero_point:
        sub = (F(zero_point) * w.astype(np.int64).sum(1)).astype(F)  # exact: integers
    want = _chain(acc, scale, shift, sub)
    got = runtimes.openvino_fq_requant(acc, s_a, s_w, il, ih, -128, 127,
                                       zero_point=zero_point, weights=w, bias=bias)
    np.testing.assert_array_equal(got, want)
    if zero_point:  # the compensation comes first: requantize_fp32 has no such step
        with pytest.raises(ValueError, match="openvino_fq_requant"):
            runtimes.openvino_fq_requant_params(s_a, s_w, il, ih, -128, 127,
                                                zero_point=zero_point, weights=w, bias=bias)
    else:
        p = runtimes.openvino_fq_requant_params(s_a, s_w, il, ih, -128, 127, bias=bias)
        assert p["bias_at"] == "scaled"
        np.testing.assert_array_equal(simdops.requantize_fp32(acc, **p), want)


@pytest.mark.parametrize("n, per_channel", [(1, False), (4, False), (4, True)])
def test_bias_of_one_value_folded_into_ranges(n, per_channel):
    w, q, s_w = _layer(n, 7, per_channel)
    s_a, il, ih, bias = 0.0123, -2.5, 2.48, np.full(n, 0.3, F)
    acc = simdops.int8_matmul_accumulators(q, np.ascontiguousarray(w.T))
    sw = s_w if per_channel else s_w[0]
    got = runtimes.openvino_fq_requant(acc, s_a, sw, il, ih, -128, 127, bias=bias)
    same = runtimes.openvino_fq_requant(acc, s_a, sw, F(F(il) - bias[0]),
                                        F(F(ih) - bias[0]), -128, 127)
    np.testing.assert_array_equal(got, same)


def test_errors():
    w = np.ones((3, 4), np.int8)
    with pytest.raises(ValueError, match="weights="):
        runtimes.openvino_fq_requant_params(0.01, [0.1, 0.2, 0.3], -1, 1, -128, 127,
                                            zero_point=3.0)
    with pytest.raises(ValueError, match="output channels"):
        runtimes.openvino_fq_requant_params(0.01, [0.1, 0.2], -1, 1, -128, 127,
                                            zero_point=3.0, weights=w)
    # one shift with a zero point: the compensation first, numpy only (no error there)
    one_shift = dict(bias=np.array([0.25, 0.2500001, 0.25], F), zero_point=3.0, weights=w)
    with pytest.raises(ValueError, match="openvino_fq_requant"):
        runtimes.openvino_fq_requant_params(0.01, [0.1, 0.2, 0.3], -1, 1, -128, 127,
                                            **one_shift)
    assert runtimes.openvino_fq_requant(np.zeros((2, 3), np.int32), 0.01, [0.1, 0.2, 0.3],
                                        -1, 1, -128, 127, **one_shift).shape == (2, 3)
    with pytest.raises(ValueError, match="openvino_fq_requant"):  # without: numpy only
        runtimes.openvino_fq_requant_params(0.01, [0.1, 0.2, 0.3], -1, 1, -128, 127,
                                            bias=np.array([0.25, 0.2500001, 0.25], F))
    with pytest.raises(ValueError, match="bias"):
        runtimes.openvino_fq_requant_params(0.01, [0.1, 0.2, 0.3], -1, 1, -128, 127,
                                            bias=np.ones(2, F))
    with pytest.raises(ValueError, match="256 levels"):
        runtimes.openvino_activation_quantization(-1, 1, levels=16)
    with pytest.raises(ValueError, match="output_low < output_high"):
        runtimes.openvino_activation_quantization(1, 1)
    with pytest.raises(TypeError, match="zero_point"):
        runtimes.openvino_fq_requant_params(0.01, 0.1, -1, 1, -128, 127, zero_point="3")


def test_convolution_zero_point_compensated_in_integers():
    w, q, s_w = _layer(5, 30, True)
    s_a, il, ih, zp = 0.0123, -2.5, 2.48, 83.4  # rounded to 83 by OpenVINO
    acc = simdops.int8_matmul_accumulators(q, np.ascontiguousarray(w.T))
    got = runtimes.openvino_fq_requant(acc, s_a, s_w, il, ih, -128, 127, zero_point=zp,
                                       weights=w, layer="convolution")
    exact = (acc - 83 * w.astype(np.int64).sum(1)).astype(np.int32)
    np.testing.assert_array_equal(got, runtimes.openvino_fq_requant(exact, s_a, s_w, il, ih,
                                                                    -128, 127))
    p = runtimes.openvino_fq_requant_params(s_a, s_w, il, ih, -128, 127)
    np.testing.assert_array_equal(got, simdops.requantize_fp32(exact, **p))
    with pytest.raises(ValueError, match="zero_point=0"):
        runtimes.openvino_fq_requant_params(s_a, s_w, il, ih, -128, 127, zero_point=zp,
                                            weights=w, layer="convolution")
    with pytest.raises(ValueError, match="layer must be"):
        runtimes.openvino_fq_requant(acc, s_a, s_w, il, ih, -128, 127, layer="matmul")


@pytest.mark.parametrize("zero_point, il, ih", [(0.0, -2.5, 2.48), (83.4, -2.5, 2.48),
                                                (0.0, -2.56005, 2.54), (0.0, -2.5602, 2.54)])
def test_convolution_bias_per_channel(zero_point, il, ih):
    # oneDNN's convolution: the weight scale, then the bias, each rounded to float32;
    # then the FakeQuantize as one fused multiply-add (Fractions, one rounding), its
    # shift dropped below 1e-5 of the output range (-2.56005: 0.00125 is dropped,
    # -2.5602: 0.00499 is kept)
    w, q, s_w = _layer(5, 30, True)
    s_a = 0.0123
    bias = RNG.uniform(-0.5, 0.5, 5).astype(F)
    acc = simdops.int8_matmul_accumulators(q, np.ascontiguousarray(w.T))
    exact = acc.astype(np.int64) - int(np.rint(zero_point)) * w.astype(np.int64).sum(1)
    isc = F(F(255) / F(F(ih) - F(il)))
    shift = F(F(F(-F(il) * F(255)) / F(F(ih) - F(il))) - F(128))
    if abs(shift) < F(255) * F(1e-5):
        shift = F(0)
    S = (F(s_a) * s_w).astype(F)
    want = np.empty(acc.shape, np.int64)
    for (i, j), a in np.ndenumerate(exact):
        v = f32(f32(Fraction(int(a)) * Fraction(float(S[j]))) + Fraction(float(bias[j])))
        y = f32(Fraction(float(v)) * Fraction(float(isc)) + Fraction(float(shift)))
        want[i, j] = min(max(int(np.rint(y)), -128), 127)
    got = runtimes.openvino_fq_requant(acc, s_a, s_w, il, ih, -128, 127, weights=w,
                                       zero_point=zero_point, bias=bias,
                                       layer="convolution")
    np.testing.assert_array_equal(got, want)
    with pytest.raises(ValueError, match="openvino_fq_requant"):
        runtimes.openvino_fq_requant_params(s_a, s_w, il, ih, -128, 127, weights=w,
                                            zero_point=zero_point, bias=bias,
                                            layer="convolution")


def test_fake_quantize_params_without_openvino():
    # level counts the low-precision transformations do not take pass unchanged; 15
    # levels are uint8 with a zero point even for a symmetric range; errors name the
    # argument
    p = runtimes.openvino_fake_quantize_params(-1, 1, -2, 2, 17)
    assert (p["output_low"], p["output_high"], p["dtype"]) == (-2, 2, None)
    assert runtimes.openvino_fake_quantize_params(-1, 1, -2, 2, 15)["dtype"] == "uint8"
    p = runtimes.openvino_fake_quantize_params(-1, 1, -1.28, 1.27, 256)
    assert p["dtype"] == "int8"  # scale f32(2.55 / 255), no zero point
    scale = F(F(F(1.27) - F(-1.28)) / F(255))
    assert p["output_low"] == F(F(-128) * scale) and p["output_high"] == F(F(127) * scale)
    x = np.linspace(-1.5, 1.5, 101).astype(F)
    np.testing.assert_array_equal(
        runtimes.openvino_fake_quantize(x, -1, 1, -1.28, 1.27, 256),
        runtimes.fake_quantize(x, p["input_low"], p["input_high"], p["output_low"],
                               p["output_high"], 256))
    with pytest.raises(ValueError, match="levels"):
        runtimes.openvino_fake_quantize_params(-1, 1, -2, 2, 2)
    with pytest.raises(ValueError, match="levels"):
        runtimes.openvino_fake_quantize_params(-1, 1, -2, 2, True)
    with pytest.raises(ValueError, match="output_high"):
        runtimes.openvino_fake_quantize_params(-1, 1, -2, np.inf, 256)
    with pytest.raises(TypeError, match="input_low"):
        runtimes.openvino_fake_quantize_params("a", 1, -2, 2, 256)
