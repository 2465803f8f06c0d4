"""What the benchmark runs: the Case type, the case registry and the built-in catalogue.

A Case is one op on one dtype and one layout (a contiguous size, a 2-D shape reduced along an
axis, or a strided view). It allocates its arrays only when it runs (a 16M-element case holds
hundreds of MB), and it may carry extra simdops entry points ("paths", e.g. dml.execute) that
are timed next to the plain call.

Other modules extend the benchmark by calling `register_case` (a new case) or `register_path`
(another entry point timed inside a case, e.g. the 1-D clip through the C capsule inside
"clip/float32/65536"); goals.py has `register_goal` for a goal row comparing any two
measured implementations. Such a module is imported before a run when it is listed in
PLUGIN_MODULES (or imported by whoever calls the benchmark)."""
from dataclasses import dataclass, field, replace
from typing import Callable, Optional, Tuple

import numpy as np

from simdops.bench import ops as ops
from simdops.bench import ops_qbinary
from simdops.bench import ops_requant_chain
from simdops.bench import ops_requant_families

QUICK_SIZES = (65_536, 1_048_576)
FULL_SIZES = (65_536, 1_048_576)
BEYOND_CACHE = 16_777_216        # float32 clip/shrink at 64 MB: DRAM, not cache
HARDMAX_COLS = 1024
ELEMENTWISE = ("float32", "float16", "uint8", "int8", "int16", "int32")
VIEW_BASE = (1024, 1024)
# Strided inputs, by the text shown in the table.
VIEWS = {"[:, ::2]": lambda b: b[:, ::2], "[::-1, ::-1]": lambda b: b[::-1, ::-1]}


@dataclass(frozen=True)
class Path:
    """Another simdops entry point timed inside a case: `make(x, out, params)` returns a
    zero-argument callable writing `out` (or None when unavailable here)."""
    name: str
    make: Callable


@dataclass
class Case:
    """One benchmarked configuration; see the module docstring."""
    op: ops.Op
    dtype: str
    shape: Tuple[int, ...]              # shape of the op's input (of the view, for views)
    view: Optional[str] = None          # a key of VIEWS: the input is that view of a base array
    base_shape: Optional[Tuple[int, ...]] = None
    tags: frozenset = frozenset({"full"})   # "quick", "full", "goals"
    paths: list = field(default_factory=list)
    threads: Optional[Tuple[int, ...]] = None   # thread counts forced for this case

    @property
    def id(self):
        size = "x".join(map(str, self.shape)) if len(self.shape) > 1 else str(self.shape[0])
        return f"{self.op.name}/{self.dtype}/{size}{self.view or ''}"

    @property
    def n(self):
        return int(np.prod(self.shape))

    @property
    def out_dtype(self):
        return self.op.out_dtype(self.dtype)

    @property
    def nbytes(self):
        """Bytes read + written per call (x and out; per-channel vectors not counted)."""
        return self.n * (np.dtype(self.dtype).itemsize + np.dtype(self.out_dtype).itemsize)

    @property
    def dtype_label(self):
        return self.dtype if self.out_dtype == self.dtype else f"{self.dtype}->{self.out_dtype}"

    @property
    def size_label(self):
        if self.view:
            base = "x".join(map(str, self.base_shape))
            return f"b{self.view} of {base}"
        if len(self.shape) > 1:
            return "x".join(map(str, self.shape))
        return f"n={self.shape[0]:,}"

    @property
    def label(self):
        return f"{self.op.name} {self.dtype_label} {self.size_label}"

    def arrays(self, rng):
        """(x, out, params): input (a view when the case is one), zeroed output, parameters."""
        if self.view:
            base = self.op.make_input(self.dtype, self.base_shape, rng)
            x = VIEWS[self.view](base)
        else:
            x = self.op.make_input(self.dtype, self.shape, rng)
        assert x.shape == tuple(self.shape), (self.id, x.shape)
        return x, np.zeros(x.shape, self.out_dtype), self.op.params(self.dtype)

    def copy_baseline(self, x, out, p):
        """The np.copyto column: x copied into out, converting (the bytes the op moves);
        a case whose x and out differ in shape or size says what it copies instead."""
        return lambda: np.copyto(out, x, casting="unsafe")


