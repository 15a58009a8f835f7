#!/usr/bin/python3
"""Builds the quantized ONNX models of issue 18 point 5 and their reference outputs.

Writes, under tests/data/onnx/<model>/: <model>.onnx, five float32 input vectors, the
outputs onnxruntime-web computes for them (tests/oracle/ort_oracle.js, default graph
optimizations) and a manifest.json shaped like ../shared/golden/*/manifest.json.

Models (PyTorch 1.13 FX post-training quantization, qnnpack backend, exported with
torch.onnx.export(..., opset_version=13); random weights, BatchNorm statistics measured
on random data first so that every layer's activations keep unit scale, then folded):
  ds_cnn_kws             MLPerf Tiny's DS-CNN keyword spotter, 1x1x49x10 input;
  resnet8                MLPerf Tiny's ResNet-8, 1x3x32x32 input, residual adds;
  mobilenet_v2_035_96    torchvision MobileNetV2, width 0.35, 1x3x96x96, 2 classes;
  mlp_autoencoder        MLPerf Tiny's anomaly-detection autoencoder (ad01), 640 -> 640;
and one model written with onnx.helper the way onnxruntime's quantize_static writes QDQ:
  qdq_static_cnn         int8 asymmetric activations, int8 per-channel weights (axis 0),
                         int32 bias with scale = input scale x weight scale.
The PyTorch models end at their logits: PyTorch 1.13 cannot export quantized::softmax.

Not part of setup: the .onnx files and outputs are committed, so the test suite needs
neither torch nor this script. To regenerate (Debian 12):
  apt-get install python3-torch python3-torchvision python3-onnx python3-numpy
  npm ci --prefix tests/oracle
  /usr/bin/python3 tools/onnx_models/make_models.py [--only NAME ...]
Debian's /usr/bin/python3 is needed: another python3 first on PATH may not see the
python3-* packages. Everything is seeded and single-threaded, so a rerun on the same
package versions writes the same bytes.
"""

import argparse
import collections
import hashlib
import json
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import helper, numpy_helper, TensorProto

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OUT_ROOT = os.path.join(REPO, "tests", "data", "onnx")
ORACLE = os.path.join(REPO, "tests", "oracle", "ort_oracle.js")
VECTOR_SEED = 20250101  # the seed of ../shared/golden's input vectors
VECTOR_COUNT = 5
OPSET = 13

# ----------------------------------------------------------------------------- PyTorch models


