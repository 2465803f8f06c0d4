"""The report: the user-facing table (text or markdown), the goal rows, and the markdown
section of docs/performance.md."""
import shlex
import statistics

from simdops.bench.machine import describe
from simdops.bench.runner import BASELINES, COPY, NUMPY, ORT, TORCH
from simdops.bench.tiers import slot_dtype

RATIO_COLUMNS = ((COPY, "x copy"), (NUMPY, "x numpy"), (TORCH, "x torch"), (ORT, "x ORT"))
BEGIN, END = "<!-- bench:begin -->", "<!-- bench:end -->"


def _inherited(case, result, origins):
    """True when the ISA runs a lower tier's kernel for this case."""
    if result["kind"] != "simdops" or not case["kernel_entry"]:
        return False            # no main-table entry (the low-bit cases): not known here
    origin = origins.get(result["isa"], {}).get(f"{case['kernel_entry']}/{slot_dtype(case)}")
    return origin is not None and origin != result["isa"]


def _threads_text(r, report):
    if not report["settings"]["threads_shown"]:
        return None
    if r["kind"] != "simdops":
        return ""
    if not report["machine"]["simdops_threads_supported"]:
        return "n/a"
    return str(r["threads"])


def table_rows(report):
    """(header, rows): one row per simdops implementation (ISA x threads) or entry point of
    every case; cells are strings."""
    origins = report["machine"]["kernel_origins"]
    shown = [b for b, _ in RATIO_COLUMNS
             if any(b in c["results"] for c in report["cases"])]
    header = ["op", "dtype", "size", "isa"]
    if report["settings"]["threads_shown"]:
        header.append("threads")
    header += ["GB/s", "Gelem/s", "copy GB/s"] + [t for b, t in RATIO_COLUMNS if b in shown]
    rows = []
    for case in report["cases"]:
        copy = case["results"].get(COPY)
        for name, r in case["results"].items():
            if r["kind"] == "baseline":
                continue
            isa = (r["isa"] + ("*" if _inherited(case, r, origins) else "")
                   if r["kind"] == "simdops" else name)
            row = [case["op"], case["dtype_label"], case["size_label"], isa]
            threads = _threads_text(r, report)
            if threads is not None:
                row.append(threads)
            row += [f"{r['gb_per_s']:.3g}", f"{r['elements_per_s'] / 1e9:.3g}",
                    "-" if copy is None else f"{copy['gb_per_s']:.3g}"]
            ratios = case["ratios"][name]
            row += [f"{ratios[b]:.3g}" if b in ratios else "-" for b in shown]
            rows.append(row)
    return header, rows


def _spread(report):
    spreads = [r["spread"] for c in report["cases"] for r in c["results"].values()]
    if not spreads:
        return ""
    return (f"median/min spread of a measurement: typical {statistics.median(spreads):.0%}, "
            f"worst {max(spreads):.0%}")


def preamble(report):
    s = report["settings"]
    lines = [describe(report["machine"]),
             f"Timing: implementations interleaved in one process, the best of {s['repeat']} "
             f"rounds of >= {s['sample_time'] * 1e3:g} ms each ({_spread(report)}; other load "
             f"on the machine makes numbers noisy). {s['elapsed_seconds']:.0f} s in all.",
             "GB/s: bytes read + written per call. A ratio column 'x <baseline>' is "
             "baseline time / simdops time: > 1 means simdops is faster.",
             "np.copyto moves the same bytes (the same view; requant: int32 -> uint8 with "
             "casting='unsafe'). Baselines run on one thread. * = this ISA runs a lower tier's "
             "kernel."]
    m = report["machine"]
    busiest = max([v for v in (m["loadavg_start"], m["loadavg_end"]) if v is not None],
                  default=None)
    if busiest is not None and m["cpu_count"] and busiest > m["cpu_count"]:
        lines.append(f"WARNING: load average {busiest:g} on {m['cpu_count']} cores: other "
                     f"processes competed for the CPU during this run; rerun on a quiet "
                     f"machine before trusting these ratios.")
    if s["threads_shown"] and not m["simdops_threads_supported"]:
        lines.append("threads: n/a (this simdops has no set_num_threads; one thread measured)")
    return lines


