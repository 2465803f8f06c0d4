"""The project's performance goals as rows: which two measured implementations each
one compares, the goal, and PASS / MISS. Printed only with --goals (and kept in the JSON).

A reference to a measurement is (case id, selector): the selector "simdops" is the goal ISA
(the process's active ISA, else the best one measured) at one thread, "simdops@2" the same at
two threads, "simdops[avx2]" that ISA at one thread (measured only when --isa names it),
anything else an implementation name ("np.copyto", "numpy", "dml.execute")."""
from dataclasses import dataclass
from typing import Tuple

from simdops.bench.ops_requant_chain import CHAIN_OPS, SAME_KERNEL_MODES
from simdops.bench.runner import COPY, NUMPY, ORT


@dataclass(frozen=True)
class Goal:
    label: str
    subject: Tuple[str, str]        # (case id, selector): the thing that should be fast
    baseline: Tuple[str, str]
    goal: float = None              # None: a measurement to report, no pass/miss
    kind: str = "ratio"             # "ratio": subject elements/s over baseline elements/s
                                    # >= goal; "time": subject time / baseline time <= goal
    source: str = ""                # free text: where the goal comes from (kept in the JSON)
    floor: Tuple[str, str] = None   # what the subject cannot beat (numpy's own cost of the
                                    # call, a loop that does nothing): a MISS the floor alone
                                    # misses is BLOCKED, with the floor's value
    bound: float = None             # a ratio the subject's instructions cannot beat on the
                                    # core that measured it (see CHAIN_BOUNDS): a MISS below
                                    # a bound under the goal is BLOCKED, with the bound
    bound_isa: str = None           # the ISA whose instruction sequence the bound measures
    floor_works: bool = False       # the floor path does the subject's work too (its time is
                                    # the best the subject could take, not an addition)
    same_kernel: Tuple[str, str] = None  # the baseline's call timed again in the same rounds
                                    # (an A/A pair), for a subject that runs the baseline's
                                    # own kernel after a few ns of setup, or (a time row) whose
                                    # work is the baseline's by construction: a MISS within the
                                    # A/A pair's own distance from 1 is a TIE (measured, not
                                    # assumed), with that distance


# The speed ratio each chain's AVX-512 step allows against the plain kernel's, from the
# core alone: tools/portbench.c's chain table (`portbench N chains`: the kernels' 64-output
# steps over L1-resident data, independent iterations, fewest cycles / 16 outputs of 5
# runs), measured on AMD Zen 4 (512-bit operations as two 256-bit halves), 3 runs within
# +-0.03: plain 2.8 cycles, OpenVINO 3.3, fbgemm 4.0 (against the plain kernel with its
# int32 bias, 3.4), add_half 4.1, float64 ties away 11.4. oneDNN's bench steps (0.5, 2.0)
# are powers of two whose product is 1: the call runs requantize_fp32's default kernels
# (rqc_fold_plain, rq_chain_avx2.h), so its rows have no bound; its general chain (steps
# not powers of two) is 4.0 cycles (0.71).
# Another core has other bounds: they are this machine's, for the avx512 rows only.
CHAIN_BOUNDS = {"openvino": 0.85, "fbgemm": 0.85, "add_half": 0.69, "litert": 0.25}
CHAIN_BOUND_SOURCE = "bound: tools/portbench.c chain table, AVX-512 on AMD Zen 4"

# float16 shrink with a bias (AVX-512, AMD Zen 4): `portbench N f16shrink` times the
# kernel's whole step over L1 data (load 16 halves, convert, sign-picked subtract, round
# with the zeroing mask, NaN blend, store; independent iterations): 4.92-4.93 cycles per 16
# halves in 4 runs (the magnitude form 5.44-5.47, the two conversions alone 2.92-2.95), at
# the add chain's 3.51-3.68 GHz 1.34-1.40 ns; np.copyto moves 16 halves in 0.71-0.73 ns at
# 64K and at 1M (thread time, medians of 31: 3.0 us and 46.7 us a call). With the call's own
# 0.48 us (a 16-element shrink; np.copyto's is in its time): 64K 3.0 / (4,096 x 1.37 ns +
# 0.48 us) = 0.49 (0.47-0.50), 1M 46.7 / (65,536 x 1.37 ns + 0.48 us) = 0.52 (0.50-0.53).
F16_SHRINK_BOUND = {65_536: 0.49, 1_048_576: 0.52}
F16_SHRINK_BOUND_SOURCE = "bound: tools/portbench.c f16shrink, AVX-512 on AMD Zen 4"

