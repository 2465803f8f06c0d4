"""How ONNX Runtime's quantized ops round, against simdops' fixed-point requant, on the same
exact int32 accumulators (the numbers of docs/semantics.md, "ONNX Runtime rounds differently").

ONNX Runtime's QLinearMatMul computes the int32 accumulators exactly, then requantizes in
float32: y = saturate(round_half_even(float32(acc) * float32(a_scale * b_scale / y_scale))
+ y_zero_point). simdops (gemmlowp / ACL) multiplies by a 31-bit fixed-point multiplier and
rounds in integers. This file checks, with onnxruntime installed:

- ORT's MatMulInteger gives numpy's exact accumulators (so both sides start equal);
- ORT's QLinearMatMul equals that float32 formula written in numpy (an independent model of
  ORT's rounding), and simdops equals the Python-int reference of the contract;
- the two never differ by more than 1, and do differ on some elements.

`python tests/test_ort_rounding.py` prints the table docs/semantics.md quotes.
"""
import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import reference  # noqa: E402
import simdops  # noqa: E402

M_ROWS, N_COLS = 256, 256
DEPTHS = (16, 256, 4096)
# (a_scale, b_scale, y_scale): an activation, a weight and an output scale of typical size
SCALE_SEEDS = range(8)


def _modules():
    try:
        import onnx
        import onnxruntime
        from onnx import TensorProto, helper
    except ImportError:
        return None
    return onnx, onnxruntime, helper, TensorProto