def torch_modules():
    """The PyTorch model classes, defined only when torch is wanted (it imports slowly)."""
    import torch
    from torch import nn

    def conv_bn_relu(cin, cout, kernel, stride=1, padding=0, groups=1):
        return nn.Sequential(
            nn.Conv2d(cin, cout, kernel, stride=stride, padding=padding, groups=groups),
            nn.BatchNorm2d(cout),
            nn.ReLU(),
        )

    class DsCnnKws(nn.Module):
        """MLPerf Tiny kws_ref_model: conv 10x4 /2, four depthwise-separable blocks, average pool, FC 12."""

        def __init__(self, filters=64, classes=12):
            super().__init__()
            # TensorFlow's 'same' padding of a 10x4 kernel at stride 2 on 49x10 gives 25x5;
            # symmetric padding (5, 1) gives the same output shape.
            self.stem = conv_bn_relu(1, filters, (10, 4), stride=2, padding=(5, 1))
            self.blocks = nn.Sequential(
                *[
                    nn.Sequential(
                        conv_bn_relu(filters, filters, 3, padding=1, groups=filters),
                        conv_bn_relu(filters, filters, 1),
                    )
                    for _ in range(4)
                ]
            )
            self.pool = nn.AvgPool2d((25, 5))
            self.fc = nn.Linear(filters, classes)

        def forward(self, x):
            x = self.pool(self.blocks(self.stem(x)))
            return self.fc(torch.flatten(x, 1))

    class ResidualStack(nn.Module):
        """ResNet-8's stack: two 3x3 convolutions, a 1x1 projection when the shape changes, add, ReLU."""

        def __init__(self, cin, cout, stride):
            super().__init__()
            self.conv1 = conv_bn_relu(cin, cout, 3, stride=stride, padding=1)
            self.conv2 = nn.Conv2d(cout, cout, 3, padding=1)
            self.bn2 = nn.BatchNorm2d(cout)
            self.project = None
            if stride != 1 or cin != cout:
                self.project = nn.Conv2d(cin, cout, 1, stride=stride)
            self.relu = nn.ReLU()

        def forward(self, x):
            shortcut = x if self.project is None else self.project(x)
            return self.relu(self.bn2(self.conv2(self.conv1(x))) + shortcut)

    class ResNet8(nn.Module):
        """MLPerf Tiny image classification ResNet-8: 16, 32, 64 filters, global average pool, FC 10."""

        def __init__(self, classes=10):
            super().__init__()
            self.stem = conv_bn_relu(3, 16, 3, padding=1)
            self.stacks = nn.Sequential(ResidualStack(16, 16, 1), ResidualStack(16, 32, 2), ResidualStack(32, 64, 2))
            self.pool = nn.AdaptiveAvgPool2d(1)
            self.fc = nn.Linear(64, classes)

        def forward(self, x):
            x = self.pool(self.stacks(self.stem(x)))
            return self.fc(torch.flatten(x, 1))

    class MlpAutoencoder(nn.Module):
        """MLPerf Tiny ad01: 640 -> 4 x (128, BN, ReLU) -> 8 -> 4 x (128, BN, ReLU) -> 640."""

        def __init__(self, features=640, hidden=128, bottleneck=8):
            super().__init__()
            widths = [features] + [hidden] * 4 + [bottleneck] + [hidden] * 4
            layers = []
            for cin, cout in zip(widths[:-1], widths[1:]):
                layers += [nn.Linear(cin, cout), nn.BatchNorm1d(cout), nn.ReLU()]
            layers.append(nn.Linear(hidden, features))
            self.layers = nn.Sequential(*layers)

        def forward(self, x):
            return self.layers(x)

    def mobilenet_v2_035(classes=2):
        import torchvision

        return torchvision.models.mobilenet_v2(width_mult=0.35, num_classes=classes)

    return {
        "ds_cnn_kws": DsCnnKws,
        "resnet8": ResNet8,
        "mobilenet_v2_035_96": mobilenet_v2_035,
        "mlp_autoencoder": MlpAutoencoder,
    }


# name -> (input shape, weight quantization, what the model is)
TORCH_MODELS = {
    "ds_cnn_kws": ([1, 1, 49, 10], "per_channel", "MLPerf Tiny DS-CNN keyword spotter (kws_ref_model shape), random weights"),
    "resnet8": ([1, 3, 32, 32], "per_tensor", "MLPerf Tiny ResNet-8 (image classification shape), random weights"),
    "mobilenet_v2_035_96": ([1, 3, 96, 96], "per_channel", "torchvision MobileNetV2, width 0.35, 96x96, 2 classes, random weights"),
    "mlp_autoencoder": ([1, 640], "per_tensor", "MLPerf Tiny ad01 autoencoder shape (640-128x4-8-128x4-640), random weights"),
}


def measure_batchnorm(model, shape, torch):
    """Random weights make activations shrink or grow layer after layer; BatchNorm statistics
    measured on random data (cumulative average over the batches) bring each layer back to
    unit scale before BatchNorm is folded. Random affine parameters give non-trivial biases."""
    for module in model.modules():
        if isinstance(module, (torch.nn.BatchNorm1d, torch.nn.BatchNorm2d)):
            module.momentum = None
            with torch.no_grad():
                module.weight.uniform_(0.5, 1.5)
                module.bias.normal_(0.0, 0.25)
    model.train()
    with torch.no_grad():
        for _ in range(16):
            model(torch.randn([16] + shape[1:]))
    model.eval()