# hardmax along axis 0 of 1024x4096 float32 (16 MiB in and out, streamed): every algorithm
# reads x and writes y, so its time is at least that traffic's, measured whole by
# tools/hm_axis0.c (buffers as numpy's, memcpy into y as np.copyto; medians of 21 rounds
# interleaved with memcpy, four runs, AVX-512 on AMD Zen 4, load 18-105): x read, then y
# written with non-temporal zeros, 1.42 / 1.58 / 1.77 / 1.82 of memcpy; line by line (a
# non-temporal copy) 1.25-1.63. The argmax work is under that: the column kernel over L1
# data (its instruction mix alone) takes 183-237 us for the array's 16 MiB, the read alone
# 228-271 us, the traffic 530-640 us. Bound: the traffic, the lowest run rounded down. The
# driver (every row scanned, then y streamed once with the ones inside) runs 1.00-1.39
# there (0.81-1.09 before, in the same runs).
HARDMAX_AXIS0_BOUND = 1.4
HARDMAX_AXIS0_BOUND_SOURCE = (f"bound {HARDMAX_AXIS0_BOUND} (above the goal): tools/hm_axis0.c "
                              "'read, NT zeros', AVX-512 on AMD Zen 4")

# QuantizeLinear float32 -> 8 bits at 1M against ONNX Runtime (4 MB read, 1 MB written, both
# in L3 between calls, L2 1 MB): no kernel can beat the loop that moves the same bytes with no
# arithmetic, so ORT's time over that loop's is the most any kernel can be ahead.
# tools/ql_ort_bound.py times ORT (1 thread, I/O binding, as the bench), simdops and
# tools/ql_bound.c's traffic loops interleaved in one process (thread time, medians of 31),
# AVX-512 on AMD Zen 4, four runs (load 80 twice, 5 twice): the fastest, software prefetch
# 1 KiB ahead and non-temporal stores, 51.7-56.0 us (94-101 GB/s) where ORT takes 65.1-69.3 us
# (76-81 GB/s) and simdops 60.2-66.3 us: ORT / traffic 1.19-1.27 (the plain traffic loop
# 0.94-0.99: ORT is at the bytes' speed). Bound: the highest run. The read alone with
# prefetch (no stores) is 1.65-1.70, but every QuantizeLinear writes y.
QL_ORT_BOUND = 1.27
QL_ORT_BOUND_SOURCE = "bound: tools/ql_ort_bound.py (ORT / the fastest traffic loop), AVX-512 on AMD Zen 4"

M = 1_048_576
M16 = 16_777_216
GOALS = []


def register_goal(goal):
    """Add a goal row (e.g. from a module that registers its own case)."""
    GOALS.append(goal)
    return goal


