"""`python -m simdops bench`: the command line (arguments, the run, the outputs).

`add_arguments(parser)` and `run(args)` let `python -m simdops` delegate to this module from
its own argparse subcommand; `main(argv)` is the standalone entry point.

The benchmark is split into modules with one job each:
  ops.py      the benchmarked operations and their numpy / torch implementations
  ort.py      ONNX Runtime models built in memory (Clip, Shrink, Hardmax)
  cases.py    the Case type, the case registry (register_case / register_path) and
              the built-in catalogue
  timing.py   interleaved timing, thread control, progress with an ETA
  runner.py   one case: implementations, same-bits check, result record
  goals.py    the performance goal rows (register_goal)
  torch_paths.py  simdops.torch's per-call cost, eager and compiled (a plug-in: paths, goals)
  machine.py  CPU, cores, load, versions
  report.py   the text table, the goal rows, the markdown for docs/performance.md
  tiers.py    the tier check (each tier's own kernels against its parent's)
  plot.py     --plot (matplotlib, optional)
"""
import argparse
import json
import os
import random
import shlex
import sys
import time

import numpy as np

import simdops
from simdops.bench import cases as case_catalogue
from simdops.bench import goals as goal_rows
from simdops.bench import machine as machine
from simdops.bench import plot as plot
from simdops.bench import report as report
from simdops.bench import runner as runner
from simdops.bench import tiers as tier_check
from simdops.bench.cases import Case, Path, register_case, register_path
from simdops.bench.goals import Goal, register_goal
from simdops.bench.runner import COPY, NUMPY, ORT, TORCH
from simdops.bench.timing import Progress, estimated_seconds

DESCRIPTION = ("Throughput of simdops per op, dtype and size against np.copyto of the same "
               "bytes, numpy, PyTorch and ONNX Runtime (each when installed), measured "
               "interleaved in one process. Ratios are baseline time / simdops time "
               "(> 1: simdops is faster). Progress and ETA go to stderr, the table to stdout "
               "(to stderr with --json -, which writes the JSON to stdout).")

# how users type the command; argparse's default would be "__main__.py"
PROG = "python -m simdops bench"


