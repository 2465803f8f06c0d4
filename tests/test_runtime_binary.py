"""The quantized two-input ops (ADD, SUB, MUL) of LiteRT and ONNX Runtime reproduced bit
for bit.

Random cases (same shape and numpy broadcasting up to 6-D; int8, uint8, int16; fused
NONE / RELU / RELU6; random scales, power-of-two scales whose exact halves hit every
rounding tie, and wide scale ratios) run in

- LiteRT (ai-edge-litert), one .tflite holding one ADD / SUB / MUL per case, in its three
  CPU kernel modes: builtin reference (OpResolverType.BUILTIN_REF), builtin optimized
  (BUILTIN_WITHOUT_DEFAULT_DELEGATES) and the default XNNPACK delegate (AUTO);
- ONNX Runtime (CPU provider), one graph of com.microsoft QLinearAdd / QLinearMul nodes,
  and the unfused QDQ form DequantizeLinear -> Add/Sub/Mul -> QuantizeLinear with graph
  optimizations off and on (on: ORT fuses it into QLinearAdd / QLinearMul);

and each output is compared with tests/reference_binary.py (written from the runtimes'
sources: the proof that the references are the runtimes' arithmetic) and, where simdops
has the op, with simdops. Where the modes of one runtime disagree, a test shows it (the
divergence atlas in docs/requantization.md). BINARY_CASES sets the sweep (default 600
per runtime, op, dtype, shape kind and mode).
"""
import numpy as np
import pytest

import reference_binary as rb
import runtime_models_binary as rmb

OPS = ("add", "subtract", "multiply")


def _litert():
    pytest.importorskip("ai_edge_litert", reason="ai-edge-litert is not installed "
                        "(pip install ai-edge-litert): the LiteRT proof needs it")
    pytest.importorskip("flatbuffers", reason="flatbuffers (an ai-edge-litert dependency) "
                        "is missing")


def _ort():
    pytest.importorskip("onnxruntime", reason="onnxruntime is not installed "
                        "(pip install onnxruntime): the ONNX Runtime proof needs it")
    pytest.importorskip("onnx", reason="onnx is not installed (pip install onnx): the "
                        "ONNX Runtime proof builds its graphs with onnx.helper")


def _valid(runtime):
    """Cases whose parameters the runtime accepts (XNNPACK and MLAS refuse ratios
    outside their ranges; LiteRT's ADD aborts on an output multiplier >= 1)."""
    def valid(case):
        try:
            for r in runtime:
                general = r == "tflite" and case.op != "multiply"
                rb.params(r, case.op, *case.scales(), dtype=case.dtype,
                          **({"pot_scale_int16": False} if general else {}))
        except ValueError:
            return False
        return True
    return valid


def _expected(runtime, case, **kw):
    return rb.binary(runtime, case.op, case.a, case.b, *case.scales(), dtype=case.dtype,
                     activation=case.activation, **kw)


def _compare(case_list, outputs, runtime, **kw):
    """(differing elements, elements, first differing case) against the reference."""
    differ = elements = 0
    first = None
    for case, got in zip(case_list, outputs):
        assert got.shape == case.out_shape
        n = int(np.count_nonzero(got != _expected(runtime, case, **kw)))
        if n and first is None:
            first = case
        differ += n
        elements += got.size
    return differ, elements, first


_LITERT_RUNS = {}


def litert_sweep(op, dtype, broadcast, mode, seed=0):
    """LiteRT's outputs for one sweep (cached: the modes share their cases)."""
    key = (op, dtype, broadcast, mode, seed)
    if key not in _LITERT_RUNS:
        case_list = rmb.cases(1000 * seed + 17, op, dtype, broadcast=broadcast,
                              max_rank=6 if broadcast else 4,
                              valid=_valid(("tflite", "xnnpack") if dtype == "int8"
                                           else ("tflite",)))
        outputs, names = rmb.run_litert(rmb.litert_model(case_list), case_list, mode)
        _LITERT_RUNS[key] = case_list, outputs, names
    return _LITERT_RUNS[key]


# ------------------------------------------------------------------------------ LiteRT