for _goal in (
    Goal("hardmax float32 1024x1024, last axis, vs np.copyto",
         ("hardmax/float32/1024x1024", "simdops"), ("hardmax/float32/1024x1024", COPY), 0.85),
    Goal("hardmax float32 4096x1024, last axis, vs np.copyto",
         ("hardmax/float32/4096x1024", "simdops"), ("hardmax/float32/4096x1024", COPY), 1.1),
    # its bound (HARDMAX_AXIS0_BOUND) is above the goal: said in the source text, as the
    # bound field is for bounds under a goal (a MISS here is not BLOCKED)
    Goal("hardmax float32 1024x4096, axis 0, vs np.copyto",
         ("hardmax axis=0/float32/1024x4096", "simdops"),
         ("hardmax axis=0/float32/1024x4096", COPY), 0.95, source=HARDMAX_AXIS0_BOUND_SOURCE),
    Goal("hardmax float32 1x16 with out=, time vs np.copyto",
         ("hardmax/float32/1x16", "simdops"), ("hardmax/float32/1x16", COPY), 1.5, "time"),
    Goal("requant int32->uint8 n=16 with out=, time vs np.copyto",
         ("requant/int32/16", "simdops"), ("requant/int32/16", COPY), 1.5, "time"),
    Goal("clip float32 b[:, ::2] of 1024x1024 vs np.clip on the view",
         ("clip/float32/1024x512[:, ::2]", "simdops"), ("clip/float32/1024x512[:, ::2]", NUMPY),
         1.2),
    Goal("clip float32 b[::-1, ::-1] of 1024x1024 vs np.clip on the view",
         ("clip/float32/1024x1024[::-1, ::-1]", "simdops"),
         ("clip/float32/1024x1024[::-1, ::-1]", NUMPY), 1.2),
    # both rows run the exact float32 form on AVX-512; per channel loads its multipliers and
    # rounding halves and adds the bias (two more loads a vector): ~0.6 of per tensor, which is
    # 1.02-1.09x the integer per-tensor kernel's speed (docs/performance.md)
    Goal("requant per-channel+bias 4096x256 vs per-tensor n=1,048,576 (elements/s)",
         ("requant_pc+bias/int32/4096x256", "simdops"), (f"requant/int32/{M}", "simdops"), 0.55),
    # per channel + bias against "today's per-tensor speed" of the float32 path's issue: the
    # integer per-tensor kernel's 0.43 of the converting copy, so the same copy is the
    # baseline (it runs in the same rounds as the case)
    *(Goal(f"requant per-channel+bias {r}x256 vs np.copyto(u8, i32, casting='unsafe')",
           (f"requant_pc+bias/int32/{r}x256", "simdops"),
           (f"requant_pc+bias/int32/{r}x256", COPY), 0.43,
           source="1.0x the integer per-tensor kernel, which ran at 0.43 of the copy")
      for r in (256, 4096)),
    # 0.65 at both sizes: the exact float32 path's goal (the 64K row's earlier 0.75 was set
    # before that path existed and was not restated with it)
    Goal("requant per-tensor n=65,536 vs np.copyto(u8, i32, casting='unsafe')",
         ("requant/int32/65536", "simdops"), ("requant/int32/65536", COPY), 0.65,
         source="the float32 fast path's goal at both sizes (was 0.75, an older goal)"),
    Goal("requant per-tensor n=1,048,576 vs np.copyto(u8, i32, casting='unsafe')",
         (f"requant/int32/{M}", "simdops"), (f"requant/int32/{M}", COPY), 0.65,
         source="the float32 fast path's goal, both sizes"),
    # at their bound (F16_SHRINK_BOUND): the kernel's whole step takes 4.9 cycles per 16
    # halves where np.copyto moves them in 2.6 (docs/performance.md, "What bounds each row")
    *(Goal(f"shrink float16 bias=0.5 n={n:,} vs np.copyto",
           (f"shrink/float16/{n}", "simdops"), (f"shrink/float16/{n}", COPY), goal,
           source=F16_SHRINK_BOUND_SOURCE, bound=F16_SHRINK_BOUND[n], bound_isa="avx512")
      for n, goal in ((65_536, 0.5), (M, 0.6))),
    Goal("shrink float32 n=1,048,576 vs np.copyto",
         (f"shrink/float32/{M}", "simdops"), (f"shrink/float32/{M}", COPY), 0.95),
    # in cache, where AVX2 runs out of issue slots (float16 shrink has its own row above);
    # float64's 64K (512 KiB in, 512 KiB out: L2's size) runs at a vector-store copy's
    # speed, 0.74-0.95 of np.copyto's rep movsb by where out sits (docs/performance.md)
    *(Goal(f"shrink {dt} n=65,536 vs np.copyto",
           (f"shrink/{dt}/65536", "simdops"), (f"shrink/{dt}/65536", COPY), 0.85)
      for dt in ("float32", "uint8", "int8", "int16", "int32", "float64")),
    Goal("clip float16 n=65,536 vs np.copyto",
         ("clip/float16/65536", "simdops"), ("clip/float16/65536", COPY), 0.8),
    # the avx512 tier against its parent, same run (SKIP unless --isa avx2 avx512)
    *(Goal(f"{op} float32 n={n:,}: avx512 vs avx2 (elements/s)",
           (f"{op}/float32/{n}", "simdops[avx512]"), (f"{op}/float32/{n}", "simdops[avx2]"),
           0.95)
      for op in ("clip", "shrink") for n in (65_536, M, M16)),
    Goal("clip float32 n=16,777,216 vs np.copyto",
         (f"clip/float32/{M16}", "simdops"), (f"clip/float32/{M16}", COPY), 0.95),
    Goal("shrink float32 n=16,777,216 vs np.copyto",
         (f"shrink/float32/{M16}", "simdops"), (f"shrink/float32/{M16}", COPY), 0.95),
    *(Goal(f"{op} float32 n={n:,}: 2 threads vs 1 thread",
           (f"{op}/float32/{n}", "simdops@2"), (f"{op}/float32/{n}", "simdops"))
      for n in (M, M16) for op in ("clip", "shrink")),
    Goal("dml execute (CLIP, 16 float32), time vs simdops.clip(out=)",
         ("clip/float32/16", "dml.execute"), ("clip/float32/16", "simdops"), 2.0, "time"),
    Goal("acl run (requant, 16 int32), time vs simdops.clip(out=) on 16 float32",
         ("requant/int32/16", "acl.run"), ("clip/float32/16", "simdops"), 2.0, "time"),
    # quantize_linear to 8 bits multiplies by the reciprocal with an exact fallback (AVX-512,
    # AVX2), so its rows ask more than dequantize's; at 1M (QL_ORT_BOUND) ORT runs at the
    # bytes' own speed
    *(Goal(f"{op} {dt} n={n:,} vs ONNX Runtime (I/O binding, 1 thread)",
           (f"{op}/{dt}/{n}", "simdops"), (f"{op}/{dt}/{n}", ORT), goal,
           **(dict(source=QL_ORT_BOUND_SOURCE, bound=QL_ORT_BOUND, bound_isa="avx512")
              if n == M and op.startswith("quantize") else {}))
      for op, dt, goal in (("quantize_linear", "float32", 1.5),
                           ("quantize_linear int8", "float32", 1.5),
                           ("dequantize_linear", "uint8", 1.2))
      for n in (65_536, M)),
    *(Goal(f"{op} {dt} n={n:,} vs the converting np.copyto",
           (f"{op}/{dt}/{n}", "simdops"), (f"{op}/{dt}/{n}", COPY), goal)
      for op, dt, goal in (("quantize_linear", "float32", 1.0),
                           ("quantize_linear int8", "float32", 1.0),
                           ("dequantize_linear", "uint8", 0.8))
      for n in (65_536, M)),
    Goal("onnx.hardmax opset 13 float32 1024x4096 axis 0 vs ONNX Runtime (it transposes)",
         ("hardmax axis=0/float32/1024x4096", "simdops"),
         ("hardmax axis=0/float32/1024x4096", ORT), 2.0),
    # the requantization families (single thread, ratios from one run)
    # the double-rounding call is a path of the single-rounding case (the same parameters),
    # timed in the same rounds
    # (both single-rounding families run double rounding's float32 fast path)
    *(Goal(f"requant {name} n={n:,} vs double rounding (elements/s)",
           (f"{case}/int32/{n}", "simdops"),
           (f"{case}/int32/{n}", "double rounding"), 1.0)
      for case, name in (("requant_single", "single rounding"),
                         ("requant_single_away", "single rounding ties away"))
      for n in (65_536, M)),
    *(Goal(f"requant {name} per-channel+bias {r}x256 vs double rounding (elements/s)",
           (f"{case}_pc+bias/int32/{r}x256", "simdops"),
           (f"{case}_pc+bias/int32/{r}x256", "double rounding"), 1.0)
      for case, name in (("requant_single", "single rounding"),
                         ("requant_single_away", "single rounding ties away"))
      for r in (256, 4096)),
    *(Goal(f"requant {name} n={n:,} vs double rounding (elements/s)",
           (f"{case}/int32/{n}", "simdops"), (f"{case}/int32/{n}", "double rounding"), goal)
      for case, name, goal in (("requant_ties_up", "double_ties_up", 0.9),
                               ("requant_floor", "floor (ACL QUANTIZE_DOWN)", 0.9),
                               ("requant_fp32", "fp32", None),
                               ("requant_fp64_away", "float64 ties away", None),
                               ("requant_acl_float", "ACL QUANTIZE_DOWN_FLOAT", None))
      for n in (65_536, M)),
    *(Goal(f"requant {name} per-channel+bias {r}x256 vs double rounding (elements/s)",
           (f"{case}/int32/{r}x256", "simdops"), (f"{case}/int32/{r}x256", "double rounding"),
           0.9)
      for case, name in (("requant_ties_up_pc+bias", "double_ties_up"),
                         ("requant_floor_pc+bias", "floor (ACL QUANTIZE_DOWN)"))
      for r in (256, 4096)),
    # requantize_fp32's other modes (the runtimes' chains) against its default, int8 out
    *(Goal(f"requant_fp32 {op.label} ({'per channel' if op.per_channel else 'per tensor'}) "
           f"n={n:,} vs requantize_fp32's default (elements/s)",
           (f"{op.name}/int32/{n // 256}x256", "simdops"),
           (f"{op.name}/int32/{n // 256}x256", "requantize_fp32"), 1.0,
           source=CHAIN_BOUND_SOURCE if op.mode in CHAIN_BOUNDS else "",
           bound=CHAIN_BOUNDS.get(op.mode), bound_isa="avx512",
           same_kernel=((f"{op.name}/int32/{n // 256}x256", "requantize_fp32 (A/A)")
                        if op.mode in SAME_KERNEL_MODES else None))
      for op in CHAIN_OPS for n in (65_536, M)),
    *(Goal(f"requant fp32 n={n:,} vs np.copyto(u8, i32, casting='unsafe')",
           (f"requant_fp32/int32/{n}", "simdops"), (f"requant_fp32/int32/{n}", COPY), 0.8)
      for n in (65_536, M)),
    # per channel against per tensor, like for like: the same shape, bias, clamp and
    # offset, only the scale a vector (the bias vector's own cost is in both); the per-tensor
    # call is a path of the per-channel case, timed in the same rounds
    *(Goal(f"requant fp32 per-channel vs per-tensor scale, {r}x256 {b} (elements/s)",
           (f"{case}/int32/{r}x256", "simdops"), (f"{case}/int32/{r}x256", "per-tensor scale"),
           0.9)
      for case, b in (("requant_fp32_pc", "without bias"), ("requant_fp32_pc+bias", "with bias"))
      for r in (256, 4096)),
):
    register_goal(_goal)
