"""LiteRT's builtin reference FULLY_CONNECTED with per-channel weight scales (what TF's
converter emits for Dense) reproduced with its float64 per-channel scales, not rounded to
float32: simdops.requantize_fp32(**simdops.runtimes.litert_fc_params(...)) against LiteRT on
random per-channel layers (one in five next to ties), and a layer whose double scales round
to float32 across a tie (where the float32-rounded scales give another output)."""
import numpy as np
import pytest

pytest.importorskip("ai_edge_litert", reason="ai-edge-litert is not installed "
                    "(pip install ai-edge-litert): the LiteRT proof needs it")
pytest.importorskip("flatbuffers", reason="flatbuffers (an ai-edge-litert dependency) is missing")

import simdops  # noqa: E402
import simdops.runtimes  # noqa: E402
import reference as ref  # noqa: E402
import runtime_models as rm  # noqa: E402


def simdops_fc(layer):
    params = simdops.runtimes.litert_fc_params(layer.x_scale, layer.w_scales, layer.out_scale,
                                               layer.out_zp)
    return simdops.requantize_fp32(layer.accumulators(), bias=layer.bias, **params)


def test_litert_reference_fc_per_channel_double_scales():
    layers = rm.layers(29, per_channel=True)
    outputs = rm.run_litert(rm.litert_model(layers, "fc"), layers, "reference")
    differ = elements = 0
    for layer, got in zip(layers, outputs):
        want = ref.requantize_fp32(layer.accumulators(), layer.scales_double(), layer.out_zp,
                                   bias=layer.bias, out_dtype="int8", precision="float64",
                                   ties="away")
        assert np.array_equal(got, want)
        differ += int(np.count_nonzero(got != simdops_fc(layer)))
        elements += got.size
    assert elements > 10 * len(layers)
    assert differ == 0, f"{differ} of {elements} outputs differ from simdops"


def test_litert_double_scale_is_not_its_float32_rounding():
    # depth 1, every int8 activation against 16 channels of weight 127 with random float32
    # scales: the double scale s[n] = x_scale * w_scale[n] / out_scale and its float32
    # rounding put some acc * s on different sides of a half
    rng = np.random.default_rng(5)
    x = np.arange(-128, 128, dtype=np.int8).reshape(-1, 1)
    for _ in range(2000):
        w_scales = (2.0 ** rng.uniform(-8, -6, 16)).astype(np.float32)
        x_scale = float(np.float32(2.0 ** rng.uniform(-6, -4)))
        out_scale = float(np.float32(x_scale * float(w_scales.max()) * 130))
        layer = rm.Layer(x, x_scale, 0, np.full((16, 1), 127, np.int8), w_scales,
                         np.zeros(16, np.int32), out_scale, 0, True)
        s64 = layer.scales_double()
        acc = layer.accumulators().astype(np.float64)
        r64 = np.sign(acc * s64) * np.floor(np.abs(acc * s64) + 0.5)
        s32 = s64.astype(np.float32).astype(np.float64)
        r32 = np.sign(acc * s32) * np.floor(np.abs(acc * s32) + 0.5)
        if ((np.abs(r64) < 127) & (r64 != r32)).any():
            break
    else:
        pytest.fail("no layer separates the double scales from their float32 rounding")
    got = rm.run_litert(rm.litert_model([layer], "fc"), [layer], "reference")[0]
    assert np.array_equal(got, simdops_fc(layer))
    f32 = simdops.requantize_fp32(layer.accumulators(), s64.astype(np.float32), 0,
                                  out_dtype="int8", precision="float64", ties="away")
    assert not np.array_equal(got, f32)