@pytest.mark.parametrize("broadcast", [False, True], ids=["same", "broadcast"])
@pytest.mark.parametrize("mode", ["reference", "optimized"])
@pytest.mark.parametrize("dtype", ["int8", "int16"])
@pytest.mark.parametrize("op", OPS)
def test_litert_builtin_reproduced_by_reference(op, dtype, mode, broadcast):
    _litert()
    case_list, outputs, names = litert_sweep(op, dtype, broadcast, mode)
    assert "DELEGATE" not in names
    differ, elements, first = _compare(case_list, outputs, "tflite", pot_scale_int16=False)
    assert elements > 16 * len(case_list)
    assert differ == 0, f"{differ} of {elements} outputs differ, e.g. in {first}"
    # the sweep is not too easy: it tells the builtin arithmetic from another runtime's
    # (XNNPACK's for int8; ONNX Runtime's float formula for int16, which XNNPACK lacks)
    if dtype == "int8":
        assert _compare(case_list, outputs, "xnnpack")[0] > 0
    elif op != "subtract":
        assert _compare(case_list, outputs, "onnxruntime")[0] > 0


@pytest.mark.parametrize("broadcast", [False, True], ids=["same", "broadcast"])
@pytest.mark.parametrize("op", OPS)
def test_litert_xnnpack_reproduced_by_reference(op, broadcast):
    _litert()
    case_list, outputs, names = litert_sweep(op, "int8", broadcast, "xnnpack")
    assert "DELEGATE" in names
    differ, elements, first = _compare(case_list, outputs, "xnnpack")
    assert differ == 0, f"{differ} of {elements} outputs differ, e.g. in {first}"
    # every op went to XNNPACK: the builtin arithmetic differs from these outputs
    other, _, _ = _compare(case_list, outputs, "tflite", pot_scale_int16=False)
    assert other > 0


def _pot16_cases(rng, op, count):
    """int16 cases for LiteRT's power-of-two path: zero points 0, power-of-two scales,
    one input at the output's scale and the other's scale smaller."""
    out = []
    for i in range(count):
        c = rmb.random_case(rng, op, "int16", "tie", broadcast=False,
                            activation=rmb.ACTIVATIONS[i % 3])
        c.s_out = 2.0 ** -int(rng.integers(6, 12))
        small = c.s_out * 2.0 ** -int(rng.integers(0, 6))
        c.s1, c.s2 = (c.s_out, small) if i % 4 < 2 else (small, c.s_out)
        c.a = rng.integers(-32768, 32768, c.a.shape).astype(np.int16)
        c.b = rng.integers(-32768, 32768, c.b.shape).astype(np.int16)
        out.append(c)
    return out


@pytest.mark.parametrize("mode", ["reference", "optimized"])
@pytest.mark.parametrize("op", ["add", "subtract"])
def test_litert_int16_power_of_two_path(op, mode):
    """pot_scale_int16 (the options' default): the shifted input is divided by a power
    of two (ties away from zero), then a saturating int16 add / a clamped subtract."""
    _litert()
    rng = np.random.default_rng(23)
    case_list = _pot16_cases(rng, op, 300)
    outputs, _ = rmb.run_litert(rmb.litert_model(case_list, pot_scale_int16=True),
                                case_list, mode)
    differ, elements, first = _compare(case_list, outputs, "tflite", pot_scale_int16=True)
    assert differ == 0, f"{differ} of {elements} outputs differ, e.g. in {first}"
    # the path is not the general one
    general = sum(int(np.count_nonzero(y != _expected("tflite", c, pot_scale_int16=False)))
                  for c, y in zip(case_list, outputs))
    assert general > 0


# --------------------------------------------------------------------------- ONNX Runtime

_ORT_RUNS = {}


def ort_sweep(op, dtype, broadcast, fused=True, optimize=False, seed=0):
    key = (op, dtype, broadcast, fused, optimize, seed)
    if key not in _ORT_RUNS:
        case_list = rmb.cases(1000 * seed + 29, op, dtype, broadcast=broadcast,
                              max_rank=6 if broadcast else 4, valid=_valid(("onnxruntime",)))
        for c in case_list:   # QLinearAdd / QLinearMul have no fused activation
            c.activation = None
        outputs, _ = rmb.run_onnxruntime(rmb.onnx_model(case_list, fused), case_list,
                                         optimize)
        _ORT_RUNS[key] = case_list, outputs
    return _ORT_RUNS[key]