def _thread_counts(text):
    try:
        counts = tuple(int(v) for v in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected N or N,M (thread counts), got {text!r}")
    if not counts or any(c < 1 for c in counts):
        raise argparse.ArgumentTypeError(f"thread counts must be >= 1, got {text!r}")
    return counts


def add_arguments(parser):
    """Add the bench options to an argparse parser (a subcommand's, or our own)."""
    parser.add_argument("--quick", action="store_true",
                        help="n = 65,536 and 1,048,576, fewer rounds: about half a minute")
    parser.add_argument("--goals", action="store_true",
                        help="also run the cases of the project's performance goals and print "
                             "the goal rows (ratio, goal, PASS/MISS)")
    parser.add_argument("--threads", type=_thread_counts, metavar="N[,M]",
                        help="measure simdops at these intra-op thread counts (a threads "
                             "column; n/a when simdops has no set_num_threads)")
    parser.add_argument("--isa", nargs="+", metavar="NAME",
                        help="measure these ISAs ('all': every available one; default: the "
                             "active ISA, %s)" % simdops.isa())
    parser.add_argument("--tiers", action="store_true",
                        help="measure every available ISA (unless --isa names some) and check "
                             "each tier's own kernels against its parent tier's: a kernel a "
                             "tier overrides must not be slower (the check is printed whenever "
                             "a tier and its parent are both measured)")
    parser.add_argument("--sizes", nargs="+", type=int, metavar="N",
                        help="element counts of the size grid instead of the defaults "
                             "(hardmax: N // 1024 rows of 1024)")
    parser.add_argument("--only", nargs="+", metavar="TEXT",
                        help="run only the cases whose id is one of these texts or whose "
                             "label contains one, e.g. --only 'hardmax float32 4096x1024' "
                             "clip/float32/16 (with --goals: the goal rows of those cases; "
                             "without it, the goal rows' own cases such as requant_fp32 when "
                             "nothing else matches); --list shows them")
    parser.add_argument("--list", action="store_true",
                        help="print the id and label of every case the other options select, "
                             "then exit without measuring")
    parser.add_argument("--repeat", type=int, metavar="R",
                        help="timed rounds per case (default 10 with --quick, else 30)")
    parser.add_argument("--sample-time", type=float, metavar="SECONDS",
                        help="minimum length of one timed sample (default 0.002 quick, "
                             "0.004 full)")
    parser.add_argument("--seed", type=int, metavar="N",
                        help="seed of the shuffled order of each round's timings (default: a "
                             "fresh one each run, printed in the JSON settings; the same seed "
                             "repeats a run's orders)")
    parser.add_argument("--json", metavar="FILE",
                        help="write every raw number and the machine description to FILE "
                             "('-': to stdout; the table then goes to stderr)")
    parser.add_argument("--plot", metavar="FILE.png",
                        help="draw throughput against size per op, np.copyto as the ceiling "
                             "(needs matplotlib)")
    parser.add_argument("--markdown", metavar="FILE",
                        help="write the results section of docs/performance.md: replaces the "
                             "part between the bench markers of FILE (or writes FILE)")
    return parser


def _isas(requested, tiers=False):
    available = list(simdops.available_isas())
    if not requested and tiers:
        return available, None
    if not requested:
        return [simdops.isa()], None
    if "all" in requested:
        return available, None
    isas = list(dict.fromkeys(requested))
    unknown = [i for i in isas if i not in available]
    if unknown:
        return None, (f"ISA {', '.join(unknown)} not available here; available: "
                      f"{', '.join(available)} (or 'all')")
    return isas, None


def _case_lines(cases):
    width = max((len(c.id) for c in cases), default=0)
    return [f"  {c.id:<{width}}  {c.label}" for c in cases]


def _command(args):
    argv = getattr(args, "argv", None)
    if argv is None:
        argv = sys.argv[2:] if sys.argv[1:2] == ["bench"] else sys.argv[1:]
    return " ".join(["python -m simdops bench"] + [shlex.quote(a) for a in argv])


def _check(args):
    """(ISAs to measure, None) or (None, the usage error)."""
    isas, error = _isas(args.isa, getattr(args, "tiers", False))
    if error is None and (any(n < 1 for n in args.sizes or ())
                          or (args.repeat is not None and args.repeat < 1)
                          or (args.sample_time is not None and args.sample_time <= 0)):
        error = "--sizes, --repeat and --sample-time must be positive"
    return isas, error


def _measure(args, isas, selected):
    """Run the selected cases with progress on stderr; the full report (the JSON)."""
    torch = runner.import_torch()
    repeat = args.repeat or (10 if args.quick else 30)
    sample_time = args.sample_time or (0.002 if args.quick else 0.004)
    per_case = len(isas) * len(args.threads or (1,)) + 4
    progress = Progress([estimated_seconds(c.nbytes, per_case, repeat, sample_time)
                         for c in selected])
    rng = np.random.default_rng(20240601)
    seed = args.seed if getattr(args, "seed", None) is not None else random.randrange(2 ** 32)
    order_rng = random.Random(seed)
    load_start = machine.loadavg()
    started = time.perf_counter()
    results = []
    for case in selected:
        progress.start(case.label)
        results.append(runner.run_case(case, isas, args.threads, torch, rng, repeat,
                                       sample_time, order_rng))
        progress.finish()

    info = machine.machine_info(isas, torch, load_start)
    goals = []
    if args.goals:
        goals = goal_rows.evaluate(results, goal_rows.goal_isa(isas, info["active_isa"]))
        if args.only:             # a partial run: only the goal rows it measured
            goals = [g for g in goals if g["status"] != "SKIP (case not run)"]
    return {
        "machine": info,
        "settings": {"command": _command(args), "quick": args.quick, "goals": args.goals,
                     "sizes": args.sizes, "repeat": repeat, "sample_time": sample_time,
                     "order_seed": seed,
                     "threads": list(args.threads) if args.threads else None,
                     "threads_shown": bool(args.threads) or any(c.threads for c in selected),
                     "statistic": "min",
                     "ratio": "baseline seconds / simdops seconds (> 1: simdops faster)",
                     "elapsed_seconds": time.perf_counter() - started},
        "cases": results,
        "goals": goals,
        "tier_check": tier_check.check({"machine": info, "cases": results}),
    }


def _write_markdown(full, path, plot_path):
    image = None
    if plot_path:
        image = os.path.relpath(plot_path, os.path.dirname(os.path.abspath(path)))
    existing = None
    if os.path.exists(path):
        with open(path) as f:
            existing = f.read()
    section = report.format_markdown(full, full["settings"]["command"], image)
    with open(path, "w") as f:
        f.write(report.splice_markdown(existing, section))


def run(args):
    """Run the benchmark described by parsed arguments; returns the exit code."""
    isas, error = _check(args)
    if error:
        print(f"bench: {error}", file=sys.stderr)
        return 2
    plot_problem = plot.matplotlib_missing() if args.plot else None
    if plot_problem:
        print(f"bench: {plot_problem}; --plot {args.plot} will not be written", file=sys.stderr)
    case_catalogue.load_plugins(lambda message: print(message, file=sys.stderr))
    available = case_catalogue.select(args.sizes, args.quick, args.goals)
    selected = available
    if args.only:
        def matching(cases):
            return [c for c in cases if any(t == c.id or t in c.label for t in args.only)]
        selected = matching(available)
        if not selected and not args.goals:
            # a case only the goal rows run (e.g. requant_fp32) is still a case to name
            selected = matching(case_catalogue.select(args.sizes, args.quick, True))
        if not selected:
            print(f"bench: no case matches --only {' '.join(args.only)}; the cases "
                  f"(id, label) of these options are:", file=sys.stderr)
            print("\n".join(_case_lines(available)), file=sys.stderr)
            return 2
    if getattr(args, "list", False):
        noun = "case" if len(selected) == 1 else "cases"
        print(f"{len(selected)} {noun} (id, label); --only takes an id or part of a label:")
        print("\n".join(_case_lines(selected)))
        return 0

    full = _measure(args, isas, selected)
    json_to_stdout = args.json == "-"
    print(report.format_text(full, goals=args.goals),
          file=sys.stderr if json_to_stdout else sys.stdout)
    check_lines = tier_check.format_text(full["tier_check"])
    if check_lines:
        print("\n".join([""] + check_lines), file=sys.stderr if json_to_stdout else sys.stdout)
    if json_to_stdout:
        json.dump(full, sys.stdout, indent=1)
        print()
    elif args.json:
        with open(args.json, "w") as f:
            json.dump(full, f, indent=1)
        print(f"bench: wrote {args.json}", file=sys.stderr)
    status = 0
    plot_written = None
    if args.plot:
        if plot_problem:
            print(f"bench: --plot {args.plot} not written: {plot_problem}", file=sys.stderr)
            status = 2
        else:
            plot.write_plot(full, args.plot,
                            goal_rows.goal_isa(isas, full["machine"]["active_isa"]))
            plot_written = args.plot
            print(f"bench: wrote {args.plot}", file=sys.stderr)
    if args.markdown:
        _write_markdown(full, args.markdown, plot_written)
        print(f"bench: wrote {args.markdown}", file=sys.stderr)
    return status


def main(argv=None):
    """Standalone entry point: parse argv (default sys.argv[1:]) and run."""
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = add_arguments(argparse.ArgumentParser(prog=PROG, description=DESCRIPTION))
    try:
        args = parser.parse_args(argv)
    except SystemExit as e:                   # --help or a usage error
        return e.code if isinstance(e.code, int) else 2
    args.argv = argv
    return run(args)


__all__ = ["add_arguments", "run", "main", "Case", "Path", "register_case", "register_path",
           "Goal", "register_goal", "COPY", "NUMPY", "TORCH", "ORT"]