def qnnpack_qconfig_mapping(weights, torch):
    from torch.ao.quantization import QConfig, QConfigMapping, get_default_qconfig_mapping
    from torch.ao.quantization.observer import HistogramObserver, PerChannelMinMaxObserver

    if weights == "per_tensor":
        return get_default_qconfig_mapping("qnnpack")  # per-tensor symmetric int8 weights
    per_channel = QConfig(
        activation=HistogramObserver.with_args(reduce_range=False),
        weight=PerChannelMinMaxObserver.with_args(dtype=torch.qint8, qscheme=torch.per_channel_symmetric),
    )
    return QConfigMapping().set_global(per_channel)


def build_torch_model(name, path):
    import torch
    from torch.ao.quantization.quantize_fx import convert_fx, prepare_fx

    shape, weights, _ = TORCH_MODELS[name]
    torch.backends.quantized.engine = "qnnpack"
    torch.set_num_threads(1)
    torch.manual_seed(sorted(TORCH_MODELS).index(name) + 1)
    model = torch_modules()[name]()
    measure_batchnorm(model, shape, torch)
    example = (torch.randn(shape),)
    prepared = prepare_fx(model, qnnpack_qconfig_mapping(weights, torch), example)
    with torch.no_grad():
        for _ in range(8):
            prepared(torch.randn(shape))
    quantized = convert_fx(prepared)
    torch.onnx.export(
        quantized, example, path, opset_version=OPSET, input_names=["input"], output_names=["output"]
    )


# ----------------------------------------------------------------------------- quantize_static-style QDQ