del _goal


# Quantized add / multiply (int8): against the runtimes whose bits each arithmetic
# reproduces (their Python APIs, one thread; binary_runtimes registers them as paths of
# these cases), against numpy's wrapping np.add on the same arrays (the bytes a binary op
# moves), and the per-channel broadcast against the same-shape row.
from simdops.bench import binary_runtimes as _rt  # noqa: E402  (registers the paths)

_QB = "quantized_{}/int8/{}"
# The 64K multiplies against np.add (AVX-512, AMD Zen 4). tools/qmul_bound.c's L1 rows
# (independent iterations, three runs at 3.86-3.93 GHz, the rows' small loops unrolled so
# nothing spills) against np.add's 64K call over all 64 placements of the three arrays
# (tools/qb_placement.py: median 1.41 us, 1.25-1.69) and the rows' own 64-element call
# (0.23-0.26 us, thread time, quiet machine):
# - TFLite's: its rounding is odd (RDBPOT rounds half away from zero: y = sgn(p) g(|p|)
#   for every M with fewer than 15 trailing zeros), so an exact float form brings in each
#   product's sign; one constant for both signs (the float core: 9.6-9.8 cycles a 64,
#   would allow 0.50) is exact for 16 of 400 realistic parameter sets
#   (tools/qb_proof_count.c). The cheapest exact mix measured: the floor form, the
#   constant picked by one vpternlogd a 16 on the product itself, at K = 0 with
#   AVX512-VBMI's vpermb ordering the bytes (35 operations; tfl-floor-vbmi): 10.43-10.48
#   cycles a 64, so 1.41 / (1,024 x 10.46 / 3.86 GHz + 0.26 us) = 0.46 (the rows' own
#   mix, vpermt2w high words + vpermq, no VBMI: 10.5-10.7, tfl-floor); the alternatives
#   measured cost more: |a + oa| |b + ob| with one constant and the sign
#   put back in the words (tfl-abs, 43 operations: 13.6), the nearest form with a moved
#   offset (tfl-proved, 37: 11.5).
# - XNNPACK's (fp32 requantization of the exact product): the cheapest exact mix, the
#   vpmaddwd form with AVX512-VBMI's vpermb (33 operations; the rows' own, the same
#   products ordered by vpshufb + vpermq, 34: 10.4-10.7), 10.1-10.4 cycles a 64:
#   1.41 / (1,024 x 10.36 / 3.86 GHz + 0.25 us) = 0.47 (docs/performance.md, "What bounds
#   each row"). At 1M np.add runs from memory: PASS.
QB_XNN_MUL_BOUND = 0.47
QB_XNN_MUL_BOUND_SOURCE = "bound: tools/qmul_bound.c vpmaddwd row, AVX-512 on AMD Zen 4"
QB_TFL_MUL_BOUND = 0.46
QB_TFL_MUL_BOUND_SOURCE = "bound: tools/qmul_bound.c tfl-floor-vbmi row, AVX-512 on AMD Zen 4"
_QB_NP_BOUNDS = {("multiply", "xnnpack"): (QB_XNN_MUL_BOUND_SOURCE, QB_XNN_MUL_BOUND),
                 ("multiply", "tflite"): (QB_TFL_MUL_BOUND_SOURCE, QB_TFL_MUL_BOUND)}
