"""requantize_fp32's chain (float32 bias, pre_scale, post_scale / post_divide, offset,
bias_at), ties="add_half", float64 per-channel scales, rounding="single_away", and
simdops.runtimes' parameter helpers, against references written here from the
runtimes' formulas: numpy float32 scalars rounded at every step, Python floats for
double, Fractions for the rounding. Every available tier, per tensor and per channel,
several rows (the driver's repeated vectors), inputs built on ties."""
from fractions import Fraction
import math

import numpy as np
import pytest

import simdops
from simdops import runtimes

F = np.float32
OUT = {"uint8": (0, 255), "int8": (-128, 127), "int16": (-32768, 32767)}
RNG = np.random.default_rng(2031)


def round_half(v, away):
    f = math.floor(v)
    d = v - f
    if d > Fraction(1, 2) or (d == Fraction(1, 2) and (away and v > 0 or not away and f % 2)):
        return f + 1
    return f


def ref_chain(a, scale, zp, lo, hi, *, fb=None, bias_at="input", pre=None, post=None, div=None,
              off=None, precision="float32", ties="even"):
    """One output of the chain, from the documented order of steps."""
    with np.errstate(all="ignore"):
        if precision == "float32":
            v = F(a)
            if fb is not None and bias_at == "input":
                v = F(v + F(fb))
            if pre is not None:
                v = F(v * F(pre))
            v = F(v * F(scale))
            if fb is not None and bias_at == "scaled":
                v = F(v + F(fb))
            if post is not None:
                v = F(v * F(post))
            elif div is not None:
                v = F(v / F(div))
            if off is not None:
                v = F(v + F(off))
            v = float(v)
        else:
            v = float(a)
            if fb is not None and bias_at == "input":
                v = v + float(F(fb))
            if pre is not None:
                v = v * float(pre)
            v = v * float(scale)
            if fb is not None and bias_at == "scaled":
                v = v + float(F(fb))
            if post is not None:
                v = v * float(post)
            elif div is not None:
                v = v / float(div)
            if off is not None:
                v = v + float(off)
    if math.isnan(v):
        return lo
    if math.isinf(v):
        return hi if v > 0 else lo
    c = min(max(Fraction(v), lo - zp), hi - zp)
    if ties == "add_half":
        if precision == "float32":
            t = F(F(float(c)) + (F(-0.5) if float(c) < 0 or (c == 0 and math.copysign(1, v) < 0)
                                 else F(0.5)))
        else:
            t = float(c) + (-0.5 if float(c) < 0 or (c == 0 and math.copysign(1, v) < 0)
                            else 0.5)
        r = math.trunc(float(t))
    else:
        r = round_half(c, ties == "away")
    return r + zp


def ref_array(x, scale, zp, lo, hi, *, fbias=None, **kw):
    """ref_chain over x (channels last); scale / fbias per channel or per tensor."""
    x = np.asarray(x)
    ch = x.shape[-1]
    out = np.empty(x.shape, np.int64)
    flat, of = x.reshape(-1, ch), out.reshape(-1, ch)
    for r in range(flat.shape[0]):
        for k in range(ch):
            s = scale[k] if np.ndim(scale) else scale
            fb = None if fbias is None else fbias[k]
            of[r, k] = ref_chain(int(flat[r, k]), s, zp, lo, hi, fb=fb, **kw)
    return out


def tie_inputs(shape, scale):
    """Accumulators whose product with scale (a power of two here) lands on halves and
    quarters, beside random ones and the int32 edges."""
    n = int(np.prod(shape))
    x = RNG.integers(-3000, 3000, n).astype(np.int64)
    x[::7] = RNG.integers(-2**31, 2**31, x[::7].shape)
    x[:4] = [2**31 - 1, -2**31, 0, -1]
    return x.astype(np.int32).reshape(shape)


CHAINS = [
    dict(pre=0.5, post=0.25),                 # oneDNN JIT: power-of-two steps keep ties
    dict(pre=0.02, post=float(F(1) / F(0.05))),
    dict(pre=0.02, div=0.05),                 # oneDNN reference
    dict(off=0.5),                            # OpenVINO's shift on a tie
    dict(off=127.50000762939453),
    dict(pre=3.0, div=7.0, off=-0.25),
    dict(),                                   # add_half / float bias alone
]