def build_qdq_static_model(path):
    """A small CNN quantized the way onnxruntime.quantization.quantize_static (QDQ format,
    MinMax calibration, per_channel=True, activation_type=QInt8) writes it: float graph
    input, QuantizeLinear/DequantizeLinear pairs with initializers named <tensor>_scale /
    <tensor>_zero_point, weights as int8 initializers <w>_quantized with one scale per
    output channel (axis 0) and zero point 0, biases as int32 <b>_quantized with scale =
    input scale x weight scale and zero point 0, Relu removed (its range is folded into
    the following QuantizeLinear's), MaxPool and Flatten sharing their input's scale.
    The float graph is evaluated by torch only to calibrate the activation ranges."""
    import torch
    import torch.nn.functional as F

    torch.manual_seed(5)
    torch.set_num_threads(1)
    rng = np.random.default_rng(5)

    def weight(*shape):
        fan_in = int(np.prod(shape[1:]))
        return rng.uniform(-1.0, 1.0, size=shape).astype(np.float32) / np.sqrt(fan_in)

    w_stem, b_stem = weight(8, 3, 3, 3), rng.normal(0, 0.2, 8).astype(np.float32)
    w_dw, b_dw = weight(8, 1, 3, 3) * 3, rng.normal(0, 0.2, 8).astype(np.float32)
    w_fc, b_fc = weight(10, 8), rng.normal(0, 0.2, 10).astype(np.float32)

    def float_graph(x):
        t = {"input": x}
        t["stem"] = F.relu(F.conv2d(x, torch.from_numpy(w_stem), torch.from_numpy(b_stem), padding=1))
        t["dw"] = F.relu(F.conv2d(t["stem"], torch.from_numpy(w_dw), torch.from_numpy(b_dw), padding=1, groups=8))
        t["sum"] = t["stem"] + t["dw"]
        t["pool"] = F.max_pool2d(t["sum"], 2)
        t["gap"] = F.adaptive_avg_pool2d(t["pool"], 1)
        t["flat"] = torch.flatten(t["gap"], 1)
        t["logits"] = F.linear(t["flat"], torch.from_numpy(w_fc), torch.from_numpy(b_fc))
        return t

    ranges = {}
    with torch.no_grad():
        for _ in range(16):
            for tensor, value in float_graph(torch.randn(1, 3, 16, 16)).items():
                low, high = ranges.get(tensor, (0.0, 0.0))  # quantize_static widens every range to 0
                ranges[tensor] = (min(low, float(value.min())), max(high, float(value.max())))
    # MaxPool and Flatten do not change values: quantize_static gives them their input's parameters.
    ranges["pool"] = ranges["sum"]
    ranges["flat"] = ranges["gap"]

    initializers, nodes = [], []

    def add(name, array):
        initializers.append(numpy_helper.from_array(array, name))

    def activation_params(tensor):
        # Asymmetric int8: scale = (max - min) / 255, zero point = round(-128 - min / scale).
        low, high = ranges[tensor]
        scale = np.float32((high - low) / 255.0)
        zero_point = np.int8(np.clip(np.round(-128 - low / scale), -128, 127))
        add(f"{tensor}_scale", np.array(scale, np.float32))
        add(f"{tensor}_zero_point", np.array(zero_point, np.int8))
        return scale

    def qdq(tensor, source, result=None):
        """QuantizeLinear then DequantizeLinear of float `source`; returns the float name
        (`result` names it where it is a graph output, as quantize_static does)."""
        result = result or f"{tensor}_DequantizeLinear_Output"
        nodes.append(helper.make_node("QuantizeLinear", [source, f"{tensor}_scale", f"{tensor}_zero_point"],
                                      [f"{tensor}_QuantizeLinear_Output"], name=f"{tensor}_QuantizeLinear"))
        nodes.append(helper.make_node("DequantizeLinear", [f"{tensor}_QuantizeLinear_Output", f"{tensor}_scale",
                                                           f"{tensor}_zero_point"],
                                      [result], name=f"{tensor}_DequantizeLinear"))
        return result

    def weight_and_bias(name, w, b, input_scale):
        """Per-channel symmetric int8 weight (axis 0) and int32 bias; returns the float names."""
        absmax = np.abs(w.reshape(w.shape[0], -1)).max(axis=1)
        w_scale = (absmax / 127.0).astype(np.float32)
        w_q = np.clip(np.round(w / w_scale.reshape([-1] + [1] * (w.ndim - 1))), -127, 127).astype(np.int8)
        b_scale = (np.float32(input_scale) * w_scale).astype(np.float32)
        b_q = np.round(b / b_scale).astype(np.int32)
        for suffix, array in [("_quantized", w_q), ("_scale", w_scale), ("_zero_point", np.zeros(w.shape[0], np.int8))]:
            add(f"{name}_W{suffix}", array)
        for suffix, array in [("_quantized", b_q), ("_scale", b_scale), ("_zero_point", np.zeros(w.shape[0], np.int32))]:
            add(f"{name}_B{suffix}", array)
        for part in ("W", "B"):
            nodes.append(helper.make_node("DequantizeLinear", [f"{name}_{part}_quantized", f"{name}_{part}_scale",
                                                               f"{name}_{part}_zero_point"],
                                          [f"{name}_{part}_DequantizeLinear_Output"],
                                          name=f"{name}_{part}_DequantizeLinear", axis=0))
        return f"{name}_W_DequantizeLinear_Output", f"{name}_B_DequantizeLinear_Output"

    ranges["output"] = ranges.pop("logits")
    scales = {tensor: activation_params(tensor) for tensor in ranges}

    x = qdq("input", "input")
    w, b = weight_and_bias("stem", w_stem, b_stem, scales["input"])
    nodes.append(helper.make_node("Conv", [x, w, b], ["stem"], name="stem_Conv", pads=[1, 1, 1, 1], kernel_shape=[3, 3]))
    stem = qdq("stem", "stem")
    w, b = weight_and_bias("dw", w_dw, b_dw, scales["stem"])
    nodes.append(helper.make_node("Conv", [stem, w, b], ["dw"], name="dw_Conv", pads=[1, 1, 1, 1], kernel_shape=[3, 3],
                                  group=8))
    dw = qdq("dw", "dw")
    nodes.append(helper.make_node("Add", [stem, dw], ["sum"], name="sum_Add"))
    total = qdq("sum", "sum")
    nodes.append(helper.make_node("MaxPool", [total], ["pool"], name="pool_MaxPool", kernel_shape=[2, 2], strides=[2, 2]))
    pool = qdq("pool", "pool")
    nodes.append(helper.make_node("GlobalAveragePool", [pool], ["gap"], name="gap_GlobalAveragePool"))
    gap = qdq("gap", "gap")
    nodes.append(helper.make_node("Flatten", [gap], ["flat"], name="flat_Flatten", axis=1))
    flat = qdq("flat", "flat")
    w, b = weight_and_bias("fc", w_fc, b_fc, scales["flat"])
    nodes.append(helper.make_node("Gemm", [flat, w, b], ["output_QuantizeLinear_Input"], name="fc_Gemm", transB=1))
    qdq("output", "output_QuantizeLinear_Input", result="output")

    graph = helper.make_graph(
        nodes, "qdq_static_cnn",
        [helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, 3, 16, 16])],
        [helper.make_tensor_value_info("output", TensorProto.FLOAT, [1, 10])],
        initializers,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)], ir_version=7,
                              producer_name="onnx.quantize", producer_version="0.1.0")
    onnx.checker.check_model(model, full_check=True)
    onnx.save(model, path)