for _goal in (
    *(Goal(f"quantized add int8 n={n:,} (onnxruntime) vs ORT QLinearAdd",
           (_QB.format("add onnxruntime", n), "simdops"),
           (_QB.format("add onnxruntime", n), _rt.ORT_ADD), 1.5) for n in (65_536, M)),
    *(Goal(f"quantized multiply int8 n={n:,} (fp32) vs ORT QLinearMul",
           (_QB.format("multiply xnnpack", n), "simdops"),
           (_QB.format("multiply xnnpack", n), _rt.ORT_MUL), 1.5) for n in (65_536, M)),
    *(Goal(f"quantized {op} int8 n={n:,} (xnnpack) vs LiteRT's XNNPACK delegate",
           (_QB.format(f"{op} xnnpack", n), "simdops"),
           (_QB.format(f"{op} xnnpack", n), name), 1.0)
      for op, name in (("add", _rt.LITERT_ADD), ("multiply", _rt.LITERT_MUL))
      for n in (65_536, M)),
    *(Goal(f"quantized {op} int8 n={n:,} ({ar}) vs np.add(a, b, out=c)",
           (_QB.format(f"{op} {ar}", n), "simdops"), (_QB.format(f"{op} {ar}", n), NUMPY), 0.5,
           **(dict(source=_QB_NP_BOUNDS[op, ar][0], bound=_QB_NP_BOUNDS[op, ar][1],
                   bound_isa="avx512")
              if n == 65_536 and (op, ar) in _QB_NP_BOUNDS else {}))
      for op, ar in (("add", "tflite"), ("multiply", "tflite"), ("add", "xnnpack"),
                     ("multiply", "xnnpack"), ("add", "onnxruntime"))
      for n in (65_536, M)),
    *(Goal(f"quantized {op} int8 ({ar}) {shape} per-channel vs same shape n={n:,}",
           (_QB.format(f"{op} {ar}", shape), "simdops"), (_QB.format(f"{op} {ar}", n), "simdops"),
           0.9)
      for op, ar in (("add", "tflite"), ("multiply", "tflite"), ("add", "xnnpack"),
                     ("multiply", "xnnpack"), ("add", "onnxruntime"))
      for shape, n in (("256x256", 65_536), ("4096x256", M))),
    # the runtimes' per-call overhead: a 1-element call's time over the 65,536-element one
    *(Goal(f"{name}: 1-element call time / n=65,536 call time (per-call overhead)",
           (_QB.format(case_op.split("_", 1)[1], 65_536), name + _rt.ONE),
           (_QB.format(case_op.split("_", 1)[1], 65_536), name), None, "time")
      for case_op, _op, _f, name in _rt.PAIRS),
):
    register_goal(_goal)
