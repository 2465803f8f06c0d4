"""Smoke test of `python -m simdops bench`: structure of the report, no timing assertions."""
import importlib.util
import json
import math

import pytest

import simdops
from simdops import bench

TINY = ["--sizes", "1000", "--repeat", "2", "--sample-time", "0.0001"]


def run(tmp_path, *extra):
    path = tmp_path / "bench.json"
    rc = bench.main(["--quick", "--json", str(path), *TINY, *extra])
    return rc, (json.loads(path.read_text()) if path.exists() else None)


def test_quick_json_report(tmp_path, capsys):
    rc, report = run(tmp_path)
    assert rc == 0
    isas = list(simdops.available_isas())
    machine = report["machine"]
    assert machine["isas_measured"] == isas
    assert machine["simdops_version"] == simdops.__version__
    assert machine["cpu_features"] == simdops._core.cpu_features()
    assert machine["numpy_version"]
    assert "torch_version" in machine

    cases = {c["id"]: c for c in report["cases"]}
    for dtype in bench.ELEMENTWISE:
        assert f"clip/{dtype}/1000" in cases and f"shrink/{dtype}/1000" in cases
    for case_key in ("clip+scale_bias/float32/1000", "hardmax/float32/1000",
                     "requant/int32/1000"):
        assert case_key in cases
    assert cases["hardmax/float32/1000"]["shape"] == [1, 1024]
    assert bench.COPY_I32 in cases["requant/int32/1000"]["results"]

    for case in report["cases"]:
        results = case["results"]
        assert set(isas) | {bench.COPY, bench.NUMPY} <= set(results)
        for name, r in results.items():
            assert len(r["samples"]) == 2 and r["seconds"] > 0
            assert r["gb_per_s"] > 0 and r["elements_per_s"] > 0
            if r["kind"] == "simdops" or name == bench.NUMPY:
                # every ISA gives the same bits, and numpy's version computes the same thing
                assert r["same_output_as_simdops"] is True, (case["id"], name)
        assert set(case["ratios"]) == set(isas)
        for isa, ratios in case["ratios"].items():
            assert set(ratios) == {n for n, r in results.items() if r["kind"] == "baseline"}
            for name, ratio in ratios.items():
                assert math.isfinite(ratio) and ratio > 0, (case["id"], isa, name)

    assert report["goals"]
    for goal in report["goals"]:
        assert goal["status"].startswith(("PASS", "MISS", "SKIP"))

    out, err = capsys.readouterr()
    assert f"[1/{len(cases)}] clip float32 n=1,000" in err
    assert "Goals" in out and "Ratios" in out and "GB/s" in out


def test_goal_evaluated_when_size_measured(tmp_path):
    rc, report = run(tmp_path, "--isa", "scalar", "--sizes", "65536")
    assert rc == 0
    goal = next(g for g in report["goals"]
                if g["op"] == "clip" and g["dtype"] == "float32" and g["n"] == 65536
                and g["baseline"] == "np.copyto")
    assert goal["status"] in ("PASS", "MISS") and goal["ratio"] > 0
    assert goal["best_isa"] == "scalar"


def test_isa_selection(tmp_path):
    rc, report = run(tmp_path, "--isa", "scalar")
    assert rc == 0
    assert report["machine"]["isas_measured"] == ["scalar"]
    assert all(set(c["ratios"]) == {"scalar"} for c in report["cases"])
    assert bench.main(["--quick", "--isa", "no-such-isa"]) == 2


def test_plot(tmp_path, capsys):
    png = tmp_path / "bench.png"
    rc, report = run(tmp_path, "--isa", "scalar", "--plot", str(png))
    assert report is not None            # the rest of the run is not lost
    if importlib.util.find_spec("matplotlib") is None:
        assert rc == 2 and not png.exists()
        assert "matplotlib" in capsys.readouterr().err
    else:
        assert rc == 0 and png.read_bytes()[:4] == b"\x89PNG"


def test_without_torch(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(bench, "_import_torch", lambda: None)
    rc, report = run(tmp_path, "--isa", "scalar")
    assert rc == 0 and report["machine"]["torch_version"] is None
    assert all(bench.TORCH not in c["results"] for c in report["cases"])
    assert "torch not importable" in capsys.readouterr().out
