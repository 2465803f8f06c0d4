"""The bench's tier check (simdops.bench.tiers) on hand-made reports: which kernels it
compares, against which parent, and when it calls one slower."""
import pytest

from simdops.bench import tiers

PARENTS = {"scalar": None, "sse2": "scalar", "sse41": "sse2", "avx2": "sse41"}


def _result(isa, elements_per_s):
    return {"kind": "simdops", "isa": isa, "threads": 1, "elements_per_s": elements_per_s}


def _report(origins, speeds, entry="clip", dtype="float32"):
    case = {"label": f"{entry} {dtype}", "kernel_entry": entry, "dtype": dtype,
            "out_dtype": "uint8" if entry.startswith("requant") else dtype,
            "results": {isa: _result(isa, v) for isa, v in speeds.items()}}
    key = f"{entry}/{case['out_dtype'] if entry.startswith('requant') else dtype}"
    origins = {isa: {key: origin} for isa, origin in origins.items()}
    return {"machine": {"kernel_origins": origins}, "cases": [case]}


def test_an_overriding_kernel_is_compared_with_its_parent():
    report = _report({"scalar": "scalar", "sse2": "sse2", "sse41": "sse2", "avx2": "avx2"},
                     {"scalar": 1.0, "sse2": 2.0, "sse41": 2.0, "avx2": 1.5})
    rows = {r["tier"]: r for r in tiers.check(report, PARENTS)}
    # sse41 inherits sse2's kernel: nothing of its own to check
    assert set(rows) == {"sse2", "avx2"}
    assert rows["sse2"]["parent"] == "scalar" and rows["sse2"]["status"] == "OK"
    assert rows["avx2"]["parent"] == "sse41" and rows["avx2"]["parent_kernel"] == "sse2"
    assert rows["avx2"]["ratio"] == 0.75 and rows["avx2"]["status"] == "SLOWER"


def test_the_tolerance_is_the_boundary():
    edge = 1 - tiers.TOLERANCE
    report = _report({"scalar": "scalar", "sse2": "sse2"}, {"scalar": 1.0, "sse2": edge})
    assert [r["status"] for r in tiers.check(report, PARENTS)] == ["OK"]
    report = _report({"scalar": "scalar", "sse2": "sse2"},
                     {"scalar": 1.0, "sse2": edge * 0.999})
    assert [r["status"] for r in tiers.check(report, PARENTS)] == ["SLOWER"]


def test_requant_slots_are_named_by_the_output_type():
    report = _report({"scalar": "scalar", "sse2": "sse2"}, {"scalar": 4.0, "sse2": 1.0},
                     entry="requant", dtype="int32")
    (row,) = tiers.check(report, PARENTS)
    assert row["entry"] == "requant/uint8" and row["status"] == "SLOWER"


def test_a_parent_not_measured_gives_no_row_and_no_text():
    report = _report({"scalar": "scalar", "sse2": "sse2"}, {"sse2": 1.0})
    assert tiers.check(report, PARENTS) == []
    assert tiers.format_text([]) == []


def test_text_counts_the_slower_kernels():
    report = _report({"scalar": "scalar", "sse2": "sse2"}, {"scalar": 2.0, "sse2": 1.0})
    lines = tiers.format_text(tiers.check(report, PARENTS))
    assert "1 kernels, 1 slower" in lines[0] and lines[1].rstrip().endswith("SLOWER")


def test_the_real_tier_parents_form_a_tree_rooted_at_scalar():
    import simdops
    parents = simdops._core.tier_parents()
    assert parents["scalar"] is None
    for tier in parents:
        seen = set()
        while tier is not None:
            assert tier not in seen
            seen.add(tier)
            tier = parents[tier]
        assert "scalar" in seen


def test_quantize_slots_are_named_by_the_output_type_too():
    # quantize_f32's slots are indexed by the quantized (output) type, like requant's
    case = {"kernel_entry": "quantize_f32", "dtype": "float32", "out_dtype": "uint8"}
    assert tiers.slot_dtype(case) == "uint8"
    case = {"kernel_entry": "dequantize_f32", "dtype": "uint8", "out_dtype": "float32"}
    assert tiers.slot_dtype(case) == "uint8"


def test_the_slot_rule_is_cs_for_every_entry():
    import simdops
    for entry, _ in simdops._core.kernel_entries():
        got = simdops._core.kernel_slot_dtype(entry, "int32", "int8")
        assert got == ("int8" if entry.startswith(("requant", "quantize_")) else "int32"), entry
    with pytest.raises(ValueError, match="no kernel entry 'nope'"):
        simdops._core.kernel_slot_dtype("nope", "int32", "int8")