del _goal


def goal_isa(isas_measured, active_isa):
    return active_isa if active_isa in isas_measured else isas_measured[-1]


def _resolve(case, selector, isa):
    """The result record a selector names in a case, or None (with the reason)."""
    if case is None:
        return None, "case not run"
    if selector.startswith("simdops"):
        named = selector.startswith("simdops[")    # one named ISA, one thread
        if named:
            isa = selector[len("simdops["):-1]
        threads = int(selector.split("@")[1]) if "@" in selector else 1
        for r in case["results"].values():
            if r["kind"] == "simdops" and r["isa"] == isa and (r["threads"] or 1) == threads:
                return r, None
        if named:
            return None, f"{isa} not measured: add --isa avx2 avx512"
        return None, (f"no {threads}-thread run (simdops.set_num_threads n/a)" if threads > 1
                      else f"{isa} not measured")
    r = case["results"].get(selector)
    return r, (None if r else f"no {selector}")


def _best_possible(g, floor, baseline):
    """The best value the subject could reach given its floor: for a time row the floor's
    time over the baseline's (the work itself is not counted: a bound, generous); for a ratio
    row the baseline's elements/s over that of the floor's time plus the baseline's (the same
    work at the baseline's speed, plus what the floor costs around it). A floor that does the
    work itself (floor_works) is the subject's best time as it is."""
    if g.floor_works:
        return (floor["seconds"] / baseline["seconds"] if g.kind == "time"
                else baseline["seconds"] / floor["seconds"])
    if g.kind == "time":
        return floor["seconds"] / baseline["seconds"]
    return baseline["seconds"] / (floor["seconds"] + baseline["seconds"])