def _session(node_type, y_elem, scales):
    onnx, ort, helper, TP = _modules()
    a = helper.make_tensor_value_info("a", TP.UINT8, None)
    b = helper.make_tensor_value_info("b", TP.UINT8, None)
    y = helper.make_tensor_value_info("y", y_elem, None)
    if node_type == "MatMulInteger":
        inits = [helper.make_tensor("a_zp", TP.UINT8, [], [scales["a_zp"]]),
                 helper.make_tensor("b_zp", TP.UINT8, [], [scales["b_zp"]])]
        node = helper.make_node("MatMulInteger", ["a", "b", "a_zp", "b_zp"], ["y"])
    else:
        inits = [helper.make_tensor("a_scale", TP.FLOAT, [], [scales["a_scale"]]),
                 helper.make_tensor("a_zp", TP.UINT8, [], [scales["a_zp"]]),
                 helper.make_tensor("b_scale", TP.FLOAT, [], [scales["b_scale"]]),
                 helper.make_tensor("b_zp", TP.UINT8, [], [scales["b_zp"]]),
                 helper.make_tensor("y_scale", TP.FLOAT, [], [scales["y_scale"]]),
                 helper.make_tensor("y_zp", TP.UINT8, [], [scales["y_zp"]])]
        node = helper.make_node("QLinearMatMul", ["a", "a_scale", "a_zp", "b", "b_scale",
                                                  "b_zp", "y_scale", "y_zp"], ["y"])
    graph = helper.make_graph([node], node_type, [a, b], [y], initializer=inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    return ort.InferenceSession(model.SerializeToString(), options,
                                providers=["CPUExecutionProvider"])


def _case(seed, depth):
    """Inputs and scales chosen so the outputs spread over the uint8 range (few saturate)."""
    rng = np.random.default_rng([seed, depth])
    a = rng.integers(0, 256, (M_ROWS, depth), dtype=np.uint8)
    b = rng.integers(0, 256, (depth, N_COLS), dtype=np.uint8)
    a_scale = float(np.float32(rng.uniform(0.005, 0.05)))
    b_scale = float(np.float32(rng.uniform(0.001, 0.01)))
    # the accumulators' spread is about 74 * 74 * sqrt(depth) (centred uint8 values)
    acc_spread = 74.0 * 74.0 * np.sqrt(depth)
    y_scale = float(np.float32(a_scale * b_scale * acc_spread / rng.uniform(30, 60)))
    scales = dict(a_scale=a_scale, a_zp=128, b_scale=b_scale, b_zp=128, y_scale=y_scale,
                  y_zp=int(rng.integers(100, 156)))
    return a, b, scales


def _ort_float32_model(acc, scales):
    """ORT's requantization as documented by its kernels: a float32 multiplier, float32
    product, round half to even, add the zero point, saturate."""
    f32 = np.float32
    multiplier = f32(f32(scales["a_scale"]) * f32(scales["b_scale"])) / f32(scales["y_scale"])
    y = np.rint(acc.astype(f32) * multiplier).astype(np.int64) + scales["y_zp"]
    return np.clip(y, 0, 255).astype(np.uint8)


def compare(seed, depth):
    """One case: (simdops result, ORT result, exact accumulators, (m, shift, real, zero
    point), the float32 model's result)."""
    a, b, scales = _case(seed, depth)
    exact = (a.astype(np.int64) - scales["a_zp"]) @ (b.astype(np.int64) - scales["b_zp"])
    acc = exact.astype(np.int32)
    assert np.array_equal(acc, exact)
    ort_acc = _session("MatMulInteger", 6, scales).run(None, {"a": a, "b": b})[0]  # INT32 = 6
    assert np.array_equal(ort_acc, exact), "ORT's MatMulInteger accumulators are not exact"
    ort_y = _session("QLinearMatMul", 2, scales).run(None, {"a": a, "b": b})[0]   # UINT8 = 2
    f32 = np.float32
    real = float(f32(f32(scales["a_scale"]) * f32(scales["b_scale"])) / f32(scales["y_scale"]))
    m, shift = simdops.quantize_multiplier(real)
    ours = simdops.quantize_down_int32(acc, m, shift, scales["y_zp"], out_dtype="uint8")
    return ours, ort_y, acc, (m, shift, real, scales["y_zp"]), _ort_float32_model(acc, scales)


needs_ort = pytest.mark.skipif(_modules() is None, reason="onnxruntime / onnx not installed")


@needs_ort
@pytest.mark.parametrize("depth", DEPTHS)
def test_ort_requant_differs_by_at_most_one(depth):
    differing = 0
    for seed in SCALE_SEEDS[:3]:
        ours, ort_y, acc, (m, shift, real, zp), ort_model = compare(seed, depth)
        # each side is what its own definition says
        assert np.array_equal(ort_y, ort_model), "ORT no longer rounds as the float32 model"
        rows = slice(0, 8)       # the Python-int reference is slow: a few rows suffice
        assert np.array_equal(ours[rows], reference.requant(acc[rows], m, shift, zp))
        diff = ours.astype(np.int16) - ort_y.astype(np.int16)
        assert np.abs(diff).max() <= 1
        differing += int(np.count_nonzero(diff))
        # they differ only near a tie: simdops rounds twice (to 2**-shift, then to 1), which
        # moves a value by at most 2**-(shift+1); float32 moves acc * real by ~|x| * 2**-23
        inside = (diff != 0) & (ort_y > 0) & (ort_y < 255) & (ours > 0) & (ours < 255)
        exact = acc.astype(np.float64)[inside] * real
        bound = 2.0 ** -(shift + 1) + np.abs(exact) * 2.0 ** -22 + 1e-12
        assert np.all(np.abs(exact % 1.0 - 0.5) <= bound)
    assert differing > 0      # they are different roundings: some element shows it


def table():
    """Per depth, over the elements neither side saturates: how many, how many differ, the
    largest difference, how far from a rounding tie (x.5) the exact value acc * real of a
    differing element lies at most, and how many elements each side rounds differently from
    the exact value rounded to nearest."""
    rows = []
    for depth in DEPTHS:
        total = differ = ours_off = ort_off = 0
        worst = 0
        tie_distance = 0.0
        for seed in SCALE_SEEDS:
            ours, ort_y, acc, (m, shift, real, zp), _ = compare(seed, depth)
            inside = (ort_y > 0) & (ort_y < 255) & (ours > 0) & (ours < 255)
            exact = acc.astype(np.float64)[inside] * real      # exact: |acc| < 2**29
            nearest = np.floor(exact + 0.5) + zp
            ours_i, ort_i = ours[inside].astype(np.int64), ort_y[inside].astype(np.int64)
            d = np.abs(ours_i - ort_i)
            total += d.size
            differ += int(np.count_nonzero(d))
            worst = max(worst, int(d.max()))
            ours_off += int(np.count_nonzero(ours_i != nearest))
            ort_off += int(np.count_nonzero(ort_i != nearest))
            if d.any():
                frac = exact[d != 0] % 1.0
                tie_distance = max(tie_distance, float(np.abs(frac - 0.5).max()))
        rows.append((depth, total, differ, worst, tie_distance, ours_off, ort_off))
    return rows


if __name__ == "__main__":
    import onnxruntime
    print(f"onnxruntime {onnxruntime.__version__}, simdops {simdops.__version__} "
          f"({simdops.isa()}); {len(SCALE_SEEDS)} scale sets x {M_ROWS}x{N_COLS} outputs "
          "per depth K, elements neither side saturates")
    print("| K | elements | differ | max diff | differing: max distance from x.5 | "
          "simdops != round(exact) | ORT != round(exact) |")
    print("|---|---|---|---|---|---|---|")
    for depth, total, differ, worst, tie, ours_off, ort_off in table():
        print(f"| {depth} | {total:,} | {differ:,} ({differ / total:.3%}) | {worst} | "
              f"{tie:.4f} | {ours_off:,} ({ours_off / total:.3%}) | "
              f"{ort_off:,} ({ort_off / total:.3%}) |")
