"""The onnx package's own backend node tests of Clip, Shrink, Hardmax,
QuantizeLinear and DequantizeLinear through simdops.onnx.run_node, read with
onnx.numpy_helper from the generator's layout (ci/onnx_node_data.py writes it
once per onnx version into the temp directory)."""
import os
import subprocess
import sys
import tempfile

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
from onnx import numpy_helper  # noqa: E402

import simdops.onnx as so  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OPS = ("test_clip", "test_shrink", "test_hardmax", "test_quantizelinear", "test_dequantizelinear")


def _data_dir():
    d = os.environ.get("SIMDOPS_ONNX_NODE_DATA") or os.path.join(
        tempfile.gettempdir(), f"simdops-onnx-node-{onnx.__version__}")
    if not os.path.isdir(os.path.join(d, "node")):
        tmp = d + f".tmp{os.getpid()}"
        subprocess.run([sys.executable, os.path.join(ROOT, "ci", "onnx_node_data.py"), tmp],
                       check=True, capture_output=True)
        try:
            os.rename(tmp, d)
        except OSError:  # another process made it first
            pass
    return os.path.join(d, "node")


NODE_DIR = _data_dir()
ALL = sorted(n for n in os.listdir(NODE_DIR) if n.startswith(OPS) and "_expanded" not in n)
IN_SCOPE = ALL  # every node test of these ops (float8 / float4 / int4 / int2 / blocked included)


def _read(path):
    t = onnx.TensorProto()
    with open(path, "rb") as f:
        t.ParseFromString(f.read())
    return numpy_helper.to_array(t)


def _case(name):
    model = onnx.load(os.path.join(NODE_DIR, name, "model.onnx"))
    opset = next(o.version for o in model.opset_import if o.domain in ("", "ai.onnx"))
    sets = []
    d = os.path.join(NODE_DIR, name)
    for ds in sorted(x for x in os.listdir(d) if x.startswith("test_data_set_")):
        files = sorted(os.listdir(os.path.join(d, ds)))
        ins = [_read(os.path.join(d, ds, f)) for f in files if f.startswith("input_")]
        outs = [_read(os.path.join(d, ds, f)) for f in files if f.startswith("output_")]
        sets.append((ins, outs))
    return model, opset, sets


def test_every_op_has_node_tests():
    counts = {op: sum(n.startswith(op + "_") or n == op for n in IN_SCOPE) for op in OPS}
    assert all(c > 0 for c in counts.values()), counts


@pytest.mark.parametrize("name", IN_SCOPE)
def test_node(name):
    model, opset, sets = _case(name)
    (node,) = model.graph.node
    graph_inputs = [i.name for i in model.graph.input]
    assert sets
    for ins, outs in sets:
        by_name = dict(zip(graph_inputs, ins))
        args = [by_name.get(n) if n else None for n in node.input]
        got = so.run_node(node, args, opset=opset)
        assert len(got) == len(outs)
        for g, w in zip(got, outs):
            g = np.asarray(g)
            assert g.dtype == w.dtype and g.shape == w.shape
            # bit for bit (NaN payloads included)
            assert g.tobytes() == w.tobytes(), (name, g, w)


def test_every_low_bit_node_test_runs():
    """The float8 / float4 / int4 / int2 / blocked cases the profile once refused are
    among the cases test_node runs (19 of them with onnx 1.23)."""
    low = [n for n in ALL if any(k in n for k in ("e4m3fn", "e5m2", "float4e2m1", "int4",
                                                   "uint4", "int2", "uint2", "blocked"))]
    assert len(low) >= 19, low
    assert set(low) <= set(IN_SCOPE)
