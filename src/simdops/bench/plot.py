"""--plot: per op, throughput against size (log-log, so a 150 GB/s copy bar and a 1 GB/s
numpy line both stay readable) with np.copyto as the ceiling; plus, for clip and shrink, the
ratio to np.copyto of every dtype. Needs matplotlib (optional)."""
import math

from simdops.bench.runner import COPY, NUMPY, ORT, TORCH

MAIN_DTYPE = {"requant": "int32", "requant_pc+bias": "int32"}     # else float32
STYLE = {NUMPY: ("tab:orange", "-"), TORCH: ("tab:red", "-"), ORT: ("tab:purple", "-")}


def matplotlib_missing():
    """None when matplotlib can be used, else the message to print."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return "matplotlib is not importable (pip install matplotlib)"
    return None


def _simdops_result(case, isa, threads):
    for r in case["results"].values():
        if r["kind"] == "simdops" and r["isa"] == isa and (r["threads"] or 1) == threads:
            return r
    return None


def _series(cases, isa):
    """{op: {line name: [(n, GB/s)]}} for the op's main dtype on contiguous inputs."""
    data = {}
    for c in cases:
        if c["view"] or c["dtype"] != MAIN_DTYPE.get(c["op"], "float32") or c["n"] < 1000:
            continue
        lines = data.setdefault(c["op"], {})
        for threads in (1, 2):
            r = _simdops_result(c, isa, threads)
            if r:
                lines.setdefault(f"simdops {isa}" + (f" {threads}t" if threads > 1 else ""),
                                 []).append((c["n"], r["gb_per_s"]))
        for name in (COPY, NUMPY, TORCH, ORT):
            if name in c["results"]:
                lines.setdefault(name, []).append((c["n"], c["results"][name]["gb_per_s"]))
    return data


def _ratios(cases, op, isa):
    """{dtype: [(n, simdops time over copy's inverse)]} for one op's contiguous cases."""
    data = {}
    for c in cases:
        r = _simdops_result(c, isa, 1)
        if (c["op"] == op and not c["view"] and c["n"] >= 1000 and r
                and COPY in c["results"]):
            data.setdefault(c["dtype"], []).append(
                (c["n"], c["results"][COPY]["seconds"] / r["seconds"]))
    return data


def write_plot(report, path, isa):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from matplotlib.ticker import FuncFormatter
    plain = FuncFormatter(lambda v, _: f"{v:g}")
    # label the 2x and 5x minor ticks only, so a decade spanned by the data still reads
    plain_minor = FuncFormatter(
        lambda v, _: f"{v:g}" if round(v / 10 ** math.floor(math.log10(v))) in (2, 5) else "")

    cases = report["cases"]
    series = _series(cases, isa)
    ratio_ops = [op for op in ("clip", "shrink") if _ratios(cases, op, isa)]
    panels = len(series) + len(ratio_ops)
    cols = 3
    rows = max(1, math.ceil(panels / cols))
    fig, axes = plt.subplots(rows, cols, figsize=(5 * cols, 3.8 * rows), squeeze=False)
    flat = [ax for row in axes for ax in row]
    for ax, (op, lines) in zip(flat, series.items()):
        for name, points in lines.items():
            points.sort()
            xs, ys = zip(*points)
            if name == COPY:
                ax.plot(xs, ys, "k--", marker="s", label="np.copyto, same bytes (ceiling)")
            elif name.startswith("simdops"):
                ax.plot(xs, ys, marker="o", linewidth=2.2, color="tab:blue",
                        linestyle=":" if name.endswith("t") else "-", label=name)
            else:
                color, style = STYLE[name]
                ax.plot(xs, ys, marker=".", color=color, linestyle=style, label=name)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.yaxis.set_major_formatter(plain)     # 0.1, 1, 10, 100 rather than 10^k
        ax.yaxis.set_minor_formatter(plain_minor)
        ax.set_title(f"{op} {MAIN_DTYPE.get(op, 'float32')}")
        ax.set_xlabel("elements per call")
        ax.set_ylabel("GB/s (read + written)")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7)
    for ax, op in zip(flat[len(series):], ratio_ops):
        for dtype, points in sorted(_ratios(cases, op, isa).items()):
            points.sort()
            xs, ys = zip(*points)
            ax.plot(xs, ys, marker="o", label=dtype)
        ax.axhline(1.0, color="k", linestyle="--", linewidth=1)
        ax.set_xscale("log")
        ax.set_title(f"{op}: copy time / simdops time ({isa})")
        ax.set_xlabel("elements per call")
        ax.set_ylabel("ratio to np.copyto (1 = copy speed)")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7, ncol=2)
    for ax in flat[panels:]:
        ax.axis("off")
    m = report["machine"]
    fig.suptitle(f"simdops {m['simdops_version']} on {m.get('cpu_model') or m['machine']} "
                 f"(best of {report['settings']['repeat']} rounds, one thread unless marked)")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
