"""Layer builders of the OpenVINO proofs beyond tests/runtime_models_rt2.py: near-tie
1x1 Convolutions with a float bias per channel, whose rows are chosen nearest a rounding
tie of the Convolution's own post-op arithmetic (oneDNN's weight scale, then the bias,
then the FakeQuantize as one linear post-op), for every output channel. numpy only."""
import numpy as np

from runtime_models_rt2 import FcLayer

F = np.float32


def conv_bias_near_tie_layers(seed, count, rows=64, shift=None):
    """count layers (K = 2, w[n] = [127, 1]: the accumulators cover every integer of a
    32K range; uint8 activations, zero point 0) with a distinct float bias per channel
    (at least two channels). For each channel, rows // n rows are the activations whose
    FakeQuantize input ``f32(f32(acc) * S[n]) + bias[n]``, scaled by 255 / (ih - il)
    and shifted, lies nearest a rounding tie; alternately per tensor and per channel.
    shift: the FakeQuantize ranges chosen near [-128, 127] times a quantum, so that its
    shift onto [-128, 127] is about this small value (OpenVINO drops a linear
    post-op's shift below 1e-5 of the output range)."""
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
        ish = F(F(-il * F(255)) / F(ih - il))
        picks = []
        for j in range(n):
            s = F(sa * sw[j])
            v = (acc * s).astype(F) + b[j]
            t = np.float64(v) * float(isc) + float(ish)  # near enough to pick ties
            dist = np.abs(t - np.floor(t) - 0.5) + 10 * ((t < 0.5) | (t > 254.5))
            picks.append(np.argsort(dist, kind="stable")[:max(1, rows // n)])
        pick = np.concatenate(picks)
        w = np.tile(np.array([[127, 1]], np.int8), (n, 1))
        layers.append(FcLayer(grid[pick].astype(np.int64), 0, 0, sa, w, sw, b, il, ih,
                              per_channel))
    return layers
