"""The divergence atlas of docs/requantization.md, one test per counterexample.

Each counterexample is one accumulator x with one scale, written for every family at once
(the fixed-point families take (M, shift) with scale = M * 2**-31 * 2**-shift exactly, the
float families take that scale, ACL's QUANTIZE_DOWN an integer multiplier and a floor
shift). The expected outputs were derived by hand (the derivations are in the doc); the
tests check them against tests/reference.py and against simdops.
"""
import numpy as np
import pytest

import simdops
import reference as ref

INT32_MIN, INT32_MAX = -2 ** 31, 2 ** 31 - 1
FIXED = ("double", "double_ties_up", "single")
FAMILIES = FIXED + ("fp32", "fp64_away", "acl_down", "acl_down_float")

# name -> (x, M, shift, (ACL QUANTIZE_DOWN multiplier, shift), expected per family)
COUNTEREXAMPLES = {
    # -0.5: gemmlowp's second rounding and every ties-away rule give -1, half-up and
    # half-even give 0
    "negative_half_second_step": (-2, 1 << 30, 1, (1, 2), dict(
        double=-1, double_ties_up=0, single=0, fp32=0, fp64_away=-1,
        acl_down=-1, acl_down_float=-1)),
    # +0.5: half to even gives 0, the floor shift gives 0, everything else 1
    "positive_half": (1, 1 << 30, 0, (1, 1), dict(
        double=1, double_ties_up=1, single=1, fp32=0, fp64_away=1,
        acl_down=0, acl_down_float=1)),
    # -0.5 settled by the first (high-mul) rounding, which rounds half up
    "negative_half_first_step": (-1, 1 << 30, 0, (1, 1), dict(
        double=0, double_ties_up=0, single=0, fp32=0, fp64_away=-1,
        acl_down=-1, acl_down_float=-1)),
    # +1.5: only the floor shift differs
    "one_and_a_half": (3, 1 << 30, 0, (1, 1), dict(
        double=2, double_ties_up=2, single=2, fp32=2, fp64_away=2,
        acl_down=1, acl_down_float=2)),
    # 0.375: the high-mul rounds 0.375 * 2 = 0.75 up to 1, the shift then rounds 0.5 up
    "double_rounding": (1, 3 << 29, 1, (3, 3), dict(
        double=1, double_ties_up=1, single=0, fp32=0, fp64_away=0,
        acl_down=0, acl_down_float=0)),
    # (2**24 + 511) / 1024 = 16384.499: float32(x) = 2**24 + 512 makes it a tie;
    # the two-step fixed-point rounding makes it a tie too
    "float32_accumulator_tie": (16777727, 1 << 30, 9, (1, 10), dict(
        double=16385, double_ties_up=16385, single=16384, fp32=16384, fp64_away=16384,
        acl_down=16384, acl_down_float=16385)),
    # (2**24 + 513) / 1024 = 16384.5009: float32(x) = 2**24 + 512 lands on the tie,
    # which float32 with ties to even settles down
    "float32_accumulator_precision": (16777729, 1 << 30, 9, (1, 10), dict(
        double=16385, double_ties_up=16385, single=16385, fp32=16384, fp64_away=16385,
        acl_down=16384, acl_down_float=16385)),
    # scale 2: (2**29 + 1) << 2 wraps in int32 in the double-rounding families' left shift
    "left_shift_wraps": (2 ** 29 + 1, 1 << 30, -2, (2, 0), dict(
        double=-32768, double_ties_up=-32768, single=32767, fp32=32767, fp64_away=32767,
        acl_down=32767, acl_down_float=32767)),
}


def reference_family(name, x, m, shift, acl, out_dtype="int16"):
    xs = np.array([x], np.int32)
    scale = m * 2.0 ** (-31 - shift)
    if name in FIXED:
        return int(ref.requant_family(xs, m, shift, 0, out_dtype=out_dtype, rounding=name)[0])
    if name == "fp32":
        return int(ref.requantize_fp32(xs, np.float32(scale), 0, out_dtype=out_dtype)[0])
    if name == "fp64_away":
        return int(ref.requantize_fp32(xs, scale, 0, out_dtype=out_dtype,
                                       precision="float64", ties="away")[0])
    if name == "acl_down":
        return int(ref.acl_quantize_down(xs, 0, acl[0], acl[1], out_dtype=out_dtype)[0])
    return int(ref.acl_quantize_down_float(xs, np.float32(scale), 0, out_dtype=out_dtype)[0])


def simdops_family(name, x, m, shift, out_dtype="int16"):
    xs = np.array([x], np.int32)
    scale = m * 2.0 ** (-31 - shift)
    if name in FIXED:
        return int(simdops.quantize_down_int32(xs, m, shift, 0, out_dtype=out_dtype,
                                               rounding=name)[0])
    if name == "fp32":
        return int(simdops.requantize_fp32(xs, np.float32(scale), 0, out_dtype=out_dtype)[0])
    return int(simdops.requantize_fp32(xs, scale, 0, out_dtype=out_dtype,
                                       precision="float64", ties="away")[0])


@pytest.mark.parametrize("case", sorted(COUNTEREXAMPLES))
def test_counterexample_reference(case):
    x, m, shift, acl, expected = COUNTEREXAMPLES[case]
    assert m * 2.0 ** (-31 - shift) == np.float32(m * 2.0 ** (-31 - shift))  # exact scale
    assert acl[0] * 2.0 ** -acl[1] == m * 2.0 ** (-31 - shift)                # same scale
    got = {name: reference_family(name, x, m, shift, acl) for name in FAMILIES}
    assert got == expected
    assert len(set(got.values())) == 2  # each counterexample splits the families in two


