"""Deterministic single-operator QDQ and QOperator cases, one builder per operator of
issue 18 point 1 (random shapes, per-tensor and per-channel weights, int8 and uint8).

generate(seed, count_per_variant, only) yields Case objects; write_case() stores one as
<name>/model.onnx, input<k>.bin (raw little-endian) and case.json.
"""

import json
import os

import numpy as np
import onnx
from onnx import TensorProto, helper

import float_ops as F
from graph_builder import MS_DOMAIN, GraphBuilder


class Case:
    def __init__(self, name, variant, model, feeds, ideal, out, parts):
        self.name = name
        self.op, self.form, self.dtype, self.weights, self.scales = variant
        self.model, self.feeds, self.ideal, self.out, self.parts = model, feeds, ideal, out, parts


def _image(rng, channels=None):
    return [1, int(channels or rng.integers(1, 7)), int(rng.integers(3, 9)), int(rng.integers(3, 9))]


def _product_scale(x, w):
    """Scale of x * w's accumulator (the first channel's, for per-channel weights)."""
    return np.float32(np.float32(x.scale) * np.float32(np.asarray(w.scale).flat[0]))


def _real_weight(rng, shape, fan_in):
    return rng.uniform(-1.0, 1.0, size=shape) / np.sqrt(fan_in) * 2.0


# ---------------------------------------------------------------------------- operators with weights


