"""LiteRT (ai-edge-litert) reproduced bit for bit, in its three CPU kernel modes.

Random int8 FULLY_CONNECTED and CONV_2D layers (written as .tflite flatbuffers here, no
TensorFlow) run in LiteRT; the same int32 accumulators, computed exactly with numpy, are
requantized by the family that mode uses:

- builtin reference kernels (OpResolverType.BUILTIN_REF): FULLY_CONNECTED is the float64
  family with ties away from zero, CONV_2D is gemmlowp double rounding (TFLite's
  QuantizeMultiplier pair);
- builtin optimized kernels (BUILTIN_WITHOUT_DEFAULT_DELEGATES, ruy on x86): double
  rounding with ties toward +inf in both steps (rounding="double_ties_up");
- the default XNNPACK delegate: the float32 family, scale (x_scale * w_scale) / out_scale
  in float32.

Each output is compared with tests/reference.py (the proof that the references are the
runtimes' arithmetic) and with simdops. RUNTIME_LAYERS sets the sweep (default 1000).
"""
import numpy as np
import pytest

pytest.importorskip("ai_edge_litert", reason="ai-edge-litert is not installed "
                    "(pip install ai-edge-litert): the LiteRT proof needs it")
pytest.importorskip("flatbuffers", reason="flatbuffers (an ai-edge-litert dependency) is missing")

import simdops  # noqa: E402
import reference as ref  # noqa: E402
import runtime_models as rm  # noqa: E402

CASES = [("fc", "reference"), ("conv", "reference"), ("fc", "optimized"),
         ("conv", "optimized"), ("fc", "xnnpack"), ("conv", "xnnpack")]


def family(op, mode):
    """The family a LiteRT kernel mode uses, and a different family to show the sweep
    tells them apart."""
    if mode == "xnnpack":
        return "fp32", "double_ties_up"
    if mode == "optimized":
        return "double_ties_up", "double"
    return ("fp64_away", "fp32") if op == "fc" else ("double", "double_ties_up")


def expected(layer, name, use_simdops):
    """The layer's int8 output by family ``name``, from the reference or from simdops."""
    acc = layer.accumulators()
    if name in ("fp32", "fp64_away"):
        if name == "fp32":
            scale, kw = layer.scale_float32(), {}
        else:
            scale, kw = layer.scale_double(), {"precision": "float64", "ties": "away"}
        if use_simdops:
            if name == "fp64_away" and layer.per_channel:
                # simdops takes per-channel scales as float32 (widened exactly): LiteRT's
                # double scales rounded to float32 give the same outputs on this sweep
                scale = scale.astype(np.float32)
            return simdops.requantize_fp32(acc, scale, layer.out_zp, bias=layer.bias,
                                           out_dtype="int8", **kw)
        return ref.requantize_fp32(acc, scale, layer.out_zp, bias=layer.bias,
                                   out_dtype="int8", **kw)
    if use_simdops:  # the pair from simdops too: proves quantize_multiplier("tflite")
        multiplier, shift = simdops.quantize_multiplier(layer.scales_double(), "tflite")
        return simdops.quantize_down_int32(acc, multiplier, shift, layer.out_zp,
                                           bias=layer.bias, out_dtype="int8", rounding=name)
    pairs = [ref.quantize_multiplier_tflite(s) for s in layer.scales_double().tolist()]
    return ref.requant_family(acc, [m for m, _ in pairs], [s for _, s in pairs], layer.out_zp,
                              bias=layer.bias, out_dtype="int8", rounding=name)


_RUNS = {}


def litert_outputs(op, mode, seed):
    """LiteRT's outputs for the sweep's layers (one model per op, cached per mode)."""
    key = (op, mode, seed)
    if key not in _RUNS:
        layers = rm.layers(seed)
        model = rm.litert_model(layers, op)
        if mode == "xnnpack":
            assert "DELEGATE" in rm.litert_op_names(model, mode)
        _RUNS[key] = layers, rm.run_litert(model, layers, mode)
    return _RUNS[key]