@pytest.mark.parametrize("broadcast", [False, True], ids=["same", "broadcast"])
@pytest.mark.parametrize("dtype", ["int8", "uint8"])
@pytest.mark.parametrize("op", ["add", "multiply"])
def test_onnxruntime_qlinear_reproduced_by_reference(op, dtype, broadcast):
    _ort()
    case_list, outputs = ort_sweep(op, dtype, broadcast)
    differ, elements, first = _compare(case_list, outputs, "onnxruntime")
    assert elements > 16 * len(case_list)
    assert differ == 0, f"{differ} of {elements} outputs differ, e.g. in {first}"


def _naive_ort(c):
    """A less careful float formula than MLAS's: QLinearAdd's constant without the fused
    multiply-add, QLinearMul's zero point added after the rounding."""
    a, b = c.a.astype(np.int64), c.b.astype(np.int64)
    p = rb.params("onnxruntime", c.op, *c.scales())
    if c.op == "add":
        plain = np.float32(c.zp_out) - (np.float32(p["a_ratio"]) * np.float32(c.zp1)
                                        + np.float32(p["b_ratio"]) * np.float32(c.zp2))
        return rb.onnxruntime_add(a, b, dict(p, constant=float(plain)), c.dtype)
    prod = (a - c.zp1) * (b - c.zp2)
    return np.clip(np.rint(prod.astype(np.float32) * np.float32(p["scale"])).astype(np.int64)
                   + c.zp_out, -128, 127)


_HARD = {}


def _hard_ort_cases(op, count=12):
    """Cases whose every int8 pair (a 256 x 256 grid) is computed, with random scales
    where the float details matter: QLinearAdd's constant differs without the fused
    multiply-add; QLinearMul's outputs differ when the zero point is added after the
    rounding (_naive_ort)."""
    if op in _HARD:
        return _HARD[op]
    rng = np.random.default_rng(5 if op == "add" else 12)
    g = np.arange(-128, 128)
    a, b = np.repeat(g, 256).astype(np.int8), np.tile(g, 256).astype(np.int8)
    out = []
    for t in range(5000):
        c = rmb.random_case(rng, op, "int8", None if t % 2 else "wide")
        c.activation = None
        if not _valid(("onnxruntime",))(c):
            continue
        if op == "add":   # the constant alone tells (cheap): keep the sets where it differs
            p = rb.params("onnxruntime", op, *c.scales())
            plain = np.float32(c.zp_out) - (np.float32(p["a_ratio"]) * np.float32(c.zp1)
                                            + np.float32(p["b_ratio"]) * np.float32(c.zp2))
            keep = float(plain) != p["constant"]
            c.a, c.b = a, b
        else:
            c.a, c.b = a, b
            keep = bool(np.count_nonzero(_naive_ort(c) != _expected("onnxruntime", c)))
        if keep:
            out.append(c)
        if len(out) == count:
            break
    _HARD[op] = out
    return out


@pytest.mark.parametrize("op", ["add", "multiply"])
def test_onnxruntime_qlinear_hard_cases(op):
    """Every int8 pair for scales where the float details matter (the fma contraction of
    QLinearAdd's constant; QLinearMul's zero point added before the rounding)."""
    _ort()
    case_list = _hard_ort_cases(op)
    assert len(case_list) >= 3
    outputs, _ = rmb.run_onnxruntime(rmb.onnx_model(case_list), case_list)
    differ, elements, first = _compare(case_list, outputs, "onnxruntime")
    assert differ == 0, f"{differ} of {elements} outputs differ, e.g. in {first}"
    # and the naive formula misses some of them: the cases tell the two apart
    assert sum(int(np.count_nonzero(y != _naive_ort(c))) for c, y in zip(case_list, outputs)) > 0


def _as_subtract(c):
    """The same case as a subtraction (no activation)."""
    return rmb.Case("subtract", c.dtype, c.a, c.b, c.s1, c.zp1, c.s2, c.zp2, c.s_out,
                    c.zp_out, None)


@pytest.mark.parametrize("op", OPS)
def test_onnxruntime_unfused_qdq_reproduced_by_reference(op):
    """DequantizeLinear -> Add/Sub/Mul -> QuantizeLinear run as written: float32."""
    _ort()
    case_list, outputs = ort_sweep(op if op != "subtract" else "add", "int8", True,
                                   fused=False)
    if op == "subtract":
        case_list = [_as_subtract(c) for c in case_list]
        outputs, _ = rmb.run_onnxruntime(rmb.onnx_model(case_list, fused=False), case_list)
    differ = elements = 0
    for c, got in zip(case_list, outputs):
        want = rb.onnx_unfused_add(c.op, np.broadcast_to(c.a, c.out_shape),
                                   np.broadcast_to(c.b, c.out_shape), *c.scales(), c.dtype)
        differ += int(np.count_nonzero(got != want))
        elements += got.size
    assert differ == 0, f"{differ} of {elements} outputs differ from the float32 QDQ form"



