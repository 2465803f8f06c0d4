"""`python -m simdops bench` in a tiny mode: the report's structure, the goal rows, the
outputs (JSON, PNG, markdown), progress on stderr. No timing assertions."""
import importlib.util
import json
import math

import numpy as np
import pytest

import reference
import simdops
from simdops import bench
from simdops.bench import cases as bench_cases, goals as bench_goals, ort as bench_onnx
from simdops.bench import ops_requant_families as families
from simdops.bench import torch_paths as bench_torch_paths
from simdops.bench import report as bench_report, runner as bench_runner
from simdops.bench.ops import CLIP
from simdops.bench.runner import ORT

# pytest-run-parallel: a benchmark run sets the process-wide ISA and threads
# and times itself; the tests also patch module-level registries
pytestmark = pytest.mark.thread_unsafe(
    reason="benchmark runs set process-wide threads and patch module registries")

TINY = ["--quick", "--sizes", "1000", "--repeat", "2", "--sample-time", "0.0001"]
FEW = ["--only", "clip float32", "shrink float32", "hardmax float32 1x1024", "requant"]


def run(tmp_path, *extra):
    path = tmp_path / "bench.json"
    rc = bench.main([*TINY, "--json", str(path), *extra])
    return rc, (json.loads(path.read_text()) if path.exists() else None)


def test_tiny_run_json_fields_and_progress(tmp_path, capsys):
    rc, report = run(tmp_path)
    assert rc == 0
    machine = report["machine"]
    assert machine["isas_measured"] == [simdops.isa()]          # default: the active ISA
    assert machine["simdops_version"] == simdops.__version__
    assert machine["cpu_features"] == simdops._core.cpu_features()
    for key in ("cpu_model", "cpu_count", "loadavg_start", "loadavg_end", "numpy_version",
                "torch_version", "onnxruntime_version", "python"):
        assert key in machine
    assert report["settings"]["command"].startswith("python -m simdops bench --quick")
    assert report["goals"] == []                               # no goal rows by default

    cases = {c["id"]: c for c in report["cases"]}
    for dtype in bench_cases.ELEMENTWISE:
        assert f"clip/{dtype}/1000" in cases and f"shrink/{dtype}/1000" in cases
    for case_id in ("clip+scale_bias/float32/1000", "hardmax/float32/1x1024",
                    "requant/int32/1000", "requant_pc+bias/int32/3x256"):
        assert case_id in cases
    for case in report["cases"]:
        for key in ("op", "dtype", "out_dtype", "shape", "n", "bytes_per_call", "params",
                    "label"):
            assert key in case
        results = case["results"]
        assert {simdops.isa(), bench.COPY} <= set(results)
        for name, r in results.items():
            assert len(r["samples"]) == 2 and r["seconds"] > 0
            assert r["gb_per_s"] > 0 and r["elements_per_s"] > 0
            assert r["median_seconds"] >= r["seconds"]
            if r["kind"] == "simdops" or name == bench.NUMPY:
                # every ISA gives the same bits, and numpy's version computes the same thing
                assert r["same_output_as_simdops"] is True, (case["id"], name)
        baselines = {n for n, r in results.items() if r["kind"] == "baseline"}
        for name, ratios in case["ratios"].items():
            assert set(ratios) == baselines
            assert all(math.isfinite(v) and v > 0 for v in ratios.values())

    out, err = capsys.readouterr()
    assert f"/{len(cases)}] clip float32 n=1,000" in err and "ETA" in err   # progress: stderr
    assert "ETA" not in out and "[1/" not in out
    assert "baseline time / simdops time" in out and "x copy" in out and "x numpy" in out
    assert "Goals" not in out


def _importable(module):
    import importlib.util
    return importlib.util.find_spec(module) is not None


# the paths of simdops.bench.torch_paths: they need torch (CI's ASan venv has none)
_TORCH_PATHS = {p.name for p in (bench_torch_paths.TORCH_OP, bench_torch_paths.AA_PATH,
                                 *bench_torch_paths.COMPOSITE_PATHS.values())}


