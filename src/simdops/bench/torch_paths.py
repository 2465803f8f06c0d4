"""The per-call cost of simdops.torch's custom ops, eager and inside torch.compile: paths of
the clip float32 n=16 case (the fixed cost; the kernel itself is nanoseconds).

A compiled function has a per-call cost of its own (guards, wrappers) that is not the op's.
Each torch.compile row compares two composite calls timed in the same rounds, so that the
subtraction is exact: (compiled A + eager B) vs (eager A + compiled B) is A's compiled
cost over its eager cost, against B's.

- The goal row takes for B a trivial custom op (torch.library.custom_op, clip's positional
  arguments, its body a torch.empty_like): B's compiled-minus-eager is torch's own cost of
  a custom op inside a compiled function, the allowance the goal grants. subject <=
  baseline means: the op inside a compiled function costs no more than the eager op plus
  torch's custom-op dispatch in a compiled graph.
- A report row takes torch.clamp for B (which inductor turns into its own C++ kernel, no
  op call), and another puts the trivial op in A's place there: no custom op can reach 1.0
  against torch.clamp, the trivial one included (docs/torch.md, "What a call costs").

Every path returns None (the row is left out) when torch is not importable; the compiled
paths compile on their first call, with inductor's FX graph cache off for them (its key
does not include a custom op's tags or schema: a graph cached under another simdops would
be reused as it was)."""
from simdops.bench.cases import Path, register_path
from simdops.bench.goals import Goal, register_goal

_COMPILED = {}
_TRIVIAL = []


def _torch():
    try:
        import torch
        import simdops.torch  # noqa: F401  (registers torch.ops.simdops.*)
    except Exception:          # not installed, or a broken install: no torch rows
        return None
    return torch


def _trivial_op(torch):
    """A custom op with clip's positional arguments that only allocates its result, as
    torch.library registers it (no tag, custom_op's own kernels): registered once."""
    if not _TRIVIAL:
        from typing import Optional

        @torch.library.custom_op("simdops_bench::empty_like", mutates_args=())
        def empty_like(x: torch.Tensor, lo: Optional[float],
                       hi: Optional[float]) -> torch.Tensor:
            return torch.empty_like(x)

        empty_like.register_fake(lambda x, lo, hi: torch.empty_like(x))
        _TRIVIAL.append(torch.ops.simdops_bench.empty_like.default)
    return _TRIVIAL[0]


def _callee(torch, name):
    """The eager callee name (lo, hi bounds): the op, the trivial op or torch.clamp."""
    if name == "op":
        return torch.ops.simdops.clip.default
    if name == "trivial":
        return _trivial_op(torch)
    return torch.clamp


def _compiled(torch, name, lo, hi):
    """One compiled function per (callee, bounds), shared by the paths of a run."""
    key = (name, lo, hi)
    if key not in _COMPILED:
        f = _callee(torch, name)
        _COMPILED[key] = torch.compile(lambda t: f(t, lo, hi), fullgraph=True,
                                       options={"fx_graph_cache": False})
    return _COMPILED[key]


def _eager_op(x, out, p):
    torch = _torch()
    if torch is None or x.dtype.name != "float32":
        return None
    t, op = torch.from_numpy(x), torch.ops.simdops.clip.default
    return lambda: op(t, p["min"], p["max"])


def _composite(compiled_name, eager_name):
    """A path: compiled_name's callee compiled plus eager_name's eager, on the same tensor."""
    def make(x, out, p):
        torch = _torch()
        if torch is None or x.dtype.name != "float32":
            return None
        lo, hi = p["min"], p["max"]
        t, compiled = torch.from_numpy(x), _compiled(torch, compiled_name, lo, hi)
        eager = _callee(torch, eager_name)
        return lambda: (eager(t, lo, hi), compiled(t))[1]
    return make


TORCH_OP = Path("torch.ops.simdops.clip", _eager_op)
_CALLEE_NAMES = {"op": "op", "trivial": "trivial op", "clamp": "clamp"}
COMPOSITE_PATHS = {
    (c, e): Path(f"compiled {_CALLEE_NAMES[c]} + eager {_CALLEE_NAMES[e]}", _composite(c, e))
    for c, e in (("op", "trivial"), ("trivial", "op"), ("op", "clamp"), ("clamp", "op"),
                 ("trivial", "clamp"), ("clamp", "trivial"))}
# The goal row's baseline again, in the same rounds (its own lambda over the same compiled
# function and eager op): the two rows of the goal do the same work by construction (the same
# Python frames, 63 of them a compiled call, for the op and the trivial op; a call's
# instructions within 1% of each other under callgrind), so how far this A/A pair reads from 1
# in a run is how far that run can tell the two apart: a MISS within it is a TIE.
AA_PATH = Path("compiled trivial op + eager op (A/A)", _composite("trivial", "op"))
CASE = "clip/float32/16"
for _path in (TORCH_OP, *COMPOSITE_PATHS.values(), AA_PATH):
    register_path(CASE, _path)


def _row(a, b):
    """(subject, baseline) of the row 'a in torch.compile less b's compiled cost'."""
    return (CASE, COMPOSITE_PATHS[(a, b)].name), (CASE, COMPOSITE_PATHS[(b, a)].name)


register_goal(Goal("torch.ops.simdops.clip eager (16 float32), time vs simdops.clip(out=)",
                   (CASE, TORCH_OP.name), (CASE, "simdops"), None, "time",
                   "torch's custom-op dispatch: a report, no goal"))
register_goal(Goal("simdops.torch.clip in torch.compile less a trivial custom op's compiled "
                   "cost, time vs the eager op", *_row("op", "trivial"), 1.0, "time",
                   "the compiled op costs no more than the eager op plus torch's custom-op "
                   "dispatch in a compiled graph (a trivial custom op's); a MISS within the "
                   "baseline's own A/A distance is a TIE",
                   same_kernel=(CASE, AA_PATH.name)))
register_goal(Goal("simdops.torch.clip in torch.compile less torch.clamp's compiled cost, "
                   "time vs the eager op", *_row("op", "clamp"), None, "time",
                   "a report: no custom op reaches 1.0 here (next row)"))
register_goal(Goal("a trivial custom op in torch.compile less torch.clamp's compiled cost, "
                   "time vs the eager trivial op", *_row("trivial", "clamp"), None, "time",
                   "a report: torch's own cost of a custom op in a compiled graph"))