_REGISTRY = []          # registered cases, in registration order
_EXTRA_PATHS = {}       # case id -> [Path]: entry points added to any case with that id
# Modules imported before a run so that they can register cases, paths and goals (e.g. a
# C-capsule call path). A module listed here that fails to import is reported and skipped.
PLUGIN_MODULES = [
    "simdops.bench.torch_paths",  # torch rows (none without torch)
    "simdops.bench.ufunc_rows",   # simdops.ufunc (numpy >= 2)
    "simdops.bench.ops_lowbit",   # int4 blocked / float8 QuantizeLinear, DequantizeLinear
]


def register_case(case):
    """Add a case to every run whose tags it carries ("quick", "full", "goals")."""
    if any(c.id == case.id for c in _REGISTRY):
        raise ValueError(f"bench case {case.id} is already registered")
    _REGISTRY.append(case)
    return case


def register_path(case_id, path):
    """Time another entry point inside the case `case_id` (a registered case or one of the
    size grid, e.g. "clip/float32/65536"), whenever that case runs."""
    _EXTRA_PATHS.setdefault(case_id, []).append(path)
    return path


def registered():
    return list(_REGISTRY)


def load_plugins(report=None):
    """Import PLUGIN_MODULES once; report(message) is told about each one that fails."""
    import importlib
    for name in PLUGIN_MODULES:
        try:
            importlib.import_module(name)
        except Exception as e:     # a broken plug-in must not stop the benchmark
            if report:
                report(f"bench: plug-in {name} not loaded: {type(e).__name__}: {e}")


