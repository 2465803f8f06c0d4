"""`python -m simdops selftest`: every available ISA against the scalar tier.

Each case runs one op on the same input under the scalar tier and under the
tier being checked, and compares output bytes (NaN payloads included). Inputs
mix random bit patterns with each dtype's edge values; lengths 0..130 plus a
few misaligned and in-place runs.
"""
import sys

import numpy as np

import simdops
import simdops.onnx
from simdops import _core


def dtype_problems():
    """{dtype name: why selftest cannot make its inputs} over the C dtype table: numpy must
    have a type of that name whose kind, size and signedness are the table's row."""
    problems = {}
    for code, name in _core.DTYPE_NAMES.items():
        _, size, is_float, is_signed, _, _ = _core.dtype_info(code)
        try:
            dt = np.dtype(name)
        except TypeError:
            problems[name] = "numpy has no type of that name"
            continue
        kind = "f" if is_float else "i" if is_signed else "u"
        if (dt.kind, dt.itemsize) != (kind, size):
            problems[name] = (f"numpy's {name} is {dt.kind}{dt.itemsize}; the dtype table's "
                              f"row is {kind}{size}")
    return problems


def edge_values(dtype):
    dt = np.dtype(dtype)
    if dt.kind == "f":
        info = np.finfo(dt)
        vals = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, np.inf, -np.inf, np.nan, info.max, -info.max,
                info.tiny, -info.tiny, info.smallest_subnormal, -info.smallest_subnormal]
        return np.array(vals, dtype=dt)
    info = np.iinfo(dt)
    vals = {info.min, info.max, 0, 1, info.max - 1, info.min + 1}
    if info.min < 0:
        vals |= {-1}
    return np.array(sorted(vals), dtype=dt)


def make_input(dtype, n, rng):
    """n elements: random bit patterns (floats: some NaN payloads) and edge values."""
    dt = np.dtype(dtype)
    raw = rng.integers(0, 256, size=n * dt.itemsize, dtype=np.uint8).view(dt).copy()
    if dt.kind == "f":
        # mostly ordinary numbers so the arithmetic branches are exercised
        ordinary = rng.standard_normal(n).astype(dt) * dt.type(4)
        raw = np.where(rng.random(n) < 0.8, ordinary, raw).astype(dt)
    edges = edge_values(dt)
    k = min(n, len(edges))
    if k:
        pos = rng.choice(n, size=k, replace=False)
        raw[pos] = edges[:k]
    return raw


def _aligned_view(arr, offset):
    """A copy of arr placed `offset` bytes past an aligned start."""
    buf = np.zeros(arr.nbytes + 64 + offset, dtype=np.uint8)
    view = buf[offset:offset + arr.nbytes].view(arr.dtype)
    view[...] = arr
    return view