@pytest.mark.parametrize("op,mode", CASES)
def test_litert_reproduced_by_reference(op, mode):
    layers, outputs = litert_outputs(op, mode, seed=19)
    name, other = family(op, mode)
    differ = other_differ = elements = 0
    for layer, got in zip(layers, outputs):
        differ += int(np.count_nonzero(got != expected(layer, name, False)))
        elements += got.size
    for layer, got in zip(layers[1::len(rm.EDGES)], outputs[1::len(rm.EDGES)]):  # the ties
        other_differ += int(np.count_nonzero(got != expected(layer, other, False)))
    assert elements > 10 * len(layers)
    assert differ == 0, f"{differ} of {elements} outputs differ from the {name} family"
    # the sweep discriminates: the neighbouring family misses some of the same outputs
    assert other_differ > 0


@pytest.mark.parametrize("op,mode", CASES)
def test_litert_reproduced_by_simdops(op, mode):
    layers, outputs = litert_outputs(op, mode, seed=19)
    name, _ = family(op, mode)
    differ = elements = 0
    for layer, got in zip(layers, outputs):
        differ += int(np.count_nonzero(got != expected(layer, name, True)))
        elements += got.size
    assert differ == 0, f"{differ} of {elements} outputs differ from simdops' {name}"


@pytest.mark.parametrize("mode", rm.LITERT_MODES)
def test_litert_per_channel_and_per_tensor(mode):
    # both weight layouts, FULLY_CONNECTED, each reproduced by its family's reference
    for per_channel in (False, True):
        layers = rm.layers(23 + per_channel, count=100, per_channel=per_channel)
        outputs = rm.run_litert(rm.litert_model(layers, "fc"), layers, mode)
        name, _ = family("fc", mode)
        for layer, got in zip(layers, outputs):
            assert np.array_equal(got, expected(layer, name, False))


def _large_multiplier_layer():
    """Multiplier 40000 (the builtin kernels accept it; XNNPACK refuses scales >= 256):
    products past 2**31 and left shifts that wrap in int32."""
    layer = rm.random_layer(np.random.default_rng(1), per_channel=False)
    layer.out_scale = float(np.float32(layer.x_scale * float(layer.w_scales[0]) / 40000))
    return layer


def test_litert_large_multipliers():
    layer = _large_multiplier_layer()
    acc = layer.accumulators()
    scale = layer.scales_double()
    products = np.abs((acc.astype(np.int64) + layer.bias) * scale)
    assert (products >= 2.0 ** 31).any()
    multiplier, shift = ref.quantize_multiplier_tflite(float(scale[0]))
    assert shift < 0
    fc_ref = rm.run_litert(rm.litert_model([layer], "fc"), [layer], "reference")[0]
    family = ref.requantize_fp32(acc, scale, layer.out_zp, bias=layer.bias, out_dtype="int8",
                                 precision="float64", ties="away")
    quirk = ref.requantize_fp64_litert_reference(acc, scale, layer.out_zp, bias=layer.bias)
    # the reference FC converts an out-of-range double to INT32_MIN: saturates low
    assert np.array_equal(fc_ref, quirk)
    assert not np.array_equal(fc_ref, family)
    # the fixed-point kernels shift left in int32 first, which wraps (atlas row 8)
    for op, mode, rounding in (("conv", "reference", "double"),
                               ("fc", "optimized", "double_ties_up"),
                               ("conv", "optimized", "double_ties_up")):
        got = rm.run_litert(rm.litert_model([layer], op), [layer], mode)[0]
        want = ref.requant_family(acc, multiplier, shift, layer.out_zp, bias=layer.bias,
                                  out_dtype="int8", rounding=rounding)
        assert np.array_equal(got, want), (op, mode)
        assert not np.array_equal(got, family)