# ----------------------------------------------------------------------------- graph inspection


def numpy_dtype(elem_type):
    """numpy dtype of an ONNX TensorProto element type (onnx 1.12 has no helper for it)."""
    return np.dtype(onnx.mapping.TENSOR_TYPE_TO_NP_TYPE[elem_type])


def constant_values(graph):
    """Values of initializers and of constant-only node chains (Constant, Identity, Cast,
    ConstantOfShape), by tensor name: how scales and zero points reach Q/DQ nodes."""
    values = {i.name: numpy_helper.to_array(i) for i in graph.initializer}
    for node in graph.node:
        if node.op_type == "Constant":
            values[node.output[0]] = numpy_helper.to_array(helper.get_attribute_value(node.attribute[0]))
        elif node.op_type == "Identity" and node.input[0] in values:
            values[node.output[0]] = values[node.input[0]]
        elif node.op_type == "Cast" and node.input[0] in values:
            to = helper.get_attribute_value(node.attribute[0])
            values[node.output[0]] = values[node.input[0]].astype(numpy_dtype(to))
        elif node.op_type == "ConstantOfShape" and node.input[0] in values:
            fill = np.zeros(1, np.float32)
            if node.attribute:
                fill = numpy_helper.to_array(helper.get_attribute_value(node.attribute[0]))
            values[node.output[0]] = np.full(values[node.input[0]].astype(np.int64), fill[0], fill.dtype)
    return values


def describe_graph(model):
    """What an importer must recognize in this graph: op types, how Q/DQ parameters arrive,
    per-tensor or per-channel, dtypes."""
    graph = model.graph
    values = constant_values(graph)
    producers = {out: node for node in graph.node for out in node.output}
    ops = collections.Counter(node.op_type for node in graph.node)
    patterns = collections.Counter()
    for node in graph.node:
        if node.op_type == "Cast":
            source = producers.get(node.input[0])
            to = TensorProto.DataType.Name(helper.get_attribute_value(node.attribute[0]))
            patterns[f"Cast to {to} after {source.op_type if source else 'graph input'}"] += 1
        if node.op_type not in ("QuantizeLinear", "DequantizeLinear"):
            continue
        scale = values.get(node.input[1])
        zero_point = values.get(node.input[2]) if len(node.input) > 2 else None
        data = values.get(node.input[0]) if node.op_type == "DequantizeLinear" else None
        granularity = "per-tensor" if scale is None or scale.size == 1 else "per-channel"
        axis = [helper.get_attribute_value(a) for a in node.attribute if a.name == "axis"]
        what = "constant" if data is not None else "activation"
        dtype = str(data.dtype) if data is not None else (str(zero_point.dtype) if zero_point is not None else "uint8")
        patterns[f"{node.op_type} of {what} {dtype}, {granularity}" + (f", axis {axis[0]}" if axis else "")] += 1
        for role, name in (("scale", node.input[1]), ("zero point", node.input[2] if len(node.input) > 2 else None)):
            source = producers.get(name) if name else None
            how = "absent" if name is None else source.op_type if source else "initializer"
            if source is not None and source.op_type in ("Identity", "Cast"):
                upstream = producers.get(source.input[0])
                how += f" of {upstream.op_type if upstream else 'initializer'}"
            patterns[f"{node.op_type} {role} from {how}"] += 1
    return {
        "opset": [f"{o.domain or 'ai.onnx'} {o.version}" for o in model.opset_import],
        "ir_version": model.ir_version,
        "producer": f"{model.producer_name} {model.producer_version}".strip(),
        "node_count": len(graph.node),
        "op_types": dict(sorted(ops.items())),
        "initializers": len(graph.initializer),
        "patterns": dict(sorted(patterns.items())),
    }