@pytest.mark.parametrize("op", ["add", "multiply"])
def test_onnxruntime_fusion_changes_the_qdq_outputs(op):
    """ORT's graph optimizations fuse DQ -> Add/Mul -> Q into QLinearAdd / QLinearMul:
    the optimized session gives the fused op's bits, which differ from the unfused
    graph's (the divergence atlas' fused/unfused rows)."""
    _ort()
    case_list, unfused = ort_sweep(op, "int8", False, fused=False)
    _, optimized = ort_sweep(op, "int8", False, fused=False, optimize=True)
    differ, elements, first = _compare(case_list, optimized, "onnxruntime")
    assert differ == 0, f"the optimized QDQ graph is not QLinear{op}: {first}"
    changed = sum(int(np.count_nonzero(u != o)) for u, o in zip(unfused, optimized))
    assert changed > 0


def test_onnxruntime_fusion_counterexample():
    """One element, a + b: the real sum over the output scale is exactly -101.5.
    The unfused graph's QuantizeLinear rounds -101.5 to -102 (ties to even) and adds
    the zero point: -113. The fused QLinearAdd (what ORT's level-2 optimization turns the
    QDQ graph into) rounds the total with the zero point, -112.5, to even: -112."""
    _ort()
    a, b = np.array([-125], np.int8), np.array([-128], np.int8)
    c = rmb.Case("add", "int8", a, b, 0.125, -95, 0.5, -34, 0.5, -11, None)
    fused, _ = rmb.run_onnxruntime(rmb.onnx_model([c]), [c])
    unfused, _ = rmb.run_onnxruntime(rmb.onnx_model([c], fused=False), [c])
    optimized, _ = rmb.run_onnxruntime(rmb.onnx_model([c], fused=False), [c], optimize=True)
    assert int(fused[0][0]) == int(optimized[0][0]) == int(_expected("onnxruntime", c)[0]) == -112
    want_unfused = rb.onnx_unfused_add("add", a, b, *c.scales(), "int8")
    assert int(unfused[0][0]) == int(want_unfused[0]) == -113


def test_onnxruntime_mul_zero_point_before_rounding():
    """QLinearMul adds the output zero point in float before rounding: the product
    (a - 61)(b - 39) / 256 / 0.5 = 94.5 exactly; with zero point -11 the fused op rounds
    83.5 to 84, the unfused graph rounds 94.5 to 94 and adds -11: 83."""
    _ort()
    a, b = np.array([-128], np.int8), np.array([-25], np.int8)
    c = rmb.Case("multiply", "int8", a, b, 0.0625, 61, 0.0625, 39, 0.5, -11, None)
    fused, _ = rmb.run_onnxruntime(rmb.onnx_model([c]), [c])
    unfused, _ = rmb.run_onnxruntime(rmb.onnx_model([c], fused=False), [c])
    assert int(fused[0][0]) == int(_expected("onnxruntime", c)[0]) == 84
    assert int(unfused[0][0]) == 83


# ----------------------------------------------------------------- modes disagree (atlas)

def test_litert_builtin_and_xnnpack_disagree_on_add():
    """One ADD, two kernel modes of the same LiteRT: the builtin kernels (double
    rounding, ties away from zero) and the XNNPACK delegate (one floor shift, ties
    toward +inf) differ on an exact half."""
    _litert()
    # a = 1, b = 0 with zero points 0 and scales 0.5, 1, 1: the real sum is 0.5
    c = rmb.Case("add", "int8", np.array([1, -1, 3, -3], np.int8),
                 np.array([0, 0, 0, 0], np.int8), 0.5, 0, 1.0, 0, 1.0, 0, None)
    model = rmb.litert_model([c])
    ref, _ = rmb.run_litert(model, [c], "reference")
    xnn, names = rmb.run_litert(model, [c], "xnnpack")
    assert "DELEGATE" in names
    assert ref[0].tolist() == _expected("tflite", c).tolist() == [1, -1, 2, -2]
    assert xnn[0].tolist() == _expected("xnnpack", c).tolist() == [1, 0, 2, -1]