def chain_kwargs(c):
    kw = {}
    for mine, theirs in (("pre", "pre_scale"), ("post", "post_scale"), ("div", "post_divide"),
                         ("off", "offset")):
        if mine in c:
            kw[theirs] = c[mine]
    return kw


@pytest.mark.parametrize("isa", simdops.available_isas())
@pytest.mark.parametrize("chain", range(len(CHAINS)))
@pytest.mark.parametrize("precision", ["float32", "float64"])
def test_chain_every_tier(isa, chain, precision):
    c = CHAINS[chain]
    for k, (dt, ties) in enumerate([("uint8", "even"), ("int8", "away"), ("int16", "add_half"),
                                    ("int8", "even")]):
        lo, hi = OUT[dt]
        zp = [0, -3, 100, 5][k] if dt != "uint8" else 128
        channels = [3, 16, 1, 33][k]
        rows = [40, 5, 30, 20][k]  # enough rows for the driver's repeated vectors
        x = tie_inputs((rows, channels), 0.5)
        per_channel = k % 2 == 0
        scale = (RNG.choice([0.5, 0.25, 0.1, 1.0, 0.003, 2.0**-9], channels).astype(np.float32)
                 if per_channel else 0.25)
        fbias, bias_at = None, "input"
        if k >= 2:
            fbias = RNG.choice([0.5, -0.5, 1.25, 1000.5, -7.0], channels).astype(np.float32)
            bias_at = "scaled" if k == 3 else "input"
        want = ref_array(x, scale, zp, lo, hi, fbias=fbias, bias_at=bias_at,
                         precision=precision, ties=ties, **c)
        with simdops.use_isa(isa):
            got = simdops.requantize_fp32(x, scale, zp, out_dtype=dt, precision=precision,
                                          ties=ties, bias=fbias, bias_at=bias_at,
                                          **chain_kwargs(c))
        assert got.dtype == np.dtype(dt)
        np.testing.assert_array_equal(got.astype(np.int64), want, err_msg=f"{dt} {ties} {k}")