def cases():
    """(label, dtype of x, function(x, out) -> None, kernel entries it exercises).

    The dtypes come from the C dtype table (_core.op_dtypes), so a dtype an op
    gains is tested without touching this file."""
    dtypes = _core.op_dtypes
    out = []
    for dt in dtypes("clip"):
        out.append((f"clip {dt}", dt, lambda x, o: simdops.clip(x, -3, 2, out=o), ("clip",)))
        out.append((f"clip {dt} min>max", dt, lambda x, o: simdops.clip(x, 5, -5, out=o),
                    ("clip",)))
        if np.dtype(dt).kind == "f":
            out.append((f"clip {dt} inf bounds", dt,
                        lambda x, o: simdops.clip(x, -np.inf, 0.25, out=o), ("clip",)))
    for dt in dtypes("clip_scale_bias"):
        out.append((f"clip {dt} scale/bias", dt,
                    lambda x, o: simdops.clip(x, -100, 90, scale=0.37, bias=-1.5, out=o),
                    ("clip_scale_bias",)))
    for dt in dtypes("shrink"):
        out.append((f"shrink {dt}", dt, lambda x, o: simdops.shrink(x, 0.75, 1.5, out=o),
                    ("shrink",)))
        out.append((f"shrink {dt} thr 0", dt, lambda x, o: simdops.shrink(x, 1e30, 0, out=o),
                    ("shrink",)))
        out.append((f"shrink {dt} neg bias", dt, lambda x, o: simdops.shrink(x, -200, 3, out=o),
                    ("shrink",)))
    for dt in dtypes("hardmax"):
        out.append((f"hardmax {dt}", dt, lambda x, o: simdops.hardmax(x, out=o), ("argmax_row",)))
        out.append((f"hardmax {dt} axis 0", dt, lambda x, o: _hardmax_axis0(x, o),
                    ("argmax_cols",)))
    for od in dtypes("requant_out"):
        off = 0 if od == "int16" else 3
        out.append((f"requant int32->{od}", "int32",
                    lambda x, o, od=od, off=off: _requant(x, o, od, off, 1518500250, 7),
                    ("requant",)))
        out.append((f"requant int32->{od} shift<0 bounds", "int32",
                    lambda x, o, od=od, off=off: _requant(x, o, od, off, -2147483648, -3,
                                                          bounds=True), ("requant",)))
        out.append((f"requant int32->{od} per-channel+bias", "int32",
                    lambda x, o, od=od, off=off: _requant(x, o, od, off, None, None, bias=True),
                    ("requant_pc",)))
        for rounding, entry, shift in _family_cases():
            out.append((f"requant int32->{od} {rounding} shift {shift}", "int32",
                        lambda x, o, od=od, off=off, r=rounding, s=shift:
                        _requant(x, o, od, off, 1518500250 if s > 0 else 12345677, s, rounding=r),
                        (entry,)))
            out.append((f"requant int32->{od} {rounding} per-channel+bias", "int32",
                        lambda x, o, od=od, off=off, r=rounding:
                        _requant(x, o, od, off, None, None, bias=True, rounding=r),
                        (entry + "_pc",)))
        out.append((f"requant int32->{od} floor (ACL QUANTIZE_DOWN)", "int32",
                    lambda x, o, od=od: _requant_floor(x, o, od, False), ("requant_floor",)))
        out.append((f"requant int32->{od} floor per-channel+bias", "int32",
                    lambda x, o, od=od: _requant_floor(x, o, od, True), ("requant_floor_pc",)))
        for precision, ties in (("float32", "even"), ("float64", "away")):
            out.append((f"requant int32->{od} fp {precision} {ties}", "int32",
                        lambda x, o, od=od, p=precision, t=ties: _requant_fp(x, o, od, p, t, False),
                        ("requant_fp",)))
            out.append((f"requant int32->{od} fp {precision} {ties} per-channel+bias", "int32",
                        lambda x, o, od=od, p=precision, t=ties: _requant_fp(x, o, od, p, t, True),
                        ("requant_fp_pc",)))
        for name, chain in _FP_CHAINS.items():
            for pc in (False, True):
                out.append((f"requant int32->{od} fp chain {name}" +
                            (" per-channel" if pc else ""), "int32",
                            lambda x, o, od=od, c=chain, pc=pc: _requant_fp_chain(x, o, od, c, pc),
                            ("requant_fp_pc" if pc else "requant_fp",)))
    for qt in dtypes("quantize_linear"):
        for ft, entry in (("float32", "quantize_f32"), ("float16", "quantize_f16")):
            out.append((f"quantize_linear {ft}->{qt}", ft,
                        lambda x, o, qt=qt: _quantize_linear(x, o, qt), (entry,)))
    for qt in dtypes("dequantize_linear"):
        for ft, entry in (("float32", "dequantize_f32"), ("float16", "dequantize_f16")):
            out.append((f"dequantize_linear {qt}->{ft}", qt,
                        lambda x, o: _dequantize_linear(x, o), (entry,)))
    for dt in dtypes("int8_matmul"):
        for sat, entry in ((False, "int8_dot"), (True, "int8_dot_pairsat")):
            out.append((f"int8_matmul {dt}->int32 pair_saturation={sat}", dt,
                        lambda x, o, sat=sat: _int8_matmul(x, o, sat), (entry,)))
    for dt in dtypes("quantized_add"):
        for op, entry in (("add", "qadd_tflite"), ("subtract", "qadd_tflite"),
                          ("multiply", "qmul_tflite")):
            for form in ("same shape", "broadcast"):
                out.append((f"quantized_{op} {dt} tflite {form}", dt,
                            lambda x, o, op=op, f=form: _qbinary(x, o, op, "tflite", f), (entry,)))
    for dt in dtypes("qbinary_8bit"):
        for op, arith, entry in (("add", "xnnpack", "qadd_xnnpack"),
                                 ("subtract", "xnnpack", "qadd_xnnpack"),
                                 ("multiply", "xnnpack", "qmul_fp"),
                                 ("multiply", "onnxruntime", "qmul_fp"),
                                 ("add", "onnxruntime", "qadd_ort")):
            for form in ("same shape", "broadcast"):
                out.append((f"quantized_{op} {dt} {arith} {form}", dt,
                            lambda x, o, op=op, a=arith, f=form: _qbinary(x, o, op, a, f),
                            (entry,)))
    return out