# ---------------------------------------------------------------- the runtimes == simdops

def _simdops_expected(arithmetic, case):
    """simdops' output for a case: the runtime's fused activation as min / max in y's
    quantized domain (LiteRT's builtin bounds for "tflite", XNNPACK's clamp node's for
    "xnnpack")."""
    import simdops

    fn = {"add": simdops.quantized_add, "subtract": simdops.quantized_subtract,
          "multiply": simdops.quantized_multiply}[case.op]
    lo = hi = None
    if case.activation is not None:
        bounds = (rb.tflite_activation_bounds if arithmetic == "tflite"
                  else rb.xnnpack_activation_bounds)
        lo, hi = bounds(case.activation, case.s_out, case.zp_out, case.dtype)
    return fn(case.a, case.s1, case.zp1, case.b, case.s2, case.zp2, case.s_out, case.zp_out,
              arithmetic=arithmetic, min=lo, max=hi)


def _compare_simdops(case_list, outputs, arithmetic):
    differ = elements = 0
    first = None
    for case, got in zip(case_list, outputs):
        want = np.asarray(_simdops_expected(arithmetic, case))
        assert want.dtype == got.dtype and want.shape == got.shape, case
        n = int(np.count_nonzero(got != want))
        if n and first is None:
            first = case
        differ += n
        elements += got.size
    return differ, elements, first


@pytest.mark.parametrize("broadcast", [False, True], ids=["same", "broadcast"])
@pytest.mark.parametrize("mode", ["reference", "optimized", "xnnpack"])
@pytest.mark.parametrize("dtype", ["int8", "int16"])
@pytest.mark.parametrize("op", OPS)
def test_litert_reproduced_by_simdops(op, dtype, mode, broadcast):
    _litert()
    if mode == "xnnpack" and dtype == "int16":
        pytest.skip("XNNPACK has no int16 ADD/SUB/MUL: LiteRT runs the builtin kernels")
    case_list, outputs, _ = litert_sweep(op, dtype, broadcast, mode)
    arithmetic = "xnnpack" if mode == "xnnpack" else "tflite"
    differ, elements, first = _compare_simdops(case_list, outputs, arithmetic)
    assert differ == 0, f"{differ} of {elements} outputs differ from simdops, e.g. in {first}"


@pytest.mark.parametrize("broadcast", [False, True], ids=["same", "broadcast"])
@pytest.mark.parametrize("dtype", ["int8", "uint8"])
@pytest.mark.parametrize("op", ["add", "multiply"])
def test_onnxruntime_reproduced_by_simdops(op, dtype, broadcast):
    _ort()
    case_list, outputs = ort_sweep(op, dtype, broadcast)
    differ, elements, first = _compare_simdops(case_list, outputs, "onnxruntime")
    assert differ == 0, f"{differ} of {elements} outputs differ from simdops, e.g. in {first}"


@pytest.mark.parametrize("activation", [None, "relu6"])
@pytest.mark.parametrize("mode", ["reference", "optimized"])
def test_litert_multiply_every_pair_reproduced_by_simdops_proved_rows(mode, activation):
    """LiteRT's int8 MUL over every one of the 65,536 input pairs, against simdops after
    this thread proved the parameter set (the proof comes after 64 calls of 65,536
    elements: csrc/rules/qbinary_proof.c), so that on AVX-512 the rows without the window
    test run, the benchmark's numbers by the floor form (the C harness checks that they
    take it). Every call is compared, before and after the proof."""
    _litert()
    import simdops

    vals = np.arange(-128, 128).astype(np.int8)
    a, b = np.repeat(vals, 256), np.tile(vals, 256)
    case = rmb.Case("multiply", "int8", a, b, 0.0417, -3, 0.0388, 5, 0.0712, -1, activation)
    (want,), _ = rmb.run_litert(rmb.litert_model([case]), [case], mode)
    lo = hi = None
    if activation is not None:
        lo, hi = rb.tflite_activation_bounds(activation, case.s_out, case.zp_out, case.dtype)
    out = np.empty_like(a)
    for call in range(70):
        simdops.quantized_multiply(a, case.s1, case.zp1, b, case.s2, case.zp2, case.s_out,
                                   case.zp_out, arithmetic="tflite", min=lo, max=hi, out=out)
        differ = int(np.count_nonzero(out != want))
        assert differ == 0, f"call {call}: {differ} of 65,536 outputs differ from LiteRT"