def test_every_goal_row_is_produced(tmp_path, capsys):
    bench_cases.load_plugins()   # their goal rows too (bench.main loads them: not yet, alone)
    goal_cases = {ref[0] for g in bench_goals.GOALS for ref in (g.subject, g.baseline)}
    rc, report = run(tmp_path, "--goals", "--repeat", "1", "--only", *sorted(goal_cases))
    assert rc == 0
    rows = {g["label"]: g for g in report["goals"]}
    assert set(rows) == {g.label for g in bench_goals.GOALS}
    for g in bench_goals.GOALS:
        row = rows[g.label]
        if "threads" in g.label and not hasattr(simdops, "set_num_threads"):
            assert row["status"].startswith("SKIP") and "n/a" in row["status"]
            continue
        named = [s[len("simdops["):-1] for s in (g.subject[1], g.baseline[1])
                 if s.startswith("simdops[")]
        if named and not set(named) <= {simdops.isa()}:
            # a tier-against-tier row needs --isa naming both tiers
            assert row["status"].startswith("SKIP (") and "--isa" in row["status"], row
            continue
        runtime_paths = {n for n in (g.subject[1], g.baseline[1])
                         if n.startswith(("ort Q", "litert XNNPACK"))}
        if runtime_paths and not all(_importable("onnxruntime" if n.startswith("ort") else
                                                 "ai_edge_litert") for n in runtime_paths):
            # a row against a runtime's own API is skipped, naming the missing path
            assert row["status"].startswith("SKIP (no "), (g.label, row["status"])
            continue
        torch_rows = {n for n in (g.subject[1], g.baseline[1]) if n in _TORCH_PATHS}
        if torch_rows and not _importable("torch"):
            # the torch.ops.simdops rows are skipped, naming the path, without torch
            assert row["status"].startswith("SKIP (no "), (g.label, row["status"])
            continue
        if ORT in (g.subject[1], g.baseline[1]) and bench_onnx.modules() is None:
            # a row against ONNX Runtime is skipped, with the reason, where it is missing
            assert row["status"] == "SKIP (no onnxruntime)", (g.label, row["status"])
            continue
        assert row["status"] in ("PASS", "MISS", "REPORT") or \
            row["status"].startswith(("BLOCKED (floor ", "BLOCKED (bound ", "TIE (A/A ")), \
            (g.label, row["status"])
        assert row["value"] > 0 and math.isfinite(row["value"])
    out = capsys.readouterr().out
    assert "Performance goals (" in out
    assert "dml execute" in out and "acl run" in out


def test_isa_selection(tmp_path):
    rc, report = run(tmp_path, "--isa", "scalar", *FEW)
    assert rc == 0
    assert report["machine"]["isas_measured"] == ["scalar"]
    assert all(set(c["ratios"]) == {"scalar"} for c in report["cases"])
    rc, report = run(tmp_path, "--isa", "all", *FEW)
    assert rc == 0 and report["machine"]["isas_measured"] == list(simdops.available_isas())
    assert bench.main([*TINY, "--isa", "no-such-isa"]) == 2


def test_bad_arguments(capsys):
    assert bench.main(["--threads", "0"]) == 2
    assert bench.main([*TINY, "--repeat", "0"]) == 2
    assert bench.main(["--help"]) == 0
    assert "--goals" in capsys.readouterr().out


def test_plot(tmp_path, capsys):
    png = tmp_path / "bench.png"
    rc, report = run(tmp_path, "--plot", str(png), *FEW)
    assert report is not None            # the rest of the run is not lost
    if importlib.util.find_spec("matplotlib") is None:
        assert rc == 2 and not png.exists()
        assert "matplotlib" in capsys.readouterr().err
    else:
        assert rc == 0 and png.read_bytes()[:4] == b"\x89PNG"