def hardmax_shape(n):
    return (max(1, n // HARDMAX_COLS), HARDMAX_COLS)


def requant_pc_shape(n):
    channels = min(ops.REQUANT_CHANNELS, n)
    return (max(1, n // channels), channels)


def size_grid(sizes, quick):
    """The cases over element counts: every op at each size (hardmax: rows of 1024)."""
    dtypes = ELEMENTWISE + (() if quick else ("float64",))
    cases = []
    for n in sizes:
        cases += [Case(ops.CLIP, d, (n,)) for d in dtypes]
        cases += [Case(ops.SHRINK, d, (n,)) for d in dtypes]
        cases += [Case(ops.CLIP_SCALE_BIAS, "float32", (n,)),
                  Case(ops.HARDMAX, "float32", hardmax_shape(n)),
                  Case(ops.REQUANT, "int32", (n,)),
                  Case(ops.REQUANT_PC, "int32", requant_pc_shape(n))]
    return cases


def select(sizes=None, quick=False, goals=False):
    """The cases of one run, in order, without duplicates: the size grid (the given sizes,
    else the mode's), the registered cases tagged for the mode, and with goals=True every
    case a goal row needs."""
    grid = size_grid(sizes or (QUICK_SIZES if quick else FULL_SIZES), quick)
    mode = "quick" if quick else "full"
    chosen = {}
    for case in grid + [c for c in _REGISTRY if mode in c.tags or (goals and "goals" in c.tags)]:
        if case.id in chosen:
            if case.threads or case.paths:        # the registered one carries more
                chosen[case.id] = case
        else:
            chosen[case.id] = case
    for case_id, paths in _EXTRA_PATHS.items():
        if case_id in chosen:
            case = chosen[case_id]
            chosen[case_id] = replace(case, paths=case.paths + [p for p in paths
                                                                if p not in case.paths])
    return sorted(chosen.values(), key=_table_order)


_OP_ORDER = ("clip", "clip+scale_bias", "shrink", "hardmax", "hardmax axis=0", "requant",
             "requant_pc+bias", "requant_single", "requant_single_pc+bias", "requant_single_away",
             "requant_single_away_pc+bias", "requant_ties_up",
             "requant_ties_up_pc+bias", "requant_floor", "requant_floor_pc+bias", "requant_fp32",
             "requant_fp32_pc", "requant_fp32_pc+bias", "requant_fp64_away", "requant_acl_float",
             *(op.name for op in ops_requant_chain.CHAIN_OPS))
_DTYPE_ORDER = ELEMENTWISE + ("float64",)


def _table_order(case):
    """Op, then dtype, then size: each op's rows read as a curve over size."""
    op = _OP_ORDER.index(case.op.name) if case.op.name in _OP_ORDER else len(_OP_ORDER)
    dtype = _DTYPE_ORDER.index(case.dtype) if case.dtype in _DTYPE_ORDER else len(_DTYPE_ORDER)
    return (op, case.op.name, dtype, case.view is not None, case.n)


# --------------------------------------------------------------------------- paths
def _dml_clip_execute(x, out, p):
    from simdops import dml
    if x.dtype != np.float32:
        return None
    t = dml.BufferTensorDesc(dml.TensorDataType.FLOAT32, x.shape)
    compiled = dml.compile_operator(dml.ElementWiseClipOperatorDesc(t, t, p["min"], p["max"]))
    return lambda: compiled.execute(x, out)


def _acl_requant_run(x, out, p):
    from simdops import acl
    if p["bias"] is not None:
        return None
    f = acl.GEMMLowpQuantizeDownInt32ToUint8ScaleByFixedPoint()
    f.configure(x, None, out, p["multiplier"], p["shift"], p["offset"], p["min"], p["max"])
    return f.run


def _requant_fp32_per_tensor(x, out, p):
    return ops_requant_families.REQUANT_FP32_PC.per_tensor(x, out, p)


def _requant_double_rounding(x, out, p):
    """A single-rounding case's call with the default double rounding (same parameters)."""
    return ops.REQUANT.simdops(x, out, p)


DML_EXECUTE = Path("dml.execute", _dml_clip_execute)
ACL_RUN = Path("acl.run", _acl_requant_run)
# per channel against per tensor in one case: the two calls alternate in the same rounds, so
# the machine's drift between two cases' runs (5-20% here) does not enter the goal row
PER_TENSOR_SCALE = Path("per-tensor scale", _requant_fp32_per_tensor)
DOUBLE_ROUNDING = Path("double rounding", _requant_double_rounding)
# requantize_fp32's default beside each of its other modes (ops_requant_chain.py)
PLAIN_FP32 = Path("requantize_fp32", ops_requant_chain.plain)
PLAIN_FP32_AGAIN = Path("requantize_fp32 (A/A)", ops_requant_chain.plain)

# --------------------------------------------------------------------------- catalogue
QF = frozenset({"quick", "full"})
FULL = frozenset({"full"})
GOALS = frozenset({"goals"})
GOALS_FULL = frozenset({"goals", "full"})

for _case in (
    # hardmax shapes and axes: last axis in and beyond cache, axis 0 (columns)
    Case(ops.HARDMAX, "float32", (1024, 1024), tags=QF | GOALS),
    Case(ops.HARDMAX, "float32", (4096, 1024), tags=GOALS_FULL),
    Case(ops.HARDMAX_AXIS0, "float32", (1024, 4096), tags=GOALS_FULL),
    # strided views (the input is the view; np.copyto copies from the same view)
    Case(ops.CLIP, "float32", (1024, 512), view="[:, ::2]", base_shape=VIEW_BASE,
         tags=GOALS_FULL),
    Case(ops.CLIP, "float32", (1024, 1024), view="[::-1, ::-1]", base_shape=VIEW_BASE,
         tags=GOALS_FULL),
    # beyond cache, and 1 vs 2 threads
    Case(ops.CLIP, "float32", (BEYOND_CACHE,), tags=GOALS_FULL, threads=(1, 2)),
    Case(ops.SHRINK, "float32", (BEYOND_CACHE,), tags=GOALS_FULL, threads=(1, 2)),
    Case(ops.CLIP, "float32", (1_048_576,), tags=GOALS, threads=(1, 2)),
    Case(ops.SHRINK, "float32", (1_048_576,), tags=GOALS, threads=(1, 2)),
    # per-call cost: 16 elements with out=, and the descriptor layers' entry points
    Case(ops.CLIP, "float32", (16,), tags=GOALS, paths=[DML_EXECUTE]),
    Case(ops.HARDMAX, "float32", (1, 16), tags=GOALS),
    Case(ops.REQUANT, "int32", (16,), tags=GOALS, paths=[ACL_RUN]),
    # goal rows comparing per-channel requant and float16 shrink at the standard sizes
    Case(ops.REQUANT, "int32", (1_048_576,), tags=GOALS),
    Case(ops.REQUANT_PC, "int32", requant_pc_shape(1_048_576), tags=GOALS),
    Case(ops.REQUANT_PC, "int32", requant_pc_shape(65_536), tags=GOALS),
    Case(ops.REQUANT, "int32", (65_536,), tags=GOALS),
    Case(ops.SHRINK, "float16", (65_536,), tags=GOALS),
    Case(ops.SHRINK, "float16", (1_048_576,), tags=GOALS),
    # the int8 matmul accumulators against numpy's int64 matmul (a [256, 256] uint8)
    Case(ops.INT8_MATMUL, "uint8", (256, 256), tags=GOALS_FULL),
    Case(ops.INT8_MATMUL_PAIRSAT, "uint8", (256, 256), tags=GOALS_FULL),
    # ONNX QuantizeLinear / DequantizeLinear against ORT and the converting copy
    Case(ops.QUANTIZE_LINEAR, "float32", (65_536,), tags=GOALS_FULL),
    Case(ops.QUANTIZE_LINEAR, "float32", (1_048_576,), tags=GOALS_FULL),
    Case(ops.QUANTIZE_LINEAR_I8, "float32", (65_536,), tags=GOALS_FULL),
    Case(ops.QUANTIZE_LINEAR_I8, "float32", (1_048_576,), tags=GOALS_FULL),
    Case(ops.DEQUANTIZE_LINEAR, "uint8", (65_536,), tags=GOALS_FULL),
    Case(ops.DEQUANTIZE_LINEAR, "uint8", (1_048_576,), tags=GOALS_FULL),
    # the requantization families beside double rounding (a path of each case: the same
    # input, shape, bias, clamp and scale, timed in the same rounds), at 64K and 1M
    *[Case(op, "int32", (n,), tags=GOALS, paths=[DOUBLE_ROUNDING])
      for op in (ops_requant_families.REQUANT_SINGLE, ops_requant_families.REQUANT_SINGLE_AWAY)
      for n in (65_536, 1_048_576)],
    *[Case(op, "int32", (n,), tags=GOALS, paths=[DOUBLE_ROUNDING])
      for op in (ops_requant_families.REQUANT_TIES_UP, ops_requant_families.REQUANT_FLOOR,
                 ops_requant_families.REQUANT_FP32, ops_requant_families.REQUANT_FP64_AWAY,
                 ops_requant_families.REQUANT_ACL_FLOAT)
      for n in (65_536, 1_048_576)],
    *[Case(op, "int32", requant_pc_shape(n), tags=GOALS, paths=[DOUBLE_ROUNDING])
      for op in (ops_requant_families.REQUANT_SINGLE_PC, ops_requant_families.REQUANT_TIES_UP_PC,
                 ops_requant_families.REQUANT_FLOOR_PC, ops_requant_families.REQUANT_SINGLE_AWAY_PC)
      for n in (65_536, 1_048_576)],
    *[Case(op, "int32", requant_pc_shape(n), tags=GOALS, paths=[PER_TENSOR_SCALE])
      for n in (65_536, 1_048_576)
      for op in (ops_requant_families.REQUANT_FP32_PC,
                 ops_requant_families.REQUANT_FP32_PC_NOBIAS)],
    # requantize_fp32's modes beside its default (same input, int8 out, scale kind), 64K, 1M
    *[Case(op, "int32", requant_pc_shape(n), tags=GOALS,
           paths=[PLAIN_FP32] + ([PLAIN_FP32_AGAIN]
                                 if op.mode in ops_requant_chain.SAME_KERNEL_MODES else []))
      for op in ops_requant_chain.CHAIN_OPS for n in (65_536, 1_048_576)],
    # in cache: shrink of every dtype, clip float16, and float32 clip for the tier rows
    *[Case(ops.SHRINK, d, (65_536,), tags=GOALS)
      for d in ("float32", "uint8", "int8", "int16", "int32", "float64")],
    Case(ops.CLIP, "float16", (65_536,), tags=GOALS),
    Case(ops.CLIP, "float32", (65_536,), tags=GOALS),
    # quantized add / multiply (int8), same shape and a per-channel vector along the last
    # axis, against numpy's wrapping np.add on the same arrays
    *[Case(op, "int8", shape, tags=GOALS_FULL)
      for op in ops_qbinary.ALL
      for n in (65_536, 1_048_576)
      for shape in ((n,), requant_pc_shape(n))],
):
    register_case(_case)
del _case