@pytest.mark.parametrize("op", ["add", "multiply"])
def test_onnxruntime_hard_cases_reproduced_by_simdops(op):
    _ort()
    case_list = _hard_ort_cases(op)
    outputs, _ = rmb.run_onnxruntime(rmb.onnx_model(case_list), case_list)
    differ, elements, first = _compare_simdops(case_list, outputs, "onnxruntime")
    assert differ == 0, f"{differ} of {elements} outputs differ from simdops, e.g. in {first}"


def _param_pairs(runtime, op, case):
    """(simdops' name, reference value) pairs of quantized_binary_params."""
    p = rb.params(runtime, op, *case.scales(), dtype=case.dtype,
                  **({"pot_scale_int16": False} if runtime == "tflite" and op != "multiply"
                     else {}))
    if runtime == "tflite" and op != "multiply":
        pairs = [(k, p[k]) for k in ("left_shift", "input1_offset", "input1_multiplier",
                                     "input1_shift", "input2_offset", "input2_shift",
                                     "output_offset", "output_multiplier", "output_shift")]
        # simdops folds SUB's sign into input2_multiplier
        sign = -1 if op == "subtract" else 1
        return pairs + [("input2_multiplier", sign * p["input2_multiplier"])]
    if runtime == "tflite":
        return [(k, p[k]) for k in ("input1_offset", "input2_offset", "output_offset",
                                    "output_multiplier", "output_shift")]
    if runtime == "xnnpack" and op != "multiply":
        return [(k, p[k]) for k in ("a_multiplier", "b_multiplier", "shift", "bias")]
    if op == "multiply":
        return [("scale", p["scale"])]
    return [("scale_ratio_a", p["a_ratio"]), ("scale_ratio_b", p["b_ratio"]),
            ("fixed_part", p["constant"])]


@pytest.mark.parametrize("runtime", ["tflite", "xnnpack", "onnxruntime"])
@pytest.mark.parametrize("op", OPS)
def test_quantized_binary_params_match_the_references(runtime, op):
    """simdops.quantized_binary_params derives each runtime's integers (and float32
    ratios) exactly as the references derived from the runtimes' sources do."""
    import simdops

    if runtime == "onnxruntime" and op == "subtract":
        pytest.skip("ONNX Runtime has no QLinearSub")
    rng = np.random.default_rng(41)
    checked = 0
    for i in range(300):
        dtype = "int16" if runtime == "tflite" and i % 3 == 2 else "int8"
        case = rmb.random_case(rng, op, dtype, rmb.EDGES[i % 3])
        if not _valid((runtime,))(case):
            continue
        got = simdops.quantized_binary_params(op, *case.scales(), arithmetic=runtime,
                                              dtype=dtype)
        for name, want in _param_pairs(runtime, op, case):
            assert got[name] == want, (name, case, got)
        checked += 1
    assert checked > 200


def test_litert_builtin_and_xnnpack_disagree_on_relu6_bound():
    """The fused RELU6's upper bound: float32(6 / 0.8) is exactly 7.5. The builtin
    kernels round it half away from zero and add the zero point (1 + 8 = 9); XNNPACK's
    clamp node rounds 7.5 + 1 = 8.5 half to even (8). An input far above 6 comes out
    as 9 in one mode and 8 in the other."""
    _litert()
    c = rmb.Case("add", "int8", np.array([100, 5, 20], np.int8), np.array([0, 1, 1], np.int8),
                 0.8, 1, 0.8, 1, 0.8, 1, "relu6")
    assert rb.tflite_activation_bounds("relu6", 0.8, 1, "int8") == (1, 9)
    assert rb.xnnpack_activation_bounds("relu6", 0.8, 1, "int8") == (1, 8)
    model = rmb.litert_model([c])
    ref, _ = rmb.run_litert(model, [c], "reference")
    xnn, names = rmb.run_litert(model, [c], "xnnpack")
    assert "DELEGATE" in names
    assert ref[0].tolist() == [9, 5, 9]
    assert xnn[0].tolist() == [8, 5, 8]
    assert np.asarray(_simdops_expected("tflite", c)).tolist() == [9, 5, 9]
    assert np.asarray(_simdops_expected("xnnpack", c)).tolist() == [8, 5, 8]