def test_without_torch_and_onnxruntime(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(bench_runner, "import_torch", lambda: None)
    monkeypatch.setattr(bench_onnx, "modules", lambda: None)
    rc, report = run(tmp_path, *FEW)
    assert rc == 0
    assert report["machine"]["torch_version"] is None
    assert report["machine"]["onnxruntime_version"] is None
    assert all(bench.TORCH not in c["results"] and bench.ORT not in c["results"]
               for c in report["cases"])
    out = capsys.readouterr().out
    assert "torch not importable" in out and "not importable (column skipped)" in out
    assert "x torch" not in out and "x ORT" not in out


@pytest.mark.skipif(bench_onnx.modules() is None, reason="onnxruntime not installed")
def test_onnxruntime_column_computes_the_same_clip(tmp_path):
    rc, report = run(tmp_path, "--only", "clip/float32/1000")
    case = next(c for c in report["cases"] if c["id"] == "clip/float32/1000")
    assert case["results"][bench.ORT]["same_output_as_simdops"] is True


def test_threads_column(tmp_path, monkeypatch, capsys):
    if not hasattr(simdops, "set_num_threads"):
        rc, report = run(tmp_path, "--threads", "1,2", *FEW)
        assert rc == 0
        assert "n/a" in capsys.readouterr().out
        # the same rows through a stand-in, so the column logic is tested either way
        state = {"n": 1}
        monkeypatch.setattr(simdops, "set_num_threads", lambda n: state.update(n=n),
                            raising=False)
        monkeypatch.setattr(simdops, "get_num_threads", lambda: state["n"], raising=False)
    rc, report = run(tmp_path, "--threads", "1,2", *FEW)
    assert rc == 0
    case = next(c for c in report["cases"] if c["id"] == "clip/float32/1000")
    isa = simdops.isa()
    assert case["results"][f"{isa} 1t"]["threads"] == 1
    assert case["results"][f"{isa} 2t"]["threads"] == 2
    assert case["results"][f"{isa} 2t"]["same_output_as_simdops"] is True
    header = next(line for line in capsys.readouterr().out.splitlines()
                  if line.startswith("op "))
    assert "threads" in header.split()


def test_markdown_replaces_only_the_generated_section(tmp_path):
    md = tmp_path / "performance.md"
    md.write_text(f"# Performance\n\nprose\n\n{bench_report.BEGIN}\nold\n{bench_report.END}\n"
                  "\nmore prose\n")
    rc, _ = run(tmp_path, "--markdown", str(md), *FEW)
    assert rc == 0
    text = md.read_text()
    assert text.startswith("# Performance\n\nprose\n") and text.endswith("\nmore prose\n")
    assert "old" not in text and text.count(bench_report.BEGIN) == 1
    assert "Command: `python -m simdops bench --quick" in text
    assert "| op | dtype | size | isa |" in text


def test_registered_case_path_and_plugin_are_run(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(bench_cases, "_REGISTRY", list(bench_cases._REGISTRY))
    monkeypatch.setattr(bench_cases, "_EXTRA_PATHS", {})
    monkeypatch.setattr(bench_cases, "PLUGIN_MODULES", ["simdops.no_such_bench_plugin"])
    calls = []

    def make(x, out, p):
        return lambda: (calls.append(1), simdops.clip(x, p["min"], p["max"], out=out))[1]

    bench.register_case(bench.Case(CLIP, "float32", (777,), tags=frozenset({"quick"}),
                                   paths=[bench.Path("my.clip_path", make)]))
    with pytest.raises(ValueError):
        bench.register_case(bench.Case(CLIP, "float32", (777,)))
    bench.register_path("clip/float32/1000", bench.Path("grid.clip_path", make))  # a grid case
    rc, report = run(tmp_path, "--only", "clip/float32/777", "clip/float32/1000")
    assert rc == 0 and calls
    cases = {c["id"]: c for c in report["cases"]}
    for case_id, name in (("clip/float32/777", "my.clip_path"),
                          ("clip/float32/1000", "grid.clip_path")):
        r = cases[case_id]["results"][name]
        assert r["kind"] == "path" and r["same_output_as_simdops"] is True
        assert set(cases[case_id]["ratios"][name]) >= {bench.COPY, bench.NUMPY}
    assert "plug-in simdops.no_such_bench_plugin not loaded" in capsys.readouterr().err


def test_rounds_vary_each_implementations_predecessor():
    """Rounds run the implementations in varying orders: with a fixed cyclic order one
    implementation always follows the same (possibly cache- or clock-disturbing) one."""
    from simdops.bench.timing import Impl, time_impls
    ran = []
    impls = [Impl(name, (lambda name=name: ran.append(name))) for name in "abcde"]
    samples, numbers = time_impls(impls, 30, 0.0)
    assert all(len(v) == 30 for v in samples.values())
    timed = ran[-30 * len(impls):]                              # warm-up calls come first
    predecessors = {name: set() for name in "abcde"}
    for before, after in zip(timed, timed[1:]):
        predecessors[after].add(before)
    assert all(len(p) >= 3 for p in predecessors.values()), predecessors


def test_round_orders_follow_the_runs_seed():
    """The rounds' orders come from the run's seed: the same seed repeats them, another seed
    (or none: a fresh one each run) gives other orders, so a position bias does not repeat
    from run to run."""
    import random
    from simdops.bench.timing import Impl, time_impls

    def orders(rng):
        ran = []
        impls = [Impl(name, (lambda name=name: ran.append(name))) for name in "abcdef"]
        time_impls(impls, 12, 0.0, rng)
        return ran[-12 * len(impls):]
    assert orders(random.Random(5)) == orders(random.Random(5))
    assert orders(random.Random(5)) != orders(random.Random(6))
    assert len({tuple(orders(None)) for _ in range(3)}) > 1


def test_the_seed_is_recorded_and_taken(tmp_path):
    rc, report = run(tmp_path, "--only", "clip/float32/1000", "--seed", "77")
    assert rc == 0 and report["settings"]["order_seed"] == 77
    rc, report = run(tmp_path, "--only", "clip/float32/1000")
    assert rc == 0 and isinstance(report["settings"]["order_seed"], int)


def test_list_prints_the_selected_cases_without_measuring(capsys):
    assert bench.main(["--quick", "--sizes", "1000", "--list"]) == 0
    out, err = capsys.readouterr()
    expected = bench_cases.select([1000], True, False)
    lines = out.splitlines()
    assert lines[0].startswith(f"{len(expected)} cases")
    listed = [line.split()[0] for line in lines[1:]]
    assert listed == [c.id for c in expected]
    assert "clip/float32/1000" in listed and "ETA" not in err     # nothing measured
    assert bench.main(["--quick", "--sizes", "1000", "--list", "--only",
                       "clip/float32/1000"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0].startswith("1 case (") and len(out.splitlines()) == 2


def test_only_names_a_case_that_only_the_goal_rows_run(capsys):
    # requant_fp32 is not in the size grid; without --goals, --only still finds it
    assert not any(c.id == "requant_fp32/int32/65536" for c in bench_cases.select(None, True, False))
    assert bench.main(["--quick", "--list", "--only", "requant_fp32/int32/65536"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0].startswith("1 case (")
    assert out.splitlines()[1].split()[0] == "requant_fp32/int32/65536"
    # a text that matches grid cases selects only those, as before
    assert bench.main(["--quick", "--list", "--only", "clip/float32/65536"]) == 0
    assert [line.split()[0] for line in capsys.readouterr().out.splitlines()[1:]] == [
        "clip/float32/65536"]


def test_only_matching_nothing_shows_the_cases(capsys):
    assert bench.main([*TINY, "--only", "nosuch"]) == 2
    err = capsys.readouterr().err
    assert "no case matches --only nosuch" in err
    assert "clip/float32/1000" in err and "hardmax float32 1x1024" in err


def test_json_dash_writes_the_report_to_stdout(capsys):
    assert bench.main([*TINY, "--json", "-", "--only", "clip/float32/1000"]) == 0
    out, err = capsys.readouterr()
    report = json.loads(out)                       # stdout is the JSON and nothing else
    assert [c["id"] for c in report["cases"]] == ["clip/float32/1000"]
    assert "x copy" in err                         # the table went to stderr
    assert "bench: 1 case in" in err and "1 cases" not in err


def test_goals_text_when_no_goal_row_was_run():
    """--goals with --only cases that complete no goal row says so instead of failing."""
    from simdops.bench import report
    text = report.format_goals_text({"goals": []})
    assert "none has both of its cases" in text


@pytest.mark.parametrize("case_id", ["requant_fp32_pc/int32/256x256",
                                     "requant_fp32_pc+bias/int32/256x256"])
def test_per_tensor_path_differs_from_its_case_only_in_the_scale(case_id):
    """The per-channel goal rows' baseline is a path of the same case: the same x, bias,
    clamp and offset with one float32 scale (checked against the Python reference)."""
    case = next(c for c in bench_cases.registered() if c.id == case_id)
    assert bench_cases.PER_TENSOR_SCALE in case.paths
    p = case.op.params(case.dtype)
    x = case.op.make_input(case.dtype, case.shape, np.random.default_rng(5))
    q = case.op.fit(p, x)
    assert isinstance(q["scale"], np.ndarray) and q["scale"].shape == (case.shape[-1],)
    assert (q["bias"] is not None) == case_id.startswith("requant_fp32_pc+bias")
    out = np.empty(case.shape, np.uint8)
    bench_cases.PER_TENSOR_SCALE.make(x, out, p)()
    expected = reference.requantize_fp32(x, np.float32(families.FP32_SCALE), q["offset"],
                                         q["bias"], q["min"], q["max"])
    assert out.tobytes() == expected.tobytes()
    # ... and the case's own call differs: its scales are a vector
    case.op.simdops(x, out, p)()
    assert out.tobytes() != expected.tobytes()


@pytest.mark.parametrize("case_id", ["requant_single/int32/65536",
                                     "requant_single_pc+bias/int32/256x256"])
def test_double_rounding_path_runs_its_case_with_double_rounding(case_id):
    """The single-rounding goal rows' baseline is a path of the same case: the same
    parameters with the default double rounding (checked against the Python references)."""
    case = next(c for c in bench_cases.registered() if c.id == case_id)
    assert bench_cases.DOUBLE_ROUNDING in case.paths
    p = case.op.params(case.dtype)
    x = case.op.make_input(case.dtype, case.shape, np.random.default_rng(6))
    q = case.op.fit(p, x)
    args = (x, q["multiplier"], q["shift"], q["offset"], q["bias"], q["min"], q["max"])
    out = np.empty(case.shape, np.uint8)
    bench_cases.DOUBLE_ROUNDING.make(x, out, p)()
    assert out.tobytes() == reference.requant_family(*args, rounding="double").tobytes()
    case.op.simdops(x, out, p)()
    assert out.tobytes() == reference.requant_family(*args, rounding="single").tobytes()


def test_goal_blocked_by_its_floor(monkeypatch):
    """A goal the floor alone misses is BLOCKED with the floor's value; one the floor allows
    stays a MISS (and a PASS a PASS), the floor shown."""
    from simdops.bench import goals as goal_rows
    from simdops.bench.report import _goal_cells

    def case(cid, **seconds):
        return {"id": cid, "results": {k: {"seconds": v, "elements_per_s": 16 / v}
                                       for k, v in seconds.items()}}
    cases = [case("a", fn=1.0, uf=2.7, fl=2.2), case("b", fn=1.0, uf=2.7, fl=1.2),
             case("c", fn=1.0, uf=1.3, fl=1.2), case("d", fn=56.0, uf=73.0, fl=3.5),
             case("e", fn=56.0, uf=73.0, fl=9.0)]
    monkeypatch.setattr(goal_rows, "GOALS", [
        *(goal_rows.Goal(cid, (cid, "uf"), (cid, "fn"), 1.5, "time", floor=(cid, "fl"))
          for cid in "abc"),
        *(goal_rows.Goal(cid, (cid, "uf"), (cid, "fn"), 0.9, floor=(cid, "fl"))
          for cid in "de")])
    rows = {r["label"]: r for r in goal_rows.evaluate(cases, "avx2")}
    assert rows["a"]["status"] == "BLOCKED (floor 2.2)"
    assert rows["b"]["status"] == "MISS" and rows["b"]["floor"] == 1.2
    assert rows["c"]["status"] == "PASS"
    assert rows["d"]["status"] == "MISS" and abs(rows["d"]["floor"] - 56 / 59.5) < 1e-12
    assert rows["e"]["status"].startswith("BLOCKED (floor 0.86")
    assert _goal_cells(rows["b"])[-1] == "MISS (floor 1.2)"


def test_goal_blocked_by_its_measured_bound():
    """A ratio goal with a measured bound under it is BLOCKED with the bound when it misses,
    on the bound's ISA only; a bound at or over the goal, or a PASS, leaves the status."""
    from simdops.bench import goals as goal_rows

    def case(cid, **seconds):
        return {"id": cid, "results": {k: {"seconds": v, "elements_per_s": 16 / v}
                                       for k, v in seconds.items()}}
    cases = [case("a", fn=1.0, ch=1.4), case("b", fn=1.0, ch=0.9), case("c", fn=1.0, ch=1.4)]
    goals = [goal_rows.Goal("a", ("a", "ch"), ("a", "fn"), 1.0, bound=0.69, bound_isa="avx512"),
             goal_rows.Goal("b", ("b", "ch"), ("b", "fn"), 1.0, bound=0.69, bound_isa="avx512"),
             goal_rows.Goal("c", ("c", "ch"), ("c", "fn"), 1.0, bound=1.2, bound_isa="avx512")]
    rows = {r["label"]: r for r in goal_rows.evaluate(cases, "avx512", goals)}
    assert rows["a"]["status"] == "BLOCKED (bound 0.69)" and rows["a"]["bound"] == 0.69
    assert rows["b"]["status"] == "PASS"
    assert rows["c"]["status"] == "MISS"
    rows = {r["label"]: r for r in goal_rows.evaluate(cases, "avx2", goals)}
    assert rows["a"]["status"] == "MISS" and "bound" not in rows["a"]
    # the chain rows carry this machine's bounds (goals.CHAIN_BOUNDS), below their goal
    chain = [g for g in goal_rows.GOALS if g.bound is not None]
    assert chain and all(g.bound_isa == "avx512" and 0 < g.bound < g.goal for g in chain)


def test_goal_tie_is_measured_by_its_aa_pair():
    """A subject running the baseline's own kernel misses by noise: the row is a TIE only
    when the baseline timed again in the same rounds (the A/A pair) is at least as far from
    1 as the subject is under the goal; otherwise it stays a MISS (and a PASS a PASS)."""
    from simdops.bench import goals as goal_rows

    def case(cid, **seconds):
        return {"id": cid, "results": {k: {"seconds": v, "elements_per_s": 16 / v}
                                       for k, v in seconds.items()}}
    # elements/s ratios: a 1/1.03 (aa 1/1.04), b 1/1.03 (aa 1/1.01), c 1/0.98, d 1/1.03
    cases = [case("a", fn=1.0, ch=1.03, aa=1.04), case("b", fn=1.0, ch=1.03, aa=1.01),
             case("c", fn=1.0, ch=0.98, aa=1.2), case("d", fn=1.0, ch=1.03, aa=0.96)]
    goals = [goal_rows.Goal(c, (c, "ch"), (c, "fn"), 1.0, same_kernel=(c, "aa"))
             for c in "abcd"]
    rows = {r["label"]: r for r in goal_rows.evaluate(cases, "avx512", goals)}
    assert rows["a"]["status"] == "TIE (A/A 0.962)"
    assert rows["b"]["status"] == "MISS" and abs(rows["b"]["aa"] - 1 / 1.01) < 1e-12
    assert rows["c"]["status"] == "PASS"
    assert rows["d"]["status"].startswith("TIE (A/A 1.04")     # faster A/A: the same spread
    # a time row: the subject's time over the baseline's, against the A/A pair's distance
    # e 1.03 (aa 1.04): TIE; f 1.03 (aa 0.99): MISS; g 0.98: PASS whatever the pair
    cases = [case("e", fn=1.0, ch=1.03, aa=1.04), case("f", fn=1.0, ch=1.03, aa=0.99),
             case("g", fn=1.0, ch=0.98, aa=1.2)]
    goals = [goal_rows.Goal(c, (c, "ch"), (c, "fn"), 1.0, "time", same_kernel=(c, "aa"))
             for c in "efg"]
    rows = {r["label"]: r for r in goal_rows.evaluate(cases, "avx512", goals)}
    assert rows["e"]["status"] == "TIE (A/A 1.04)" and rows["e"]["aa"] == 1.04
    assert rows["f"]["status"] == "MISS"
    assert rows["g"]["status"] == "PASS"
    # the rows that carry a pair: those that run the default's kernel (oneDNN's, at the
    # bench's steps whose product is 1), and the torch.compile row, whose two sides do the
    # same work by construction
    paired = [g for g in goal_rows.GOALS if g.same_kernel is not None]
    assert paired and all("oneDNN" in g.label or "torch.compile less a trivial" in g.label
                          for g in paired)


def test_lowbit_cases_agree_with_their_runtime_paths():
    """The low-bit rows (ops_lowbit): on small shapes, every simdops call, the simdops
    quantize+dequantize path and ONNX Runtime's paths (when importable) give the same bits,
    and the copy column runs on arrays of its own (x and out differ in shape)."""
    pytest.importorskip("ml_dtypes")
    from simdops.bench import ops_lowbit, runner
    rng = np.random.default_rng(3)
    cases = [ops_lowbit.LowbitCase(ops_lowbit.Int4BlockedDequantize(32), "int4", (96, 8),
                                   paths=[ops_lowbit.Path(ops_lowbit.ORT_DQ, ops_lowbit._ort_int4)]),
             ops_lowbit.LowbitCase(ops_lowbit.Float8Op(True), "float32", (100,)),
             ops_lowbit.LowbitCase(ops_lowbit.Float8Op(False), "float8_e4m3fn", (100,),
                                   paths=[ops_lowbit.Path(ops_lowbit.PAIR, ops_lowbit._pair),
                                          ops_lowbit.Path(ops_lowbit.ORT_CHAIN,
                                                          ops_lowbit._ort_f8_chain)])]
    for case in cases:
        rec = runner.run_case(case, [simdops.isa()], None, None, rng, 2, 0.0005)
        for name, r in rec["results"].items():
            assert r["same_output_as_simdops"] in (None, True), (case.id, name)
        assert "_scale" not in rec["params"]
        if case.paths and importlib.util.find_spec("onnxruntime"):
            assert any(name.startswith("ORT") for name in rec["results"]), case.id
