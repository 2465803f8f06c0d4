"""Layer builders of the OpenVINO proofs beyond tests/runtime_models_rt2.py: near-tie
1x1 Convolutions with a float bias per channel, whose rows are chosen nearest a rounding
tie of the Convolution's own post-op arithmetic (oneDNN's weight scale, then the bias,
then the FakeQuantize as one linear post-op), for every output channel. numpy only."""
import numpy as np

from runtime_models_rt2 import FcLayer

F = np.float32


def conv_bias_near_tie_layers(seed, count, rows=64, shift=None, spread=None):
    """count layers (K = 2, w[n] = [127, 1]: the accumulators cover every integer of a
    32K range; uint8 activations, zero point 0) with a distinct float bias per channel
    (at least two channels). For each channel, rows // n rows are the activations whose
    FakeQuantize input ``f32(f32(acc) * S[n]) + bias[n]``, scaled by 255 / (ih - il)
    and shifted, lies nearest a rounding tie; alternately per tensor and per channel.
    shift: the FakeQuantize ranges chosen near [-128, 127] times a quantum, so that its
    shift onto [-128, 127] is about this small value (OpenVINO drops a linear
    post-op's shift below 1e-5 of the output range). spread: the biases lie within
    spread / isc of channel 0's instead (with shift given, channel 0's is 0)."""
    rng = np.random.default_rng(seed)
    a1, a2 = np.meshgrid(np.arange(256), np.arange(256), indexing="ij")
    grid = np.stack([a1.ravel(), a2.ravel()], 1)
    acc = (grid[:, 0] * 127 + grid[:, 1]).astype(F)
    layers = []
    for i in range(count):
        per_channel = bool(i % 2)
        n = int(rng.integers(2, 9))
        sa = F(2.0 ** rng.uniform(-8, -3))
        sw = np.broadcast_to((2.0 ** rng.uniform(-9, -5, n if per_channel else 1)).astype(
            F), (n,)).copy()
        span = float(sa) * float(sw.max()) * 2 ** rng.uniform(6, 11) * 255
        il = F(-span * rng.uniform(0.2, 0.8))
        ih = F(il + span)
        if shift is not None:  # -il * 255 / (ih - il) - 128 = shift, ih = 127 q
            q = span / 255
            ih = F(127 * q)
            il = F(-(128 + shift) * 255 * q / (255 - shift))
        b = (rng.uniform(-1, 1, n) * (ih - il) * 0.1).astype(F)
        isc = F(F(255) / F(ih - il))
        if spread is not None:  # all shifts within spread of channel 0's
            b0 = F(0) if shift is not None else b[0]
            b = (b0 + rng.uniform(-1, 1, n) * spread / float(isc)).astype(F)
        ish = F(F(-il * F(255)) / F(ih - il))
        picks = []
        for j in range(n):
            s = F(sa * sw[j])
            v = (acc * s).astype(F) + (b[j] if spread is None else F(0))
            # near enough to pick ties (with spread: the one-shift form, channel 0's)
            t = np.float64(v) * float(isc) + float(
                ish if spread is None else F(ish + F(b[0] * isc)))
            dist = np.abs(t - np.floor(t) - 0.5) + 10 * ((t < 0.5) | (t > 254.5))
            picks.append(np.argsort(dist, kind="stable")[:max(1, rows // n)])
        pick = np.concatenate(picks)
        w = np.tile(np.array([[127, 1]], np.int8), (n, 1))
        layers.append(FcLayer(grid[pick].astype(np.int64), 0, 0, sa, w, sw, b, il, ih,
                              per_channel))
    return layers


def compensation_k_order(zp, w):
    """C[n] = sum_k f32(zp * w[n, k]) in float32, in order of k."""
    c = np.zeros(w.shape[0], F)
    for k in range(w.shape[1]):
        c = (c + (zp * w[:, k].astype(F)).astype(F)).astype(F)
    return c


def compensation_float64(zp, w):
    """C[n] = the same products summed in float64, rounded once to float32."""
    return (zp * w.astype(F)).astype(F).astype(np.float64).sum(1).astype(F)


def _fc_zero_point_outputs(layer, acc, comp):
    """A FullyConnected with a float activation zero point, per channel, no bias, the
    compensation comp folded into the ranges (the FakeQuantize's chain) of the int64
    accumulators acc [rows, channels]."""
    ol = F(layer.sa * F(layer.lo - layer.zp))
    oh = F(layer.sa * F(layer.lo + 255 - layer.zp))
    s = (F(F(oh - ol) / F(255)) * layer.sw).astype(F)
    ilp = ((layer.il / s).astype(F) + comp).astype(F)
    ihp = ((layer.ih / s).astype(F) + comp).astype(F)
    m = (F(255) / (ihp - ilp)).astype(F)
    b = ((-ilp * F(255)).astype(F) / (ihp - ilp)).astype(F)
    if (np.abs(b - b[0]) < F(5e-5)).all():
        b = np.full_like(b, b[0])
    v = ((acc.astype(F) * m).astype(F) + (b - F(128)).astype(F)).astype(F)
    return np.clip(np.rint(v), -128, 127)


def compensation_order_layers(seed, count, rows=64, extra=60):
    """count FullyConnected layers whose compensation C[n] (a float zero point through
    the weights) differs between a float32 sum in order of k and one float64 sum, with
    rows where the two give different outputs: K = 2 + extra, w[n] = [127, 1, random],
    the extra activations fixed (so the accumulators cover a 32K range of integers),
    uint8 activations with a zero point between two integers, per channel, 2..8
    channels. Layers where the two sums agree on every channel are skipped."""
    rng = np.random.default_rng(seed)
    a1, a2 = np.meshgrid(np.arange(256), np.arange(256), indexing="ij")
    grid = np.stack([a1.ravel(), a2.ravel()], 1)
    layers = []
    while len(layers) < count:
        n = int(rng.integers(2, 9))
        zp = float(rng.integers(40, 216) + rng.uniform(0.1, 0.9))
        sa = F(2.0 ** rng.uniform(-8, -3))
        sw = (2.0 ** rng.uniform(-9, -5, n)).astype(F)
        span = float(sa) * float(sw.max()) * 2 ** rng.uniform(6, 11) * 255
        il = F(-span * rng.uniform(0.2, 0.8))
        ih = F(il + span)
        w = np.concatenate([np.tile(np.array([[127, 1]], np.int8), (n, 1)),
                            rng.integers(-127, 128, (n, extra)).astype(np.int8)], 1)
        fixed = rng.integers(0, 256, extra)
        layer = FcLayer(None, 0, zp, sa, w, sw, None, il, ih, True)
        ol = F(sa * F(0 - zp))
        oh = F(sa * F(255 - zp))
        zpp = F(F(F(F(0) * oh) - F(F(255) * ol)) / F(oh - ol))
        ck, cd = compensation_k_order(zpp, w), compensation_float64(zpp, w)
        if (ck == cd).all():
            continue
        # each channel's accumulators (the extra weights differ per channel)
        accs = (grid @ np.array([127, 1]))[:, None] + (fixed @ w[:, 2:].T.astype(
            np.int64))[None, :]
        yk = _fc_zero_point_outputs(layer, accs, ck)
        yd = _fc_zero_point_outputs(layer, accs, cd)
        differ = np.flatnonzero((yk != yd).any(1))
        if differ.size == 0:
            continue
        pick = rng.choice(differ, min(rows, differ.size), replace=False)
        xq = np.concatenate([grid[pick], np.tile(fixed, (pick.size, 1))], 1)
        layer.xq = xq.astype(np.int64)
        layers.append(layer)
    return layers


def run_openvino_conv3x3(layers):
    """The layers (K input channels, w [N, K]) as 3x3 Convolutions (padding 1) whose
    only nonzero tap is the centre one, over an input [1, K, M, 1] holding the rows:
    the same sums as the 1x1 form, through OpenVINO's general (not 1x1) int8 kernel.
    Returns (outputs int64 [M, N] per layer, {(primitive, precision): count})."""
    import openvino as ov
    import openvino.opset13 as ops
    from runtime_models_rt2 import _ov_compile, _ov_const, ov_kernels

    params, results = [], []
    for n, layer in enumerate(layers):
        x = layer.x
        p = ops.parameter([1, x.shape[1], x.shape[0], 1], np.float32, name=f"x{n}")
        lo = layer.sa * F(layer.lo - layer.zp)
        hi = layer.sa * F(layer.lo + 255 - layer.zp)
        fq = ops.fake_quantize(p, _ov_const(lo), _ov_const(hi), _ov_const(lo),
                               _ov_const(hi), 256)
        w = np.zeros(layer.w.shape + (3, 3), np.int8)
        w[:, :, 1, 1] = layer.w
        wd = ops.multiply(ops.convert(ops.constant(w), np.float32),
                          _ov_const(layer.sw.reshape(-1, 1, 1, 1)))
        y = ops.convolution(fq, wd, [1, 1], [1, 1], [1, 1], [1, 1])
        if layer.bias is not None:
            y = ops.add(y, _ov_const(layer.bias.reshape(1, -1, 1, 1)))
        results.append(ops.fake_quantize(y, _ov_const(layer.il), _ov_const(layer.ih),
                                         _ov_const(-128), _ov_const(127), 256))
        params.append(p)
    compiled = _ov_compile(ov.Model(results, params))
    res = compiled({f"x{n}": np.ascontiguousarray(layer.x.T).reshape(
        1, layer.x.shape[1], layer.x.shape[0], 1) for n, layer in enumerate(layers)})
    outs = [res[compiled.outputs[n]].reshape(layer.w.shape[0], -1).T.astype(np.int64)
            for n, layer in enumerate(layers)]
    return outs, ov_kernels(compiled, "Convolution")


def _one_shift(layer, exact):
    """Whether the layer's shifts ``ish + bias[n] * isc`` are all one value (exact) or
    all within 5e-5 of channel 0's but not one value, its biases distinct."""
    isc = F(F(255) / F(layer.ih - layer.il))
    ish = F(F(-layer.il * F(255)) / F(layer.ih - layer.il))
    sh = (ish + (layer.bias * isc).astype(F)).astype(F)
    return layer.w.shape[0] > 1 and not (layer.bias == layer.bias[0]).all() and \
        bool((sh == sh[0]).all()) == exact and bool((np.abs(sh - sh[0]) < F(5e-5)).all())


def one_shift_bias_layers(seed, count, rows=64):
    """count FullyConnected near-tie layers (zero point 0) with a bias per channel of
    distinct values whose FakeQuantize shifts ``ish + bias[n] * isc`` are all one value
    or all within 5e-5 of channel 0's (OpenVINO then keeps one shift), alternately: the
    near-tie layers of runtime_models_rt2 with their biases moved within 2e-6 / isc or
    2e-5 / isc of channel 0's; and 8 layers of ranges whose shift onto [-128, 127] lies
    either side of 1e-5 of the output range (biases near 0, rows nearest the ties of the
    one-shift form on every channel)."""
    from runtime_models_rt2 import near_tie_layers

    rng = np.random.default_rng(seed)
    layers = []
    for layer in near_tie_layers(seed, 3 * count, bias=True, rows=rows):
        exact = len(layers) % 2 == 0
        isc = F(F(255) / F(layer.ih - layer.il))
        spread = (2e-6 if exact else 2e-5) / float(isc)
        layer.bias = (layer.bias[0] + rng.uniform(-1, 1, layer.w.shape[0]) * spread
                      ).astype(F)
        if _one_shift(layer, exact):
            layers.append(layer)
        if len(layers) == count:
            break
    k = 0
    while len(layers) < count + 8:
        exact = len(layers) % 2 == 0
        shift = (2.2e-3, -2.2e-3, 4e-3, -4e-3)[k % 4]
        k += 1
        layer, = conv_bias_near_tie_layers(seed * 1000 + k, 1, rows, shift,
                                           2e-6 if exact else 2e-5)
        if _one_shift(layer, exact):
            layers.append(layer)
    return layers


def zero_point_one_shift_layers(seed, count, rows=64):
    """count FullyConnected near-tie layers with a nonzero activation zero point and a
    bias per channel of distinct values whose FakeQuantize shifts are all one value or
    all within 5e-5 of channel 0's, alternately (as one_shift_bias_layers), per tensor
    and per channel."""
    from runtime_models_rt2 import near_tie_layers

    rng = np.random.default_rng(seed)
    layers = []
    for layer in near_tie_layers(seed, 6 * count, zero_point=None, bias=True, rows=rows):
        exact = len(layers) % 2 == 0
        isc = F(F(255) / F(layer.ih - layer.il))
        spread = (2e-6 if exact else 2e-5) / float(isc)
        layer.bias = (layer.bias[0] + rng.uniform(-1, 1, layer.w.shape[0]) * spread
                      ).astype(F)
        if layer.zp != 0 and _one_shift(layer, exact):
            layers.append(layer)
        if len(layers) == count:
            break
    return layers