def boundary_quantization(model):
    """Scale, zero point and integer type of the graph input's QuantizeLinear and of the
    DequantizeLinear that produces the graph output (through Identity, if any)."""
    graph = model.graph
    values = constant_values(graph)
    producers = {out: node for node in graph.node for out in node.output}
    consumers = collections.defaultdict(list)
    for node in graph.node:
        for name in node.input:
            consumers[name].append(node)

    def params(node):
        zero_point = values[node.input[2]]
        integer = zero_point.dtype
        casts = [c for c in consumers[node.output[0]] if c.op_type == "Cast"] if node.op_type == "QuantizeLinear" else []
        if casts:
            integer = numpy_dtype(helper.get_attribute_value(casts[0].attribute[0]))
        return {"scale": float(values[node.input[1]]), "zero_point": int(zero_point), "quantized_dtype": str(np.dtype(integer))}

    inputs = []
    for tensor in graph.input:
        quantize = next(n for n in consumers[tensor.name] if n.op_type == "QuantizeLinear")
        inputs.append(params(quantize))
    outputs = []
    for tensor in graph.output:
        node = producers[tensor.name]
        while node.op_type == "Identity":
            node = producers[node.input[0]]
        outputs.append(params(node))
    return inputs, outputs


# ----------------------------------------------------------------------------- vectors and manifest


def tensor_entries(values, quantization):
    entries = []
    for index, (info, quant) in enumerate(zip(values, quantization)):
        shape = [d.dim_value for d in info.type.tensor_type.shape.dim]
        dtype = np.dtype(numpy_dtype(info.type.tensor_type.elem_type))
        entry = {"index": index, "name": info.name, "dtype": str(dtype), "shape": shape,
                 "bytes": int(np.prod(shape)) * dtype.itemsize}
        entry.update(quant)
        entries.append(entry)
    return entries


def run_oracle(jobs):
    """Runs ort_oracle.js on a list of jobs; returns its result lines, failing loudly."""
    with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False) as handle:
        handle.write("".join(json.dumps(job) + "\n" for job in jobs))
        job_file = handle.name
    try:
        done = subprocess.run(["node", ORACLE, job_file], capture_output=True, text=True, check=False)
    finally:
        os.unlink(job_file)
    if done.returncode != 0:
        sys.exit(f"make_models: the oracle failed (exit {done.returncode}): {done.stderr.strip()}")
    results = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
    for result in results:
        if not result["ok"]:
            sys.exit(f"make_models: the oracle failed on {result['model']}: {result['error']}")
    return results


def oracle_version():
    with open(os.path.join(REPO, "tests", "oracle", "package.json")) as handle:
        return json.load(handle)["dependencies"]["onnxruntime-web"]