def test_litert_large_multipliers_simdops():
    # simdops' fixed-point families wrap as LiteRT does; its float64 family saturates
    layer = _large_multiplier_layer()
    acc = layer.accumulators()
    multiplier, shift = simdops.quantize_multiplier(float(layer.scales_double()[0]), "tflite")
    for op, mode, rounding in (("conv", "reference", "double"),
                               ("fc", "optimized", "double_ties_up")):
        got = rm.run_litert(rm.litert_model([layer], op), [layer], mode)[0]
        assert np.array_equal(got, simdops.quantize_down_int32(
            acc, multiplier, shift, layer.out_zp, bias=layer.bias, out_dtype="int8",
            rounding=rounding))
    family = ref.requantize_fp32(acc, layer.scales_double(), layer.out_zp, bias=layer.bias,
                                 out_dtype="int8", precision="float64", ties="away")
    # a per-tensor layer: its one double scale as a Python float (per-channel scale arrays
    # are float32)
    assert np.all(layer.scales_double() == layer.scales_double()[0])
    assert np.array_equal(simdops.requantize_fp32(
        acc, float(layer.scales_double()[0]), layer.out_zp, bias=layer.bias, out_dtype="int8",
        precision="float64", ties="away"), family)


def _exact_layer(accs, x_scale, w_scale, out_scale):
    """A one-channel FC whose accumulators are exactly ``accs`` (depth 1, weight 1,
    zero points 0, bias 0) with power-of-two-friendly float32 scales."""
    x = np.array(accs, np.int8).reshape(-1, 1)
    return rm.Layer(x, x_scale, 0, np.ones((1, 1), np.int8), np.array([w_scale], np.float32),
                    np.zeros(1, np.int32), out_scale, 0, False)


def test_litert_optimized_rounds_twice():
    # s = 0.5 * 0.75 / 1 = 0.375 exactly: M = 3 * 2**29, shift 1. ruy's high-mul rounds
    # 1 * 0.75 up to 1, its rounding shift rounds 0.5 up again: 1, where one rounding of
    # 0.375 gives 0 (atlas row 5); -2: -1.5 -> -1 -> -0.5 -> 0 where round(-0.75) = -1
    accs = [1, 2, 3, -1, -2, -3, 5, -5]
    layer = _exact_layer(accs, 0.5, 0.75, 1.0)
    m, shift = ref.quantize_multiplier_tflite(0.375)
    assert (m, shift) == (3 << 29, 1)
    exact = np.array(accs) * 0.375
    got = {mode: rm.run_litert(rm.litert_model([layer], "fc"), [layer], mode)[0][:, 0].tolist()
           for mode in rm.LITERT_MODES}
    acc = layer.accumulators()
    assert acc[:, 0].tolist() == accs
    assert got["optimized"] == [1, 1, 1, 0, 0, -1, 2, -2]           # two roundings, both up
    assert got["xnnpack"] == [0, 1, 1, 0, -1, -1, 2, -2]            # round(0.375 * x), even
    assert got["reference"] == [0, 1, 1, 0, -1, -1, 2, -2]          # float64 (no ties here)
    assert np.round(exact).tolist() == got["xnnpack"]
    for rounding, mode in (("double_ties_up", "optimized"),):
        assert ref.requant_family(acc, m, shift, 0, out_dtype="int8",
                                  rounding=rounding)[:, 0].tolist() == got[mode]
    # one rounding of the same pair (the single family) gives 0 for 1: not what ruy does
    assert ref.requant_family(acc, m, shift, 0, out_dtype="int8",
                              rounding="single")[0, 0] == 0


def test_litert_optimized_rounds_twice_simdops():
    layer = _exact_layer([1, 2, 3, -1, -2, -3, 5, -5], 0.5, 0.75, 1.0)
    got = rm.run_litert(rm.litert_model([layer], "fc"), [layer], "optimized")[0]
    assert np.array_equal(simdops.quantize_down_int32(
        layer.accumulators(), 3 << 29, 1, 0, out_dtype="int8", rounding="double_ties_up"), got)