@pytest.mark.parametrize("isa", simdops.available_isas())
def test_random_chains_match_reference(isa):
    for trial in range(30):
        channels = int(RNG.integers(1, 40))
        rows = int(RNG.integers(1, 30))
        x = RNG.integers(-2**31, 2**31, (rows, channels)).astype(np.int32)
        x[:, ::2] = RNG.integers(-50000, 50000, x[:, ::2].shape)
        scale = (RNG.random(channels) * 10.0 ** RNG.integers(-6, 0)).astype(np.float32)
        c = {"pre": float(RNG.random() + 0.01), "off": float(RNG.normal() * 100)}
        if trial % 2:
            c["post"] = float(RNG.random() * 40)
        else:
            c["div"] = float(RNG.random() + 0.001)
        fbias = (RNG.normal(size=channels) * 1e4).astype(np.float32) if trial % 3 else None
        bias_at = ["input", "scaled"][trial % 2]
        dt = ["uint8", "int8", "int16"][trial % 3]
        ties = ["even", "away", "add_half"][trial // 3 % 3]
        precision = ["float32", "float64"][trial // 9 % 2]
        lo, hi = OUT[dt]
        zp = int(RNG.integers(lo, hi + 1))
        want = ref_array(x, scale, zp, lo, hi, fbias=fbias, bias_at=bias_at, precision=precision,
                         ties=ties, **c)
        with simdops.use_isa(isa):
            got = simdops.requantize_fp32(x, scale, zp, out_dtype=dt, precision=precision,
                                          ties=ties, bias=fbias, bias_at=bias_at,
                                          **chain_kwargs(c))
        np.testing.assert_array_equal(got.astype(np.int64), want, err_msg=str(trial))


def test_threads_and_strides_agree():
    x = RNG.integers(-2**20, 2**20, (257, 67)).astype(np.int32)
    scale = RNG.random(67).astype(np.float32) * 0.01
    fb = RNG.normal(size=67).astype(np.float32) * 100
    kw = dict(bias=fb, pre_scale=0.3, post_scale=7.0, offset=0.5, ties="add_half",
              out_dtype="int8")
    one = simdops.requantize_fp32(x, scale, 3, **kw)
    np.testing.assert_array_equal(one, ref_array(x, scale, 3, -128, 127, fbias=fb, pre=0.3,
                                                 post=7.0, off=0.5, ties="add_half"))
    xs = np.asfortranarray(x)
    np.testing.assert_array_equal(simdops.requantize_fp32(xs, scale, 3, **kw), one)
    big = np.concatenate([x] * 40)
    old = simdops.get_num_threads()
    try:
        simdops.set_num_threads(2)
        np.testing.assert_array_equal(simdops.requantize_fp32(big, scale, 3, **kw),
                                      np.concatenate([one] * 40))
    finally:
        simdops.set_num_threads(old)


test_threads_and_strides_agree = pytest.mark.thread_unsafe(test_threads_and_strides_agree)


def test_add_half_rounds_the_float_below_one_half_up():
    # 0.49999997 (the float32 below 0.5): round half away gives 0, ncnn's x86
    # cvtt(v + 0.5) adds to 0.99999997, which rounds to 1.0 in float32
    below = float(np.nextafter(F(0.5), F(0)))
    x = np.array([1, -1, 3, -3], np.int32)
    assert simdops.requantize_fp32(x, below, out_dtype="int8", ties="add_half").tolist() == \
        [1, -1, 1, -1]
    assert simdops.requantize_fp32(x, below, out_dtype="int8", ties="away").tolist() == \
        [0, 0, 1, -1]
    # in double the sum is exact: add_half equals away there
    assert simdops.requantize_fp32(x, below, out_dtype="int8", ties="add_half",
                                   precision="float64").tolist() == [0, 0, 1, -1]


def test_float64_per_channel_scales_are_doubles():
    # 5 * 0.1 is 0.5 in double (a tie: even gives 0); 0.1 as float32 is above 0.1 (gives 1)
    x = np.array([[5, 5]] * 9, np.int32)
    d = simdops.requantize_fp32(x, np.array([0.1, 0.1]), precision="float64", out_dtype="int8")
    f = simdops.requantize_fp32(x, np.array([0.1, 0.1], np.float32), precision="float64",
                                out_dtype="int8")
    assert (d == 0).all() and (f == 1).all()
    # precision="float32" rounds the scale to float32 and the product too: 0.5 again
    g = simdops.requantize_fp32(x, np.array([0.1, 0.1]), out_dtype="int8")
    assert (g == 0).all()


def test_float_bias_adds_before_the_multiply_unrounded():
    # fbgemm: f32(acc) + f32(bias / S): 1 + 0.5 = 1.5 -> * 1.0 -> even 2; an int32 bias
    # would have to round the 0.5 first
    x = np.array([[1, 2]], np.int32)
    got = simdops.requantize_fp32(x, 1.0, bias=np.array([0.5, 0.5], np.float32),
                                  out_dtype="int8")
    assert got.tolist() == [[2, 2]]
    got = simdops.requantize_fp32(x, 2.0, bias=np.array([0.25, 0.25], np.float32),
                                  bias_at="scaled", out_dtype="int8")
    assert got.tolist() == [[2, 4]]  # 2.25 -> 2, 4.25 -> 4


def test_nan_inside_the_chain_gives_min():
    # inf * 0: f32(2**31 * 1e38) overflows, * 0 scale is NaN
    x = np.array([2**31 - 1, 0] * 40, np.int32)  # long enough for the vector loops
    for isa in simdops.available_isas():
        with simdops.use_isa(isa):
            got = simdops.requantize_fp32(x, 0.0, 7, pre_scale=1e38, out_dtype="int8", min=-5)
        assert got.tolist() == [-5, 7] * 40, isa


def test_errors_name_the_argument():
    x = np.arange(4, dtype=np.int32)
    with pytest.raises(ValueError, match="post_scale and post_divide both"):
        simdops.requantize_fp32(x, 1.0, post_scale=2.0, post_divide=2.0)
    with pytest.raises(ValueError, match="post_divide must be nonzero"):
        simdops.requantize_fp32(x, 1.0, post_divide=0.0)
    with pytest.raises(ValueError, match="post_divide must be nonzero"):
        simdops.requantize_fp32(x, 1.0, post_divide=1e-50)  # zero as a float32
    with pytest.raises(ValueError, match="pre_scale must be finite"):
        simdops.requantize_fp32(x, 1.0, pre_scale=float("nan"))
    with pytest.raises(ValueError, match="offset must be finite"):
        simdops.requantize_fp32(x, 1.0, offset=1e39)
    with pytest.raises(TypeError, match="offset"):
        simdops.requantize_fp32(x, 1.0, offset="1")
    with pytest.raises(ValueError, match="bias must be finite, got inf at index 1"):
        simdops.requantize_fp32(x.reshape(2, 2), 1.0, bias=np.array([0, np.inf], np.float32))
    with pytest.raises(ValueError, match="bias_at"):
        simdops.requantize_fp32(x, 1.0, bias_at="output")
    with pytest.raises(ValueError, match="ties"):
        simdops.requantize_fp32(x, 1.0, ties="up")
    with pytest.raises(TypeError, match="bias"):
        simdops.quantize_down_int32(x.reshape(2, 2), 1 << 30, 1,
                                    bias=np.array([0.5, 0.5], np.float32))
    with pytest.raises(ValueError, match="scale must be finite, got inf at index 1"):
        simdops.requantize_fp32(x.reshape(2, 2), np.array([1.0, np.inf]), precision="float64")


@pytest.mark.parametrize("isa", simdops.available_isas())
def test_single_away_ties(isa):
    # a*M / 2**t exactly on halves: TVM's TONEAREST rounds them away from zero
    x = np.array([[1, -1, 3, -3, 2, -2, 5, -5]] * 6, np.int32)
    with simdops.use_isa(isa):
        away = simdops.quantize_down_int32(x, 1 << 30, 0, out_dtype="int8",
                                           rounding="single_away")
        up = simdops.quantize_down_int32(x, 1 << 30, 0, out_dtype="int8", rounding="single")
        pc = simdops.quantize_down_int32(x, np.full(8, 1 << 30), np.zeros(8, np.int32),
                                         out_dtype="int8", rounding="single_away")
    assert away[0].tolist() == [1, -1, 2, -2, 1, -1, 3, -3]
    assert up[0].tolist() == [1, 0, 2, -1, 1, -1, 3, -2]
    np.testing.assert_array_equal(pc, away)


# ---------------------------------------------------------------- the helpers


def test_onednn_params_chain_and_reference():
    acc = RNG.integers(-200000, 200000, (64, 8)).astype(np.int32)
    s_a, s_w, s_o, zp = 0.0173, RNG.random(8) * 0.01 + 1e-4, 0.0611, 5
    p = runtimes.onednn_requant_params(s_a, s_w, s_o, zp)
    got = simdops.requantize_fp32(acc, **p)
    sw = s_w.astype(np.float32)
    inv = F(1) / F(s_o)
    # the zero point is added in float32 before rounding (oneDNN; measured with torch)
    want = [[min(max(round_half(Fraction(float(F(F(F(F(F(a) * F(s_a)) * sw[k]) * inv)
                                                 + F(zp)))), False), -128), 127)
             for k, a in enumerate(row)] for row in acc.tolist()]
    np.testing.assert_array_equal(got, want)
    pr = runtimes.onednn_requant_params(s_a, s_w, s_o, zp, reference=True)
    assert "post_divide" in pr and "post_scale" not in pr
    got = simdops.requantize_fp32(acc, **pr)
    want = [[min(max(round_half(Fraction(float(F(F(F(F(F(a) * F(s_a)) * sw[k]) / F(s_o))
                                                 + F(zp)))), False), -128), 127)
             for k, a in enumerate(row)] for row in acc.tolist()]
    np.testing.assert_array_equal(got, want)
    # a tie with an odd zero point: -51.5 + 115 = 63.5 rounds to 64 (after: -52 + 115)
    tie = np.array([-824] * 33, np.int32)
    p = runtimes.onednn_requant_params(2.0 ** -6, 2.0 ** -5, 2.0 ** -7, 115, out_dtype="uint8")
    assert (simdops.requantize_fp32(tie, **p) == 64).all()
    with pytest.raises(ValueError, match="zero_point"):
        runtimes.onednn_requant_params(0.1, 0.1, 0.1, 300, out_dtype="uint8")


def test_fbgemm_float_bias_params():
    acc = RNG.integers(-100000, 100000, (32, 6)).astype(np.int32)
    bias = RNG.normal(size=6) * 3
    s_a, s_w, s_o, zp = 0.021, RNG.random(6) * 0.01 + 1e-4, 0.07, 120
    p = runtimes.fbgemm_float_bias_params(bias, s_a, s_w, s_o, zp)
    got = simdops.requantize_fp32(acc, **p)
    S = F(s_a) * s_w.astype(np.float32)
    want = [[min(max(round_half(Fraction(float(F(F(F(a) + F(F(bias[k]) / S[k])) * F(S[k] / F(s_o))))),
                                False) + zp, 0), 255) for k, a in enumerate(row)]
            for row in acc.tolist()]
    np.testing.assert_array_equal(got, want)


def test_litert_fc_params_per_channel_doubles():
    acc = RNG.integers(-100000, 100000, (16, 5)).astype(np.int32)
    s_in, s_w, s_out, zp = 0.031, (RNG.random(5) * 0.01).astype(np.float32), 0.09, -2
    p = runtimes.litert_fc_params(s_in, s_w, s_out, zp)
    assert p["scale"].dtype == np.float64
    got = simdops.requantize_fp32(acc, **p)
    want = [[min(max(round_half(Fraction(float(a) * (float(F(s_in)) * float(s_w[k])
                                                     / float(F(s_out)))), True) + zp, -128), 127)
             for k, a in enumerate(row)] for row in acc.tolist()]
    np.testing.assert_array_equal(got, want)


def test_openvino_fq_requant_params():
    acc = RNG.integers(-50000, 50000, (32, 4)).astype(np.int32)
    s_a = 0.0123
    il, ih = -2.5, 2.48
    for s_w, ol, oh in [(np.array([0.004, 0.0041, 0.001, 0.0173], np.float32), -128, 127),
                        (np.array([0.004, 0.0041, 0.001, 0.0173], np.float32), 0, 255)]:
        p = runtimes.openvino_fq_requant_params(s_a, s_w, il, ih, ol, oh, 256)
        got = simdops.requantize_fp32(acc, **p)
        S = F(s_a) * s_w
        il_n, ih_n = F(il) / S, F(ih) / S
        m = F(255) / (ih_n - il_n)
        b = [F(F(-il_n[k] * F(255)) / F(ih_n[k] - il_n[k])) for k in range(4)]
        if all(abs(v - b[0]) < F(5e-5) for v in b):  # fake_quantize.cpp's workaround
            b = [b[0]] * 4
        shift = [F(v + F(ol)) for v in b]  # output_low joins the shift before rounding
        want = [[min(max(round_half(Fraction(float(F(F(F(a) * m[k]) + shift[k]))), False),
                         ol), oh) for k, a in enumerate(row)] for row in acc.tolist()]
        np.testing.assert_array_equal(got, want)
        assert p["bias_at"] == "scaled" and p["zero_point"] == 0
        assert p["bias"].tolist() == [float(v) for v in shift]
        np.testing.assert_array_equal(runtimes.openvino_fq_requant(acc, s_a, s_w, il, ih, ol,
                                                                   oh), want)
    # shifts within 5e-5 of channel 0's become channel 0's (fake_quantize.cpp's workaround)
    p = runtimes.openvino_fq_requant_params(s_a, [0.004, 0.001, 0.0173], il, ih, -128, 127)
    assert len(set(p["bias"].tolist())) == 1 and len(set(p["scale"].tolist())) == 3
    # per tensor: one fused multiply-add, which requantize_fp32 has no form of
    with pytest.raises(ValueError, match="fused multiply-add"):
        runtimes.openvino_fq_requant_params(s_a, 0.004, il, ih, -128, 127)
    x = np.array([-50614, 17, 0, 3], np.int32)
    S = F(F(s_a) * F(0.004))
    il_n, ih_n = F(F(il) / S), F(F(ih) / S)
    m = F(F(255) / F(ih_n - il_n))
    sh = F(F(F(-il_n * F(255)) / F(ih_n - il_n)) - F(128))
    want = [min(max(round_half(Fraction(float(F(float(Fraction(int(a)) * Fraction(float(m)) +
                                                      Fraction(float(sh)))))), False), -128),
                    127) for a in x.tolist()]
    assert runtimes.openvino_fq_requant(x, s_a, 0.004, il, ih, -128, 127).tolist() == want
    with pytest.raises(ValueError, match="256-level"):
        runtimes.openvino_fq_requant_params(s_a, [0.004, 0.001], il, ih, 0, 1, 2)


def f32_of(fr):
    """The float32 nearest to the Fraction fr, ties to even (one rounding)."""
    f = F(float(fr))
    cands = [F(np.nextafter(f, F(-np.inf))), f, F(np.nextafter(f, F(np.inf)))]
    best = min(abs(Fraction(float(c)) - fr) for c in cands)
    near = [c for c in cands if abs(Fraction(float(c)) - fr) == best]
    return near[0] if len(near) == 1 else [c for c in near if not
                                           int(np.array(c).view(np.int32)) & 1][0]


def ref_fake_quantize(x, il, ih, ol, oh, levels, path="subgraph"):
    """From snippets' FakeQuantize decomposition (subgraph) and the node's JIT kernel
    (node): float32 steps, the fused multiply-adds rounded once (Fractions)."""
    lv = F(levels - 1)
    isc = F(lv / F(F(ih) - F(il)))
    ish = F(F(F(-F(il)) * lv) / F(F(ih) - F(il)))
    osc = F(F(F(oh) - F(ol)) / lv)
    out = []
    for v in np.asarray(x, np.float32).tolist():
        v = F(v)
        c = (F(il) if path == "subgraph" else F(ih)) if math.isnan(v) else min(max(v, F(il)),
                                                                             F(ih))
        if path == "subgraph":
            t = F(F(c * isc) - F(F(il) * isc))
        else:
            t = f32_of(Fraction(float(c)) * Fraction(float(isc)) + Fraction(float(ish)))
        r = round_half(Fraction(float(t)), False)
        out.append(f32_of(r * Fraction(float(osc)) + Fraction(float(F(ol)))))
    return np.array(out, np.float32)


def test_fake_quantize_against_reference():
    x = np.concatenate([RNG.normal(size=1500).astype(np.float32) * 2,
                        np.array([np.nan, np.inf, -np.inf, 0.0, -0.0], np.float32)])
    for il, ih, ol, oh, lv in [(-1.0, 1.0, -1.0, 1.0, 256), (0.0, 6.0, 0.0, 255.0, 256),
                               (-0.37, 2.9, -128.0, 127.0, 256), (-3.0, 3.0, 0.0, 1.0, 16),
                               (-0.3, 0.7, 2.0, -1.3, 255)]:
        for path in ("subgraph", "node"):
            got = runtimes.fake_quantize(x, il, ih, ol, oh, lv, path=path)
            want = ref_fake_quantize(x, il, ih, ol, oh, lv, path)
            np.testing.assert_array_equal(got.view(np.int32), want.view(np.int32))
        assert runtimes.fake_quantize(x[1500:1501], il, ih, ol, oh, lv)[0] == F(ol)  # NaN


def test_openvino_quantize_linear_differs_from_onnx():
    # the atlas pair: OpenVINO runs an ONNX QuantizeLinear as a FakeQuantize (a multiply
    # by 255 / (ih - il)); ONNX divides by the scale. Built on ties of x / s.
    s = F(0.0137)
    k = np.arange(-120, 120)
    x = ((k + F(0.5)).astype(np.float32) * s).astype(np.float32)
    for zp in (0, 3):
        onnx = np.clip(np.rint(x / s) + zp, -128, 127).astype(np.int8)
        ov = runtimes.openvino_quantize_linear(x, s, zp, "int8")
        p = runtimes.openvino_quantize_linear_params(s, zp, "int8")
        il, ih = p["input_low"], p["input_high"]
        assert il == F(s * F(-128 - zp)) and p["levels"] == 256
        isc = F(F(255) / F(ih - il))
        if zp == 0:  # snippets sees a plain scale: RNE(x * isc)
            want = [min(max(round_half(Fraction(float(F(F(min(max(v, il), ih)) * isc))),
                                       False), -128), 127) for v in x.tolist()]
        else:
            want = [min(max(round_half(Fraction(float(F(F(F(min(max(v, il), ih)) * isc) -
                                                         F(il * isc)))), False) - 128,
                            -128), 127) for v in x.tolist()]
        np.testing.assert_array_equal(ov, want)
        assert (ov != onnx).sum() > 0


def test_executorch_quantize_per_tensor():
    s = 0.0137
    x = np.concatenate([(np.arange(-200, 200) + F(0.5)).astype(np.float32) * F(s),
                        np.array([np.nan, np.inf, -np.inf], np.float32)])
    got = runtimes.executorch_quantize_per_tensor(x, s, 3, -128, 127, "int8")
    inv = F(1) / F(s)
    want = []
    for v in x.tolist():
        t = float(F(F(v) * inv))
        if math.isnan(t) or math.isinf(t):
            want.append(-128)  # x86's float -> int64 of NaN / inf: INT64_MIN, clamped
            continue
        want.append(min(max(round_half(Fraction(t), False) + 3, -128), 127))
    np.testing.assert_array_equal(got, want)
    onnx = np.clip(np.rint(x[:400] / F(s)) + 3, -128, 127)
    assert (got[:400] != onnx).sum() > 0  # the reciprocal differs from ONNX's division


def test_onednn_float_output_two_multiplies():
    acc = RNG.integers(-2**24, 2**24, (64, 8)).astype(np.int32)
    s_a, s_w = F(0.0173), (RNG.random(8) * 0.01).astype(np.float32)
    got = runtimes.onednn_float_output(acc, s_a, s_w)
    want = np.array([[F(F(F(a) * s_a) * s_w[k]) for k, a in enumerate(r)] for r in acc.tolist()],
                    np.float32)
    np.testing.assert_array_equal(got, want)
    combined = (acc.astype(np.float32) * (s_a * s_w)).astype(np.float32)
    assert (combined != got).any()


@pytest.mark.parametrize("precision", ["float32", "float64"])
def test_power_of_two_steps_fold_only_in_the_normal_range(precision):
    # pre_scale and post_scale powers of two run as one multiplier (or none) only where every
    # step stays a normal number: a subnormal intermediate rounds on a coarser grid (A * pre
    # * s = (1/2 + ulp/2) * 2^emin ties down to 2^emin / 2: 0, where A * s rounds to 1), an
    # overflowing one saturates; both differ from the folded product
    e = 126 if precision == "float32" else 1022
    half_up = 0.5 + (2.0**-24 if precision == "float32" else 2.0**-53)
    cases = [
        (np.full(80, 1, np.int32), half_up, dict(pre=2.0**-e, post=2.0**e)),       # subnormal
        (np.full(80, 2**31 - 1, np.int32), 2.0**-30, dict(pre=2.0**100, post=2.0**-100)),
        (tie_inputs((80,), 1.0), 1 / 1024, dict(pre=0.5, post=2.0)),                 # folds: c = 1
        (tie_inputs((80,), 1.0), 1 / 1024, dict(pre=0.25, div=0.5)),                 # c = 1/2
    ]
    if precision == "float64":
        cases[1] = (np.full(80, 2**31 - 1, np.int32), 2.0**-30,
                    dict(pre=2.0**1000, post=2.0**-1000))
    for x, scale, c in cases:
        want = ref_array(x.reshape(1, -1), scale, 3, -128, 127, precision=precision, **c)
        pc_scale = np.full(80, scale, np.float32 if precision == "float32" else np.float64)
        for isa in simdops.available_isas():
            with simdops.use_isa(isa):
                for s in (scale, pc_scale):
                    got = simdops.requantize_fp32(x.reshape(1, -1), s, 3, out_dtype="int8",
                                                  precision=precision, **chain_kwargs(c))
                    assert got.tolist() == want.tolist(), (isa, c, np.ndim(s))


test_power_of_two_steps_fold_only_in_the_normal_range = pytest.mark.thread_unsafe(
    test_power_of_two_steps_fold_only_in_the_normal_range)