def write_vectors_and_manifest(name, directory, description, source):
    model_file = f"{name}.onnx"
    model_path = os.path.join(directory, model_file)
    model = onnx.load(model_path)
    onnx.checker.check_model(model)
    graph = model.graph
    input_quant, output_quant = boundary_quantization(model)

    rng = np.random.default_rng(VECTOR_SEED)
    jobs, vectors = [], []
    for v in range(VECTOR_COUNT):
        inputs, outputs = [], []
        for k, info in enumerate(graph.input):
            shape = [d.dim_value for d in info.type.tensor_type.shape.dim]
            path = os.path.join(directory, f"vec{v}_input{k}.bin")
            rng.standard_normal(int(np.prod(shape))).astype(np.float32).tofile(path)
            inputs.append(os.path.basename(path))
        outputs = [f"vec{v}_output{k}.bin" for k in range(len(graph.output))]
        vectors.append({"index": v, "kind": "standard_normal", "inputs": inputs, "outputs": outputs})
        jobs.append({"model": model_path, "inputs": [os.path.join(directory, p) for p in inputs],
                     "outputs": [os.path.join(directory, p) for p in outputs], "report_kernels": v == 0})
    results = run_oracle(jobs)
    kernels = collections.Counter(kernel["op"] for kernel in results[0]["kernels"])

    with open(model_path, "rb") as handle:
        model_bytes = handle.read()
    description_of_graph = describe_graph(model)
    manifest = {
        "model_name": name,
        "model_file": model_file,
        "model_sha256": hashlib.sha256(model_bytes).hexdigest(),
        "model_bytes": len(model_bytes),
        "model_source": source,
        "description": description,
        "operators": description_of_graph["op_types"],
        "num_operators": description_of_graph["node_count"],
        "onnx": description_of_graph,
        "inputs": tensor_entries(graph.input, input_quant),
        "outputs": tensor_entries(graph.output, output_quant),
        "quantization_note": "scale / zero_point / quantized_dtype: the graph input's QuantizeLinear and the "
                             "DequantizeLinear that produces the graph output; the float32 outputs are exactly "
                             "(q - zero_point) * scale",
        "file_format": "raw little-endian tensor bytes, row-major (C order), exactly the tensor byte size",
        "producer": f"onnxruntime-web {oracle_version()} (WebAssembly, CPU execution provider, one thread), "
                    "graph optimization level 'all' (onnxruntime's default), via tests/oracle/ort_oracle.js",
        "onnxruntime_kernels": dict(sorted(kernels.items())),
        "input_generator": {
            "library": f"numpy {np.__version__}, numpy.random.default_rng({VECTOR_SEED}) (PCG64)",
            "draw_order": f"for v in 0..{VECTOR_COUNT - 1}: for each input k in order: one draw of prod(shape) values",
            f"vec0-{VECTOR_COUNT - 1} (standard_normal)": "rng.standard_normal(n).astype(float32)",
        },
        "vectors": vectors,
    }
    with open(os.path.join(directory, "manifest.json"), "w") as handle:
        json.dump(manifest, handle, indent=1)
        handle.write("\n")
    return manifest


# ----------------------------------------------------------------------------- main

ALL_MODELS = list(TORCH_MODELS) + ["qdq_static_cnn"]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--only", nargs="+", choices=ALL_MODELS, help="build only these models")
    parser.add_argument("--out", default=OUT_ROOT, help="output root (default tests/data/onnx)")
    args = parser.parse_args()
    if not os.path.exists(os.path.join(REPO, "tests", "oracle", "node_modules", "onnxruntime-web")):
        sys.exit("make_models: onnxruntime-web is not installed: npm ci --prefix tests/oracle")
    for name in args.only or ALL_MODELS:
        directory = os.path.join(args.out, name)
        os.makedirs(directory, exist_ok=True)
        for stale in os.listdir(directory):
            os.unlink(os.path.join(directory, stale))
        path = os.path.join(directory, f"{name}.onnx")
        script = os.path.relpath(os.path.abspath(__file__), REPO)
        if name in TORCH_MODELS:
            import torch

            build_torch_model(name, path)
            source = {"script": script, "framework": f"torch {torch.__version__}, FX post-training quantization, "
                                                       f"qnnpack, {TORCH_MODELS[name][1]} weights",
                      "export": f"torch.onnx.export(opset_version={OPSET})"}
            description = TORCH_MODELS[name][2]
        else:
            build_qdq_static_model(path)
            source = {"script": script, "framework": f"onnx {onnx.__version__} onnx.helper, written as "
                                                       "onnxruntime quantize_static writes QDQ"}
            description = "quantize_static-style QDQ CNN: Conv, depthwise Conv, Add, MaxPool, GlobalAveragePool, " \
                          "Flatten, Gemm; int8 asymmetric activations, int8 per-channel weights"
        manifest = write_vectors_and_manifest(name, directory, description, source)
        print(f"{name}: {manifest['model_bytes']} bytes, {manifest['num_operators']} nodes")
        print(json.dumps(manifest["onnx"], indent=1))
        print("  onnxruntime ran:", json.dumps(manifest["onnxruntime_kernels"]))


if __name__ == "__main__":
    main()