@pytest.mark.parametrize("case", sorted(COUNTEREXAMPLES))
def test_counterexample_simdops(case):
    x, m, shift, _, expected = COUNTEREXAMPLES[case]
    for name in FIXED + ("fp32", "fp64_away"):
        assert simdops_family(name, x, m, shift) == expected[name], name


def test_every_pair_of_families_has_a_counterexample():
    for i, a in enumerate(FAMILIES):
        for b in FAMILIES[i + 1:]:
            assert any(e[a] != e[b] for *_, e in COUNTEREXAMPLES.values()), (a, b)


# ------------------------------------------------------------- variants of one family

def test_tflite_single_rounding_wraps_where_xnnpack_clamps():
    # single rounding of INT32_MAX at scale 1 is INT32_MAX; + zero point 1: TFLite's int32
    # add wraps to INT32_MIN, XNNPACK rndnu clamps to [min - zp, max - zp] before adding
    # it, and simdops keeps the sum exact before the clamp (XNNPACK's result)
    x = np.array([INT32_MAX], np.int32)
    m, shift = 1 << 30, -1
    assert ref.requant_tflite_single(x, m, shift, 1, -128, 127)[0] == -128
    assert ref.requant_xnnpack_rndnu(x, m, shift, 1, -128, 127)[0] == 127
    assert ref.requant_family(x, m, shift, 1, out_dtype="int8", rounding="single")[0] == 127
    assert simdops.quantize_down_int32(x, m, shift, 1, out_dtype="int8",
                                       rounding="single")[0] == 127


def test_fbgemm_avx2_overflow_gives_int32_min():
    # float32(INT32_MAX) * 1.0 = 2**31: the fp32 family saturates to 255, fbgemm's AVX2
    # conversion returns INT32_MIN, which saturates to 0
    x = np.array([INT32_MAX], np.int32)
    assert ref.requantize_fp32(x, np.float32(1.0), 0, out_dtype="uint8")[0] == 255
    assert ref.requantize_fp32_fbgemm_avx2(x, np.float32(1.0), 0, out_dtype="uint8")[0] == 0
    assert simdops.requantize_fp32(x, np.float32(1.0), 0, out_dtype="uint8")[0] == 255


def test_xnnpack_multiplier_rounds_the_scale_to_float32():
    # 5 * 0.1: ACL's 31-bit multiplier of the double 0.1 is just below 0.1 (0.4999... -> 0),
    # XNNPACK's float32(0.1) is just above (0.50000000745 -> 1)
    x = np.array([5], np.int32)
    acl = simdops.quantize_multiplier(0.1, "acl")
    xnn = simdops.quantize_multiplier(0.1, "xnnpack")
    assert acl == (1717986918, 3) and xnn == (1717986944, 3)
    assert ref.requant_family(x, *acl, 0, out_dtype="int8", rounding="single")[0] == 0
    assert ref.requant_family(x, *xnn, 0, out_dtype="int8", rounding="single")[0] == 1
    assert simdops.quantize_down_int32(x, *acl, 0, out_dtype="int8", rounding="single")[0] == 0
    assert simdops.quantize_down_int32(x, *xnn, 0, out_dtype="int8", rounding="single")[0] == 1


def test_tflite_flushes_tiny_scales_where_acl_refuses():
    assert ref.quantize_multiplier_tflite(2 ** -33) == (0, 0)
    with pytest.raises(ValueError):
        ref.quantize_multiplier(2 ** -33)
    assert simdops.quantize_multiplier(2 ** -33, "tflite") == (0, 0)
    with pytest.raises(ValueError):
        simdops.quantize_multiplier(2 ** -33, "acl")
    x = np.array([INT32_MAX, INT32_MIN, 12345], np.int32)
    y = simdops.quantize_down_int32(x, 0, 0, 7, out_dtype="int8", rounding="double")
    assert y.tolist() == [7, 7, 7]


def test_litert_reference_fc_overflow_gives_int32_min():
    # 2**30 * 2.0 = 2**31 does not fit int32: LiteRT's reference FULLY_CONNECTED converts
    # it with static_cast<int32_t> (INT32_MIN on x86), the float64 family saturates
    x = np.array([2 ** 30], np.int32)
    assert ref.requantize_fp32(x, 2.0, 0, out_dtype="int8", precision="float64",
                               ties="away")[0] == 127
    assert ref.requantize_fp64_litert_reference(x, 2.0, 0, out_dtype="int8")[0] == -128
    assert simdops.requantize_fp32(x, 2.0, 0, out_dtype="int8", precision="float64",
                                   ties="away")[0] == 127


COUNT = len(COUNTEREXAMPLES) + 5  # the families' table plus the five variants above


def test_doc_table_matches_the_counterexamples():
    # docs/requantization.md states the same outputs as COUNTEREXAMPLES, row by row
    from pathlib import Path

    order = ["negative_half_second_step", "positive_half", "negative_half_first_step",
             "one_and_a_half", "double_rounding", "float32_accumulator_tie",
             "float32_accumulator_precision", "left_shift_wraps"]
    doc = Path(__file__).resolve().parent.parent / "docs" / "requantization.md"
    rows = {}
    for line in doc.read_text().splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 10 and cells[0].isdigit():
            rows[int(cells[0])] = [int(c.replace("−", "-")) for c in cells[3:]]
    assert sorted(rows) == list(range(1, len(order) + 1))
    for number, name in enumerate(order, start=1):
        assert rows[number] == [COUNTEREXAMPLES[name][4][f] for f in FAMILIES], number