def _int8_matmul(x, o, pair_saturation):
    """x as one row [1, n] against n columns of int8 weights (mostly at the edges,
    so pairs saturate): out [1, n]."""
    n = x.shape[0]
    rng = np.random.default_rng(n + 3)
    w = rng.choice(np.array([127, -128, -1, 3], np.int8), (n, n))
    simdops.int8_matmul_accumulators(x.reshape(1, n), w, pair_saturation=pair_saturation,
                                     out=o.reshape(1, n))



def _qbinary(x, o, op, arithmetic, form):
    """x against its reverse (or, broadcast, its first element), x's dtype."""
    b = np.ascontiguousarray(x[::-1]) if form == "same shape" else x[:1].copy()
    zp = (0, 0, 0) if x.dtype == np.int16 and op == "multiply" else (3, -2, 1)
    if x.dtype == np.uint8:
        zp = (130, 120, 128)
    getattr(simdops, "quantized_" + op)(x, 0.05, zp[0], b, 0.07, zp[1], 0.09, zp[2],
                                        arithmetic=arithmetic, out=o)


def _quantize_linear(x, o, qt):
    """Per tensor, and per axis over a [4, n/4] view when n allows."""
    zp = np.array(np.iinfo(qt).min // 2 + 7, qt)
    scale = np.array(0.37, x.dtype)
    n = x.shape[0]
    if n >= 8 and n % 4 == 0:
        simdops.onnx.quantize_linear(x.reshape(4, -1), np.array([0.37, 2.5, 0.0078, 3], x.dtype),
                                     np.full(4, zp, qt), axis=0, out=o.reshape(4, -1))
    else:
        simdops.onnx.quantize_linear(x, scale, zp, out=o)


def _dequantize_linear(x, o):
    zp = None if x.dtype == np.int32 else np.array(np.iinfo(x.dtype).max // 3, x.dtype)
    simdops.onnx.dequantize_linear(x, np.array(0.37, o.dtype), zp, out=o)


def _requant_floor(x, o, out_dtype, per_channel):
    n = x.shape[0]
    rng = np.random.default_rng(n + 1)
    kw = {"bias": rng.integers(-2**31, 2**31, n, dtype=np.int64).astype(np.int32)} \
        if per_channel else {}
    mult = rng.integers(-2**31, 2**31, n, dtype=np.int64).astype(np.int32) if per_channel else 3
    lo, hi = _shift_range(_core.ROUNDING_FLOOR)
    shift = rng.integers(lo, hi + 1, n).astype(np.int32) if per_channel else 12
    _core._requant_family(x, mult, shift, 5 if out_dtype != "int16" else 0,
                          rounding=_core.ROUNDING_FLOOR,
                          out_dtype=out_dtype, out=o, **kw)


def _requant_fp(x, o, out_dtype, precision, ties, per_channel):
    n = x.shape[0]
    rng = np.random.default_rng(n + 2)
    zp = 7 if out_dtype != "uint8" else 128
    if per_channel:
        scale = (rng.random(n) * 0.01).astype(np.float32)
        bias = rng.integers(-2**31, 2**31, n, dtype=np.int64).astype(np.int32)
        simdops.requantize_fp32(x, scale, zp, bias=bias, out_dtype=out_dtype,
                                precision=precision, ties=ties, out=o)
    else:
        simdops.requantize_fp32(x, 0.0123, zp, out_dtype=out_dtype, precision=precision,
                                ties=ties, out=o)


# the float chain's runtime shapes (their own vector loops in the SIMD tiers)
_FP_CHAINS = {
    "onednn": dict(pre_scale=0.5, post_scale=2.0),
    "onednn reference": dict(pre_scale=0.5, post_divide=0.5),
    "openvino": dict(offset=0.25),
    "fbgemm float bias": dict(bias="float"),
    "add_half": dict(ties="add_half"),
    "float64 away": dict(precision="float64", ties="away", scale64=True),
}


def _requant_fp_chain(x, o, out_dtype, chain, per_channel):
    n = x.shape[0]
    rng = np.random.default_rng(n + 3)
    zp = 7 if out_dtype != "uint8" else 128
    kw = dict(chain)
    wide = kw.pop("scale64", False)
    scale = (rng.random(n) * 0.01) if per_channel else 0.0123
    if per_channel and not wide:
        scale = scale.astype(np.float32)
    bias = (rng.standard_normal(n) * 1000).astype(np.float32) if kw.pop("bias", None) else None
    simdops.requantize_fp32(x, scale, zp, bias=bias, out_dtype=out_dtype, out=o, **kw)


def uncovered_entries(case_list):
    """Kernel-table entries (from the C list) that no case exercises."""
    covered = set()
    for label, dtype, _, entries in case_list:
        for entry in entries:
            covered.add((entry, _core.kernel_slot_dtype(entry, dtype, out_dtype_of(label, dtype))))
    return [(entry, dt) for entry, slots in _core.kernel_entries() for dt in slots
            if (entry, dt) not in covered]


def _family_cases():
    """(rounding, entry, shift) for each fixed-point family rounding= takes beyond the
    default (tests/test_requant.py's double), from C's list: a shift of 9 and the
    lowest of -7 and the family's range."""
    entries = _core.rounding_entries()
    for name, _code, lo, hi, array_api in _core.roundings():
        if array_api and name != "double":
            for shift in sorted({min(max(9, lo), hi), min(max(-7, lo), hi)}, reverse=True):
                yield name, entries[name], shift


def _hardmax_axis0(x, o):
    n = x.shape[0]
    if n >= 4 and n % 4 == 0:
        simdops.hardmax(x.reshape(4, -1), axis=0, out=o.reshape(4, -1))
    else:
        simdops.hardmax(x, axis=0, out=o)


def _shift_range(family):
    """A family's (by name or code) shift range, from C's list."""
    for name, code, lo, hi, _array_api in _core.roundings():
        if family in (name, code):
            return lo, hi
    raise KeyError(f"no requantization family {family!r}")


def _requant(x, o, out_dtype, offset, mult, shift, bounds=False, bias=False, rounding="double"):
    n = x.shape[0]
    kw = {}
    if bounds:  # a range strictly inside the output type's
        info = np.iinfo(out_dtype)
        kw.update(min=info.min + (info.max - info.min) // 20, max=info.max - (info.max - info.min) // 20)
    if bias:
        rng = np.random.default_rng(n)
        kw["bias"] = rng.integers(-2**31, 2**31, n, dtype=np.int64).astype(np.int32)
        mult = rng.integers(-2**31, 2**31, n, dtype=np.int64).astype(np.int32)
        lo, hi = _shift_range(rounding)
        shift = rng.integers(lo, hi + 1, n).astype(np.int32)
    simdops.quantize_down_int32(x, mult, shift, offset, out_dtype=out_dtype, out=o,
                                rounding=rounding, **kw)


def out_dtype_of(label, dtype):
    """The case's output dtype, read from its label ("int32->int8 ...")."""
    if "->" in label:  # requant, quantize_linear, dequantize_linear
        return label.split("->")[1].split()[0]
    return dtype


def run_case(fn, x, out_dtype, offset, in_place):
    xv = _aligned_view(x, offset)
    if in_place:
        fn(xv, xv)
        return xv.view(np.uint8).copy()
    o = _aligned_view(np.zeros(x.shape, out_dtype), (offset * 7) % 64)
    fn(xv, o)
    return o.view(np.uint8).copy()


def check_isa(isa, rng, lengths, offsets, log):
    passed = failed = 0
    for label, dtype, fn, _ in cases():
        od = out_dtype_of(label, dtype)
        for n in lengths:
            x = make_input(dtype, n, rng)
            for offset in offsets(n):
                for in_place in ((False, True) if od == dtype and n in (0, 17, 130) else (False,)):
                    with simdops.use_isa("scalar"):
                        want = run_case(fn, x, od, offset, in_place)
                    with simdops.use_isa(isa):
                        got = run_case(fn, x, od, offset, in_place)
                    if np.array_equal(want, got):
                        passed += 1
                    else:
                        failed += 1
                        if failed <= 20:
                            log(f"FAIL {isa}: {label} n={n} offset={offset} in_place={in_place}")
    return passed, failed


def lowbit_cases():
    """(label, fn) of the low-bit QuantizeLinear / DequantizeLinear (the qlow kernel table,
    C's SIMDOPS_QTYPES): every quantized type, run per tensor, blocked along the last axis
    (runs) and along the first (rows), float32 / float16 / bfloat16 on the float side.
    Empty without ml_dtypes."""
    try:
        import ml_dtypes
    except ImportError:
        return []
    from simdops.onnx import _lowbit

    out = []
    floats = (np.dtype(np.float32), np.dtype(np.float16), np.dtype(ml_dtypes.bfloat16))
    for name, (code, bits, kind, lo, hi, qop, dqop) in _core.qtypes().items():
        if kind not in (1, 2, 3):
            continue
        dt = _lowbit._np_dtype(name)
        for fdt in floats:
            if qop:
                out.append((f"quantize_linear {fdt}->{name}",
                            lambda x, fdt=fdt, dt=dt: _lowbit_q(x, fdt, dt)))
            out.append((f"dequantize_linear {name}->{fdt}",
                        lambda x, fdt=fdt, dt=dt, bits=bits: _lowbit_dq(x, fdt, dt, bits)))
    return out


def _lowbit_layouts(n):
    """(shape, axis, block, scale shape) for n elements: per tensor, blocks of 3 along
    the last axis (runs), blocks of 2 along the first (rows)."""
    out = [((n,), 0, 0, ())]
    if n >= 8 and n % 4 == 0:
        out.append(((4, n // 4), 1, 3, (4, -(-(n // 4) // 3))))
        out.append(((4, n // 4), 0, 2, (2, n // 4)))
    return out


def _lowbit_q(x, fdt, dt):
    from simdops.onnx import _lowbit

    res = []
    for shape, axis, block, sshape in _lowbit_layouts(x.size):
        scale = np.resize(np.array([0.37, 2.5, 0.0078, 3.0], np.float32), sshape).astype(fdt)
        for sat in (0, 1):
            res.append(_lowbit.quantize_linear(x.reshape(shape).astype(fdt), scale, axis=axis,
                                               block_size=block, saturate=sat, output_dtype=dt,
                                               packed=True))
    return np.concatenate([r.view(np.uint8).reshape(-1) for r in res])


def _lowbit_dq(raw, fdt, dt, bits):
    """raw: random bytes; one element per itemsize bytes (4/2-bit types: the low bits)."""
    from simdops.onnx import _lowbit

    size = np.dtype(dt).itemsize
    q = raw[:raw.size // size * size].copy()
    if bits < 8:
        q &= (1 << bits) - 1
    q = q.view(dt)
    res = []
    for shape, axis, block, sshape in _lowbit_layouts(q.size):
        scale = np.resize(np.array([0.37, 2.5, 0.0078, 3.0], np.float32), sshape).astype(fdt)
        res.append(_lowbit.dequantize_linear(q.reshape(shape), scale, axis=axis,
                                             block_size=block, output_dtype=fdt))
    return np.concatenate([r.view(np.uint8).reshape(-1) for r in res])


def check_lowbit(isa, rng, lengths, log):
    passed = failed = 0
    for label, fn in lowbit_cases():
        for n in lengths:
            if label.startswith("quantize"):
                x = make_input(np.float32, n, rng)
            else:
                x = rng.integers(0, 256, size=n * 4, dtype=np.uint8)[:n * _itemsize(label)]
            with np.errstate(all="ignore"):
                with simdops.use_isa("scalar"):
                    want = fn(x)
                with simdops.use_isa(isa):
                    got = fn(x)
            if np.array_equal(want, got):
                passed += 1
            else:
                failed += 1
                if failed <= 20:
                    log(f"FAIL {isa}: {label} n={n}")
    return passed, failed


def _itemsize(label):
    name = label.split()[1].split("->")[0]
    return 2 if name in ("uint16", "int16") else 4 if name == "int32" else 1


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    quick = "--quick" in argv
    rng = np.random.default_rng(20261129)
    lengths = list(range(0, 40)) + [63, 64, 65, 100, 130] if quick else list(range(0, 131))
    offsets = lambda n: (0, 1, 3, 5) if n in (31, 64, 130) else (0,)
    isas = [i for i in simdops.available_isas() if i != "scalar"]
    print(f"simdops selftest: active ISA {simdops.isa()}; checking {', '.join(isas) or 'none'} "
          f"against scalar")
    total_p = total_f = 0
    problems = dtype_problems()
    for name, why in problems.items():
        print(f"FAIL dtype {name}: selftest cannot make its inputs ({why})")
    if problems:  # every case of such a dtype would test the wrong values, or fail to start
        print(f"0 passed, {len(problems)} failed")
        return 1
    missing = uncovered_entries(cases())
    for entry, dt in missing:
        print(f"FAIL no selftest case runs kernel entry {entry}[{dt}]")
    total_f += len(missing)
    available = simdops.available_isas()
    for isa in _core.known_isas():
        if isa in available:
            continue
        if isa in _core.cpu_supported_isas():
            print(f"FAIL this CPU supports ISA {isa} but it was not compiled in "
                  f"(a missing line in csrc/isa_flags.txt?)")
            total_f += 1
        else:
            print(f"  {isa}: NOT TESTED (this CPU does not support it)")
    for isa in isas:
        p, f = check_isa(isa, rng, lengths, offsets, print)
        lp, lf = check_lowbit(isa, rng, lengths[::7] + [64, 130], print)
        p, f = p + lp, f + lf
        print(f"  {isa}: {p} passed, {f} failed")
        total_p += p
        total_f += f
    print(f"{total_p} passed, {total_f} failed")
    return 1 if total_f else 0