def format_text(report, goals=False):
    header, rows = table_rows(report)
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h)
              for i, h in enumerate(header)]
    left = {"op", "dtype", "size", "isa"}

    def line(cells):
        return "  ".join(c.ljust(w) if h in left else c.rjust(w)
                         for c, w, h in zip(cells, widths, header)).rstrip()

    out = preamble(report) + ["", line(header)] + [line(r) for r in rows]
    differ = [f"{name} on {c['label']}" for c in report["cases"]
              for name, r in c["results"].items()
              if r["kind"] == "baseline" and r["same_output_as_simdops"] is False]
    if differ:
        out += ["", "Different outputs from simdops (their own semantics, see "
                    "docs/semantics.md): " + "; ".join(differ)]
    if goals:
        out += ["", format_goals_text(report)]
    return "\n".join(out)


def _goal_cells(g):
    value = "-" if g["value"] is None else f"{g['value']:.3g}"
    target = "" if g["goal"] is None else ("<= " if g["kind"] == "time" else ">= ") + \
        f"{g['goal']:g}"
    what = "time x" if g["kind"] == "time" else "ratio"
    status = g["status"]
    if g.get("floor") is not None and not status.startswith("BLOCKED"):
        status += f" (floor {g['floor']:.3g})"
    return [g["label"], what, value, target, status]


def format_goals_text(report):
    rows = [_goal_cells(g) for g in report["goals"]]
    if not rows:
        return ("Performance goals: none has both of its cases in this run (each row's "
                "command in docs/performance.md names them).")
    width = max(len(r[0]) for r in rows)
    isa = report["goals"][0]["isa"] if report["goals"] else "-"
    lines = [f"Performance goals ({isa}; ratio = elements/s over the baseline's, "
             f"time x = time over the baseline's; a report, not a test):"]
    lines += [f"  {r[0]:<{width}}  {r[1]:>6} {r[2]:>7}  {r[3]:<7} {r[4]}" for r in rows]
    return "\n".join(lines)


def goal_command(g):
    """The command measuring just the cases of one goal row."""
    ids = list(dict.fromkeys([g["subject"][0], g["baseline"][0]]))
    return "python -m simdops bench --goals --only " + " ".join(shlex.quote(i) for i in ids)


def _md_table(header, rows):
    def esc(cell):
        return cell.replace("|", "\\|")
    lines = ["| " + " | ".join(header) + " |",
             "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(esc(c) for c in r) + " |" for r in rows]
    return lines


def format_markdown(report, command, plot_path=None):
    """The generated section of docs/performance.md, between BEGIN and END markers."""
    lines = [BEGIN, "<!-- generated by python -m simdops bench --markdown; edits here are "
             "overwritten -->", "", "## Results", "", f"Command: `{command}`", ""]
    lines += [p + "  " for p in preamble(report)] + [""]
    header, rows = table_rows(report)
    lines += _md_table(header, rows)
    if report["goals"]:
        lines += ["", "### Performance goals", "",
                  "Each row's own command reruns just the cases it compares.", ""]
        lines += _md_table(["goal", "measure", "value", "target", "status", "command"],
                           [_goal_cells(g) + [f"`{goal_command(g)}`"]
                            for g in report["goals"]])
    if plot_path:
        lines += ["", f"![throughput against size, np.copyto as the ceiling]({plot_path})"]
    lines += ["", END]
    return "\n".join(lines) + "\n"


def _generated_lines(lines):
    """(first, last) index of the generated block in lines: a line that is BEGIN alone, up to
    the next line that is END alone; None without a BEGIN line. A marker quoted inside a line
    of prose does not count, so a page may name the markers without losing the text after the
    quote."""
    begin = next((i for i, line in enumerate(lines) if line.strip() == BEGIN), None)
    if begin is None:
        return None
    end = next((i for i in range(begin + 1, len(lines)) if lines[i].strip() == END), None)
    if end is None:
        # appending a block here would pair this BEGIN with the new END next time and
        # delete the text between them
        raise ValueError(f"line {begin + 1} is {BEGIN} but no {END} line follows it")
    return begin, end


def splice_markdown(existing, section):
    """existing text with its generated block replaced by section (appended if absent)."""
    lines = (existing or "").splitlines(keepends=True)
    block = _generated_lines(lines)
    if block:
        first, last = block
        return "".join(lines[:first]) + section.rstrip("\n") + "\n" + "".join(lines[last + 1:])
    if existing:
        return existing.rstrip("\n") + "\n\n" + section
    return section


assert set(b for b, _ in RATIO_COLUMNS) == set(BASELINES)