def conv(b, rng, per_channel, depthwise=False):
    shape = _image(rng)
    c = shape[1]
    m, group = (c, c) if depthwise else (int(rng.integers(1, 9)), 1)
    k = 3 if depthwise else int(rng.choice([1, 3]))
    strides = [int(rng.integers(1, 3))] * 2
    pads = [int(rng.integers(0, 2))] * 4 if k == 3 else [0, 0, 0, 0]
    x = b.activation("x", shape)
    w = b.weight("w", _real_weight(rng, (m, c // group, k, k), c // group * k * k), 0, per_channel)
    bias = b.bias("bias", rng.normal(0.0, 0.3, m), x.scale, w.scale)
    attrs = dict(kernel_shape=[k, k], strides=strides, pads=pads, group=group)
    function = lambda o: F.conv2d(o["x"], o["w"], o["bias"], strides, pads, group)
    ideal = function(dict(x=x.dequantized(), w=w.dequantized(), bias=bias.dequantized()))
    tie = _product_scale(x, w)
    if b.form != "qop":
        b.node("Conv", [x.float_name, w.float_name, bias.float_name], ["y_float"], **attrs)
        out = b.output("y", ideal, "y_float", tie_scale=tie)
    else:
        out = b.output("y", ideal, tie_scale=tie)
        b.node("QLinearConv", [x.name, x.scale_name, x.zero_point_name, w.name, w.scale_name, w.zero_point_name,
                               out.scale_name, out.zero_point_name, bias.name], ["y"], **attrs)
    return ideal, out, dict(kind="conv", x=x, w=w, bias=bias, attrs=attrs, function=function)


def depthwise_conv(b, rng, per_channel):
    return conv(b, rng, per_channel, depthwise=True)


def conv_transpose(b, rng, per_channel):
    shape = _image(rng, rng.integers(1, 5))
    m, k, stride = int(rng.integers(1, 5)), int(rng.choice([2, 3])), int(rng.integers(1, 3))
    pads = [int(rng.integers(0, 2))] * 4 if k == 3 else [0, 0, 0, 0]
    x = b.activation("x", shape)
    w = b.weight("w", _real_weight(rng, (shape[1], m, k, k), shape[1] * k * k), 1, per_channel)
    bias = b.bias("bias", rng.normal(0.0, 0.3, m), x.scale, w.scale)
    attrs = dict(kernel_shape=[k, k], strides=[stride, stride], pads=pads)
    function = lambda o: F.conv_transpose2d(o["x"], o["w"], o["bias"], [stride, stride], pads)
    ideal = function(dict(x=x.dequantized(), w=w.dequantized(), bias=bias.dequantized()))
    b.node("ConvTranspose", [x.float_name, w.float_name, bias.float_name], ["y_float"], **attrs)
    return ideal, b.output("y", ideal, "y_float", tie_scale=_product_scale(x, w)), dict(kind="conv_transpose", x=x, w=w, bias=bias, attrs=attrs,
                                                             function=function)


def gemm(b, rng, per_channel):
    rows, k, n = int(rng.integers(1, 4)), int(rng.integers(4, 33)), int(rng.integers(2, 17))
    a = b.activation("a", [rows, k])
    w = b.weight("w", _real_weight(rng, (n, k), k), 0, per_channel)
    bias = b.bias("bias", rng.normal(0.0, 0.3, n), a.scale, w.scale)
    function = lambda o: o["x"] @ o["w"].T + o["bias"]
    ideal = function(dict(x=a.dequantized(), w=w.dequantized(), bias=bias.dequantized()))
    if b.form != "qop":
        b.node("Gemm", [a.float_name, w.float_name, bias.float_name], ["y_float"], transB=1)
        out = b.output("y", ideal, "y_float", tie_scale=_product_scale(a, w))
    else:
        out = b.output("y", ideal, tie_scale=_product_scale(a, w))
        b.node("QGemm", [a.name, a.scale_name, a.zero_point_name, w.name, w.scale_name, w.zero_point_name, bias.name,
                         out.scale_name, out.zero_point_name], ["y"], domain=MS_DOMAIN, transB=1)
    return ideal, out, dict(kind="gemm", x=a, w=w, bias=bias, attrs={}, function=function)


def matmul_constant(b, rng, per_channel):
    m, k, n = int(rng.integers(1, 5)), int(rng.integers(4, 33)), int(rng.integers(2, 17))
    a = b.activation("a", [1, m, k])
    w = b.weight("w", _real_weight(rng, (k, n), k), 1, per_channel)
    ideal = a.dequantized() @ w.dequantized()
    return _matmul_node(b, a, w, ideal)


def matmul_activation(b, rng, per_channel):
    m, k, n = int(rng.integers(1, 5)), int(rng.integers(4, 33)), int(rng.integers(2, 17))
    a = b.activation("a", [1, m, k])
    rhs = b.activation("b", [1, k, n])
    ideal = a.dequantized() @ rhs.dequantized()
    return _matmul_node(b, a, rhs, ideal)


def _matmul_node(b, a, rhs, ideal):
    if b.form != "qop":
        b.node("MatMul", [a.float_name, rhs.float_name], ["y_float"])
        out = b.output("y", ideal, "y_float", tie_scale=_product_scale(a, rhs))
    else:
        out = b.output("y", ideal, tie_scale=_product_scale(a, rhs))
        b.node("QLinearMatMul", [a.name, a.scale_name, a.zero_point_name, rhs.name, rhs.scale_name,
                                 rhs.zero_point_name, out.scale_name, out.zero_point_name], ["y"])
    return ideal, out, dict(kind="matmul", x=a, w=rhs, bias=None, attrs={}, function=lambda o: o["x"] @ o["w"])


# ---------------------------------------------------------------------------- elementwise


def _binary(b, rng, op_type, function, qop_type):
    shape = _image(rng)
    rhs_shape = shape if rng.random() < 0.7 else [1, shape[1], 1, 1]  # sometimes broadcast per channel
    a = b.activation("a", shape)
    # In ties mode b's step is half a's, so sums and products land on exact halves.
    rhs = b.activation("b", rhs_shape, scale=np.float32(a.scale * 0.5) if b.ties else None)
    ideal = function(a.dequantized(), rhs.dequantized())
    tie = np.float32(a.scale * rhs.scale) if op_type == "Mul" else np.float32(rhs.scale)
    if b.form != "qop":
        b.node(op_type, [a.float_name, rhs.float_name], ["y_float"])
        out = b.output("y", ideal, "y_float", tie_scale=tie)
    else:
        out = b.output("y", ideal, tie_scale=tie)
        b.node(qop_type, [a.name, a.scale_name, a.zero_point_name, rhs.name, rhs.scale_name, rhs.zero_point_name,
                          out.scale_name, out.zero_point_name], ["y"], domain=MS_DOMAIN)
    return ideal, out, dict(kind=op_type.lower(), x=a, w=rhs, bias=None, attrs={},
                            function=lambda o: function(o["x"], o["w"]))


def add(b, rng, _):
    return _binary(b, rng, "Add", np.add, "QLinearAdd")


def sub(b, rng, _):
    return _binary(b, rng, "Sub", np.subtract, None)


def mul(b, rng, _):
    return _binary(b, rng, "Mul", np.multiply, "QLinearMul")


def _unary(b, rng, op_type, function, attrs=None, qop_type=None, shape=None, extra_inputs=()):
    x = b.activation("x", shape or _image(rng))
    attrs = attrs or {}
    ideal = function(x.dequantized())
    # Softmax's natural output step is 1/256 (what calibrated models use); the others' is the input's.
    tie = np.float32(1.0 / 256.0) if op_type == "Softmax" else x.scale
    if b.form != "qop":
        b.node(op_type, [x.float_name, *extra_inputs], ["y_float"], **attrs)
        out = b.output("y", ideal, "y_float", tie_scale=tie)
    else:
        out = b.output("y", ideal, tie_scale=tie)
        b.node(qop_type, [x.name, x.scale_name, x.zero_point_name, out.scale_name, out.zero_point_name], ["y"],
               domain=MS_DOMAIN, **attrs)
    return ideal, out, dict(kind=op_type.lower(), x=x, w=None, bias=None, attrs=attrs,
                            function=lambda o: function(o["x"]))


def relu(b, rng, _):
    return _unary(b, rng, "Relu", lambda v: np.maximum(v, 0.0))


def clip(b, rng, _):
    low, high = (0.0, 6.0) if rng.random() < 0.5 else (float(rng.uniform(-2, 0)), float(rng.uniform(0.5, 3)))
    bounds = [b.constant("clip_min", np.float32(low)), b.constant("clip_max", np.float32(high))]
    return _unary(b, rng, "Clip", lambda v: np.clip(v, np.float32(low), np.float32(high)), extra_inputs=bounds)


def leaky_relu(b, rng, _):
    alpha = float(np.float32(rng.uniform(0.01, 0.3)))
    return _unary(b, rng, "LeakyRelu", lambda v: F.leaky_relu(v, alpha), {"alpha": alpha}, "QLinearLeakyRelu")


def sigmoid(b, rng, _):
    return _unary(b, rng, "Sigmoid", F.sigmoid, qop_type="QLinearSigmoid")


def hard_sigmoid(b, rng, _):
    return _unary(b, rng, "HardSigmoid", lambda v: F.hard_sigmoid(v, np.float32(0.2), 0.5))


def hard_swish(b, rng, _):
    return _unary(b, rng, "HardSwish", F.hard_swish)


def tanh(b, rng, _):
    return _unary(b, rng, "Tanh", np.tanh)


def softmax(b, rng, _):
    shape = [1, int(rng.integers(2, 33))] if rng.random() < 0.5 else _image(rng)
    # QLinearSoftmax's "opset" attribute says which Softmax semantics it follows (13: one axis).
    attrs = {"axis": -1} if b.form != "qop" else {"axis": -1, "opset": 13}
    return _unary(b, rng, "Softmax", lambda v: F.softmax(v, -1), attrs, "QLinearSoftmax", shape=shape)


# ---------------------------------------------------------------------------- pooling and reduction


def average_pool(b, rng, _):
    k, stride = int(rng.integers(2, 4)), int(rng.integers(1, 3))
    shape = _image(rng)
    shape[2], shape[3] = max(shape[2], k), max(shape[3], k)
    attrs = dict(kernel_shape=[k, k], strides=[stride, stride])
    return _unary(b, rng, "AveragePool", lambda v: F.average_pool(v, [k, k], [stride, stride], [0] * 4, False), attrs,
                  "QLinearAveragePool", shape=shape)


def global_average_pool(b, rng, _):
    return _unary(b, rng, "GlobalAveragePool", lambda v: v.mean(axis=(2, 3), keepdims=True),
                  qop_type="QLinearGlobalAveragePool")


def reduce_mean(b, rng, _):
    return _unary(b, rng, "ReduceMean", lambda v: v.mean(axis=(2, 3), keepdims=True), {"axes": [2, 3], "keepdims": 1})


def concat(b, rng, _):
    shape = _image(rng)
    parts = []
    for i in range(int(rng.integers(2, 4))):
        part_shape = list(shape)
        part_shape[1] = int(rng.integers(1, 5))
        parts.append(b.activation(f"x{i}", part_shape))
    ideal = np.concatenate([p.dequantized() for p in parts], axis=1)
    if b.form != "qop":
        b.node("Concat", [p.float_name for p in parts], ["y_float"], axis=1)
        out = b.output("y", ideal, "y_float")
    else:
        out = b.output("y", ideal)
        inputs = [out.scale_name, out.zero_point_name]
        for p in parts:
            inputs += [p.name, p.scale_name, p.zero_point_name]
        b.node("QLinearConcat", inputs, ["y"], domain=MS_DOMAIN, axis=1)
    return ideal, out, dict(kind="concat", x=parts[0], parts=parts, w=None, bias=None, attrs={}, function=None)


# ---------------------------------------------------------------------------- data movement


def _move(b, rng, op_type, function, attrs=None, extra=(), shape=None, pad_with_zero_point=False):
    """Operators that only move values keep their input's scale and zero point (as PyTorch
    and quantize_static write them); in QOperator form they run on the integers."""
    x = b.activation("x", shape or _image(rng))
    if pad_with_zero_point and b.form == "qop":
        extra = list(extra) + [("constant_value", np.asarray(x.zero_point))]
    names = [b.constant(name, array) for name, array in extra]
    ideal = function(x.dequantized())
    attrs = attrs or {}
    if b.form != "qop":
        b.node(op_type, [x.float_name, *names], ["y_float"], **attrs)
        out = b.output("y", ideal, "y_float", same_as=x)
    else:
        out = b.output("y", ideal, same_as=x)
        b.node(op_type, [x.name, *names], ["y"], **attrs)
    return ideal, out, dict(kind="move", x=x, w=None, bias=None, attrs=attrs, function=lambda o: function(o["x"]))


def max_pool(b, rng, _):
    k, stride = int(rng.integers(2, 4)), int(rng.integers(1, 3))
    pads = [int(rng.integers(0, 2))] * 4 if k == 3 else [0] * 4
    attrs = dict(kernel_shape=[k, k], strides=[stride, stride], pads=pads)
    shape = _image(rng)
    shape[2], shape[3] = max(shape[2], k), max(shape[3], k)
    return _move(b, rng, "MaxPool", lambda v: F.max_pool(v, [k, k], [stride, stride], pads), attrs, shape=shape)


def reshape(b, rng, _):
    return _move(b, rng, "Reshape", lambda v: v.reshape(1, -1), extra=[("shape", np.array([1, -1], np.int64))])


def flatten(b, rng, _):
    return _move(b, rng, "Flatten", lambda v: v.reshape(1, -1), {"axis": 1})


def transpose(b, rng, _):
    return _move(b, rng, "Transpose", lambda v: v.transpose(0, 2, 3, 1), {"perm": [0, 2, 3, 1]})


def squeeze(b, rng, _):
    shape = _image(rng)
    shape[2] = 1
    return _move(b, rng, "Squeeze", lambda v: v.squeeze(2), extra=[("axes", np.array([2], np.int64))], shape=shape)


def unsqueeze(b, rng, _):
    return _move(b, rng, "Unsqueeze", lambda v: v[:, :, None], extra=[("axes", np.array([2], np.int64))])


def pad(b, rng, _):
    """Pads with real 0: in QOperator form on the integers, constant_value is the zero point."""
    pads = [0, 0] + [int(v) for v in rng.integers(0, 3, 2)] + [0, 0] + [int(v) for v in rng.integers(0, 3, 2)]
    extra = [("pads", np.array(pads, np.int64))]
    return _move(b, rng, "Pad", lambda v: F.pad_constant(v, pads), {"mode": "constant"}, extra=extra,
                 pad_with_zero_point=True)


def slice_(b, rng, _):
    shape = _image(rng)
    starts, ends, axes, steps = [1, 0], [shape[2], shape[3]], [2, 3], [1, 2]
    extra = [(name, np.array(values, np.int64)) for name, values in
             (("starts", starts), ("ends", ends), ("axes", axes), ("steps", steps))]
    return _move(b, rng, "Slice", lambda v: F.slice_(v, starts, ends, axes, steps), extra=extra, shape=shape)


def resize_nearest(b, rng, _):
    attrs = dict(mode="nearest", coordinate_transformation_mode="asymmetric", nearest_mode="floor")
    extra = [("roi", np.zeros(0, np.float32)), ("scales", np.array([1, 1, 2, 2], np.float32))]
    return _move(b, rng, "Resize", lambda v: F.resize_nearest(v, 2), attrs, extra=extra)


# ---------------------------------------------------------------------------- QuantizeLinear / DequantizeLinear


def quantize_linear(b, rng, per_channel):
    """float32 graph input -> QuantizeLinear -> integers (QOperator form only)."""
    shape = _image(rng)
    scale = np.array([b.activation_scale() for _ in range(shape[1])], np.float32) if per_channel else b.activation_scale()
    zero_point = (np.array([b.activation_zero_point() for _ in range(shape[1])], b.np_type) if per_channel
                  else b.activation_zero_point())
    spread = float(np.max(scale)) * 100.0
    values = (rng.standard_normal(shape) * spread).astype(np.float32)
    # Exact ties (k + 0.5) * scale show how onnxruntime rounds.
    ties = (rng.integers(-100, 100, size=shape) + 0.5).astype(np.float32)
    tie_scale = scale.reshape(1, -1, 1, 1) if per_channel else scale
    values = np.where(rng.random(shape) < 0.25, (ties * tie_scale).astype(np.float32), values)
    b.inputs.append(helper.make_tensor_value_info("x", TensorProto.FLOAT, shape))
    b.feeds.append(values)
    b.constant("y_scale", np.asarray(scale, np.float32))
    b.constant("y_zero_point", np.asarray(zero_point))
    attrs = {"axis": 1} if per_channel else {}
    b.node("QuantizeLinear", ["x", "y_scale", "y_zero_point"], ["y"], **attrs)
    b.outputs.append(helper.make_tensor_value_info("y", b.onnx_type, shape))
    return values.astype(np.float64), None, dict(kind="quantize", scale=scale, zero_point=zero_point, attrs=attrs)


def dequantize_linear(b, rng, per_channel):
    """integers -> DequantizeLinear -> float32 graph output (QOperator form only)."""
    x = b.activation("x", _image(rng), axis=1 if per_channel else None)
    attrs = {"axis": 1} if per_channel else {}
    b.node("DequantizeLinear", [x.name, x.scale_name, x.zero_point_name], ["y"], **attrs)
    b.outputs.append(helper.make_tensor_value_info("y", TensorProto.FLOAT, list(x.values.shape)))
    return x.dequantized(), None, dict(kind="dequantize", x=x, attrs=attrs)


# ---------------------------------------------------------------------------- the table

# op name -> (builder, has weights, forms, opset)
OPERATORS = {
    "Conv": (conv, True, ("qdq", "qdq_int", "qop"), 13),
    "DepthwiseConv": (depthwise_conv, True, ("qdq", "qdq_int", "qop"), 13),
    "ConvTranspose": (conv_transpose, True, ("qdq", "qdq_int"), 13),
    "Gemm": (gemm, True, ("qdq", "qdq_int", "qop"), 13),
    "MatMulConstant": (matmul_constant, True, ("qdq", "qdq_int", "qop"), 13),
    "MatMulActivation": (matmul_activation, False, ("qdq", "qdq_int", "qop"), 13),
    "Add": (add, False, ("qdq", "qdq_int", "qop"), 13),
    "Sub": (sub, False, ("qdq", "qdq_int"), 13),
    "Mul": (mul, False, ("qdq", "qdq_int", "qop"), 13),
    "Relu": (relu, False, ("qdq", "qdq_int"), 13),
    "Clip": (clip, False, ("qdq", "qdq_int"), 13),
    "LeakyRelu": (leaky_relu, False, ("qdq", "qdq_int", "qop"), 13),
    "Sigmoid": (sigmoid, False, ("qdq", "qdq_int", "qop"), 13),
    "HardSigmoid": (hard_sigmoid, False, ("qdq", "qdq_int"), 13),
    "HardSwish": (hard_swish, False, ("qdq", "qdq_int"), 14),
    "Tanh": (tanh, False, ("qdq", "qdq_int"), 13),
    "Softmax": (softmax, False, ("qdq", "qdq_int", "qop"), 13),
    "MaxPool": (max_pool, False, ("qdq", "qdq_int", "qop"), 13),
    "AveragePool": (average_pool, False, ("qdq", "qdq_int", "qop"), 13),
    "GlobalAveragePool": (global_average_pool, False, ("qdq", "qdq_int", "qop"), 13),
    "ReduceMean": (reduce_mean, False, ("qdq", "qdq_int"), 13),
    "Concat": (concat, False, ("qdq", "qdq_int", "qop"), 13),
    "Reshape": (reshape, False, ("qdq", "qdq_int", "qop"), 13),
    "Flatten": (flatten, False, ("qdq", "qdq_int", "qop"), 13),
    "Transpose": (transpose, False, ("qdq", "qdq_int", "qop"), 13),
    "Squeeze": (squeeze, False, ("qdq", "qdq_int", "qop"), 13),
    "Unsqueeze": (unsqueeze, False, ("qdq", "qdq_int", "qop"), 13),
    "Pad": (pad, False, ("qdq", "qdq_int", "qop"), 13),
    "Slice": (slice_, False, ("qdq", "qdq_int", "qop"), 13),
    "Resize": (resize_nearest, False, ("qdq", "qdq_int", "qop"), 13),
    "QuantizeLinear": (quantize_linear, True, ("qop",), 13),
    "DequantizeLinear": (dequantize_linear, True, ("qop",), 13),
}


def variants(only=None):
    """(op, form, dtype, weights, scales) for every combination the table allows; scales is
    "random" (calibration-like output scales) or "ties" (see GraphBuilder.output)."""
    for op, (_, has_weights, forms, _) in OPERATORS.items():
        if only and op not in only:
            continue
        for form in forms:
            for dtype in ("int8", "uint8"):
                for weights in (("per_tensor", "per_channel") if has_weights else (None,)):
                    for scales in ("random", "ties"):
                        yield op, form, dtype, weights, scales


def build(op, form, dtype, weights, scales, seed):
    builder_fn, _, _, opset = OPERATORS[op]
    rng = np.random.default_rng(seed)
    builder = GraphBuilder(rng, form, dtype, opset, ties=scales == "ties")
    ideal, out, parts = builder_fn(builder, rng, weights == "per_channel")
    name = "-".join([op, form, dtype] + ([weights] if weights else []) + [scales, str(seed)])
    return Case(name, (op, form, dtype, weights, scales), builder.model(), builder.feeds, ideal, out, parts)


def generate(seed, count, only=None):
    """`count` cases per variant; case i of variant v uses seed `seed + 1000 * v + i`."""
    for v, (op, form, dtype, weights, scales) in enumerate(variants(only)):
        for i in range(count):
            yield build(op, form, dtype, weights, scales, seed + 1000 * v + i)


def write_case(case, root):
    directory = os.path.join(root, case.name)
    os.makedirs(directory, exist_ok=True)
    onnx.save(case.model, os.path.join(directory, "model.onnx"))
    inputs = []
    for k, feed in enumerate(case.feeds):
        path = os.path.join(directory, f"input{k}.bin")
        np.ascontiguousarray(feed).tofile(path)
        inputs.append(path)
    meta = {"op": case.op, "form": case.form, "dtype": case.dtype, "weights": case.weights, "scales": case.scales,
            "output_shape": list(case.ideal.shape)}
    if case.out is not None:
        meta.update(output_scale=float(case.out.scale), output_zero_point=int(case.out.zero_point))
    with open(os.path.join(directory, "case.json"), "w") as handle:
        json.dump(meta, handle, indent=1)
    return directory, inputs