def evaluate(cases, isa, goals=None):
    """One row per goal (GOALS, or goals): ratio (or time multiple), goal, status, and what
    was compared."""
    by_id = {c["id"]: c for c in cases}
    rows = []
    for g in GOALS if goals is None else goals:
        subject, why_s = _resolve(by_id.get(g.subject[0]), g.subject[1], isa)
        baseline, why_b = _resolve(by_id.get(g.baseline[0]), g.baseline[1], isa)
        row = {"label": g.label, "source": g.source, "kind": g.kind, "goal": g.goal,
               "isa": isa, "subject": list(g.subject), "baseline": list(g.baseline),
               "value": None, "status": None}
        if subject is None or baseline is None:
            row["status"] = f"SKIP ({why_s or why_b})"
        else:
            if g.kind == "time":
                value = subject["seconds"] / baseline["seconds"]
                passed = g.goal is None or value <= g.goal
            else:
                value = subject["elements_per_s"] / baseline["elements_per_s"]
                passed = g.goal is None or value >= g.goal
            row["value"] = value
            row["status"] = "REPORT" if g.goal is None else ("PASS" if passed else "MISS")
            floor, _ = _resolve(by_id.get(g.floor[0]), g.floor[1], isa) if g.floor else (None,
                                                                                           None)
            if floor is not None:
                row["floor"] = best = _best_possible(g, floor, baseline)
                if not passed and (best > g.goal if g.kind == "time" else best < g.goal):
                    row["status"] = f"BLOCKED (floor {best:.3g})"
            again, _ = (_resolve(by_id.get(g.same_kernel[0]), g.same_kernel[1], isa)
                        if g.same_kernel else (None, None))
            if again is not None:
                # the baseline against itself, as the row compares (elements/s or time)
                row["aa"] = aa = (again["elements_per_s"] / baseline["elements_per_s"]
                                  if g.kind == "ratio" else again["seconds"] / baseline["seconds"])
                if not passed and (value >= g.goal - abs(1 - aa) if g.kind == "ratio"
                                   else value <= g.goal + abs(1 - aa)):
                    row["status"] = f"TIE (A/A {aa:.3g})"
            if g.bound is not None and g.bound_isa == isa:
                row["bound"] = g.bound
                if not passed and g.bound < g.goal:
                    row["status"] = f"BLOCKED (bound {g.bound:.3g})"
        rows.append(row)
    return rows
