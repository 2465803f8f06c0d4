"""Writes the onnx package's backend node tests of the simdops.onnx ops (Clip,
Shrink, Hardmax, QuantizeLinear, DequantizeLinear) as the backend generator
lays them out: DIR/node/<test>/model.onnx and test_data_set_*/input_*.pb,
output_*.pb. The onnx wheel ships no test data; its `backend-test-tools
generate-data` writes it from the same cases (the installed version writes only
the model tests, so the node cases are collected here directly).

    python ci/onnx_node_data.py DIR       (about 25 s: the cases of every op are built)
"""
import os
import sys
import warnings

PREFIXES = ("test_clip", "test_shrink", "test_hardmax", "test_quantizelinear",
            "test_dequantizelinear")


def write(out_dir):
    from onnx import TensorProto, numpy_helper
    from onnx.backend.test.case import node

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cases = node.collect_testcases()
    count = 0
    for case in cases:
        if not case.name.startswith(PREFIXES) or case.name.endswith("_expanded"):
            continue
        d = os.path.join(out_dir, "node", case.name)
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "model.onnx"), "wb") as f:
            f.write(case.model.SerializeToString())
        for i, (inputs, outputs) in enumerate(case.data_sets):
            ds = os.path.join(d, f"test_data_set_{i}")
            os.makedirs(ds, exist_ok=True)
            for kind, values, infos in (("input", inputs, case.model.graph.input),
                                        ("output", outputs, case.model.graph.output)):
                for j, v in enumerate(values):
                    t = v if isinstance(v, TensorProto) else numpy_helper.from_array(v, infos[j].name)
                    with open(os.path.join(ds, f"{kind}_{j}.pb"), "wb") as f:
                        f.write(t.SerializeToString())
        count += 1
    return count


if __name__ == "__main__":
    print(f"{write(sys.argv[1])} node tests written to {sys.argv[1]}")
