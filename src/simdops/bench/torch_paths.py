"""The per-call cost of simdops.torch's custom ops, eager and inside torch.compile: paths of
the clip float32 n=16 case (the fixed cost; the kernel itself is nanoseconds).

A compiled function has a per-call cost of its own (guards, wrappers) that is not the op's;
torch.clamp compiled alone measures it. The goal row compares two composite calls timed in
the same rounds, so that the subtraction is exact:

    (compiled op) + (eager torch.clamp)   vs   (eager op) + (compiled torch.clamp)

subject <= baseline means: the op inside a compiled function costs no more than the eager
op (the simdops call plus torch's custom-op dispatch). Every path returns None (the row is
left out) when torch is not importable; the compiled paths compile on their first call."""
from simdops.bench.cases import Path, register_path
from simdops.bench.goals import Goal, register_goal

_COMPILED = {}


def _torch():
    try:
        import torch
        import simdops.torch  # noqa: F401  (registers torch.ops.simdops.*)
    except Exception:          # not installed, or a broken install: no torch rows
        return None
    return torch


def _compiled(torch, name, lo, hi):
    """One compiled function per (name, bounds), shared by the paths of a run."""
    key = (name, lo, hi)
    if key not in _COMPILED:
        if name == "op":
            op = torch.ops.simdops.clip.default
            fn = (lambda t: op(t, lo, hi))
        else:
            fn = (lambda t: torch.clamp(t, lo, hi))
        _COMPILED[key] = torch.compile(fn, fullgraph=True)
    return _COMPILED[key]


def _eager_op(x, out, p):
    torch = _torch()
    if torch is None or x.dtype.name != "float32":
        return None
    t, op = torch.from_numpy(x), torch.ops.simdops.clip.default
    return lambda: op(t, p["min"], p["max"])


def _compiled_op_plus_eager_clamp(x, out, p):
    torch = _torch()
    if torch is None or x.dtype.name != "float32":
        return None
    t, compiled = torch.from_numpy(x), _compiled(torch, "op", p["min"], p["max"])
    lo, hi = p["min"], p["max"]
    return lambda: (torch.clamp(t, lo, hi), compiled(t))[1]


def _eager_op_plus_compiled_clamp(x, out, p):
    torch = _torch()
    if torch is None or x.dtype.name != "float32":
        return None
    t, compiled = torch.from_numpy(x), _compiled(torch, "clamp", p["min"], p["max"])
    op, lo, hi = torch.ops.simdops.clip.default, p["min"], p["max"]
    return lambda: (compiled(t), op(t, lo, hi))[1]


TORCH_OP = Path("torch.ops.simdops.clip", _eager_op)
COMPILED_OP_PLUS_CLAMP = Path("compiled op + eager clamp", _compiled_op_plus_eager_clamp)
EAGER_OP_PLUS_COMPILED_CLAMP = Path("eager op + compiled clamp", _eager_op_plus_compiled_clamp)
CASE = "clip/float32/16"
for _path in (TORCH_OP, COMPILED_OP_PLUS_CLAMP, EAGER_OP_PLUS_COMPILED_CLAMP):
    register_path(CASE, _path)

register_goal(Goal("torch.ops.simdops.clip eager (16 float32), time vs simdops.clip(out=)",
                   (CASE, TORCH_OP.name), (CASE, "simdops"), None, "time",
                   "torch's custom-op dispatch: a report, no goal"))
register_goal(Goal("simdops.torch.clip in torch.compile less the compiled function's own cost, "
                   "time vs the eager op",
                   (CASE, COMPILED_OP_PLUS_CLAMP.name), (CASE, EAGER_OP_PLUS_COMPILED_CLAMP.name),
                   1.0, "time", "the compiled op costs no more than the eager op"))
