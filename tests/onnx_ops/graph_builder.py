"""Builds one single-operator quantized ONNX graph, in QDQ or QOperator form.

Every activation is a graph input of integer type (int8 or uint8, random full-range
values) with its own random scale and zero point; weights are int8, symmetric, per
tensor or per output channel; biases are int32 with scale = input scale x weight
scale, as PyTorch and onnxruntime's quantize_static write them. In QDQ form the graph
is  input -> DequantizeLinear -> float operator -> QuantizeLinear -> output; in
QOperator form the quantized operator reads the integer inputs directly. The builder
also keeps every value in float64 so the case knows its ideal result.

Forms:
  qdq      float32 graph input -> QuantizeLinear -> DequantizeLinear -> operator ->
           QuantizeLinear -> DequantizeLinear -> float32 output, as PyTorch exports a
           model (the float inputs are exact dequantized integers, so the first
           QuantizeLinear gives back the integers);
  qdq_int  the same with integer graph inputs and outputs (DequantizeLinear on the input,
           QuantizeLinear on the output);
  qop      integer inputs and outputs around one QOperator node.
"""

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

INTEGER_TYPES = {
    "int8": (np.int8, TensorProto.INT8, -128, 127),
    "uint8": (np.uint8, TensorProto.UINT8, 0, 255),
}
MS_DOMAIN = "com.microsoft"


class Quantized:
    """One quantized tensor: integer values, scale(s), zero point(s), and the graph
    names of the integer tensor, its scale, its zero point and (QDQ form) its float."""

    def __init__(self, name, values, scale, zero_point, axis=None):
        self.name, self.values, self.scale, self.zero_point, self.axis = name, values, scale, zero_point, axis
        self.scale_name, self.zero_point_name = f"{name}_scale", f"{name}_zero_point"
        self.float_name = None

    def dequantized(self, dtype=np.float64):
        """The real values the integers stand for: exact in float64; in float32, as
        DequantizeLinear computes them (one rounding)."""
        shape = [1] * self.values.ndim
        if self.axis is not None:
            shape[self.axis] = -1
        scale = np.asarray(self.scale, dtype).reshape(shape if np.ndim(self.scale) else [])
        zero_point = np.asarray(self.zero_point, np.int64).reshape(shape if np.ndim(self.zero_point) else [])
        return ((self.values.astype(np.int64) - zero_point).astype(dtype) * scale).astype(dtype)


class GraphBuilder:
    def __init__(self, rng, form, dtype, opset=13, ties=False):
        assert form in ("qdq", "qdq_int", "qop")
        self.rng, self.form, self.dtype, self.opset, self.ties = rng, form, dtype, opset, ties
        self.np_type, self.onnx_type, self.qmin, self.qmax = INTEGER_TYPES[dtype]
        self.nodes, self.initializers, self.inputs, self.outputs = [], [], [], []
        self.feeds = []  # values of the graph inputs, in order
        self.uses_ms_domain = False

    # ------------------------------------------------------------------ pieces

    def constant(self, name, array):
        self.initializers.append(numpy_helper.from_array(np.asarray(array), name))
        return name

    def node(self, op_type, inputs, outputs, domain=None, **attrs):
        if domain == MS_DOMAIN:
            self.uses_ms_domain = True
        self.nodes.append(helper.make_node(op_type, inputs, outputs, name=f"{outputs[0]}_{op_type}", domain=domain,
                                           **attrs))

    def _quantization_constants(self, q):
        self.constant(q.scale_name, np.asarray(q.scale, np.float32))
        self.constant(q.zero_point_name, np.asarray(q.zero_point))  # typed as the integers are

    def _dequantize(self, q):
        q.float_name = f"{q.name}_dq"
        attrs = {"axis": q.axis} if q.axis is not None else {}
        self.node("DequantizeLinear", [q.name, q.scale_name, q.zero_point_name], [q.float_name], **attrs)

    def activation_scale(self):
        return np.float32(np.exp(self.rng.uniform(np.log(0.004), np.log(0.08))))

    def activation_zero_point(self):
        return self.np_type(self.rng.integers(self.qmin + 32, self.qmax - 31))

    def activation(self, name, shape, scale=None, zero_point=None, axis=None):
        """A graph input of the integer type, random values over the whole range; per
        channel along `axis` when given."""
        values = self.rng.integers(self.qmin, self.qmax + 1, size=shape).astype(self.np_type)
        if axis is not None:
            scale = np.array([self.activation_scale() for _ in range(shape[axis])], np.float32)
            zero_point = np.array([self.activation_zero_point() for _ in range(shape[axis])], self.np_type)
        q = Quantized(name, values, self.activation_scale() if scale is None else scale,
                      self.activation_zero_point() if zero_point is None else zero_point, axis)
        self._quantization_constants(q)
        if self.form == "qdq":
            real = q.dequantized(np.float32)
            self.inputs.append(helper.make_tensor_value_info(f"{name}_float", TensorProto.FLOAT, list(shape)))
            self.feeds.append(real)
            attrs = {"axis": axis} if axis is not None else {}
            self.node("QuantizeLinear", [f"{name}_float", q.scale_name, q.zero_point_name], [name], **attrs)
        else:
            self.inputs.append(helper.make_tensor_value_info(name, self.onnx_type, list(shape)))
            self.feeds.append(values)
        if self.form != "qop":
            self._dequantize(q)
        return q

    def weight(self, name, real, axis, per_channel):
        """int8 symmetric weight (zero point 0), one scale per index of `axis` or one in all."""
        if per_channel:
            moved = np.moveaxis(real, axis, 0).reshape(real.shape[axis], -1)
            scale = (np.abs(moved).max(axis=1) / 127.0).astype(np.float32)
            shape = [1] * real.ndim
            shape[axis] = -1
            values = np.round(real / scale.reshape(shape))
            q = Quantized(name, np.clip(values, -127, 127).astype(np.int8), scale, np.zeros(len(scale), np.int8), axis)
        else:
            scale = np.float32(np.abs(real).max() / 127.0)
            q = Quantized(name, np.clip(np.round(real / scale), -127, 127).astype(np.int8), scale, np.int8(0))
        self.constant(name, q.values)
        self._quantization_constants(q)
        if self.form != "qop":
            self._dequantize(q)
        return q

    def bias(self, name, real, input_scale, weight_scale):
        """int32 bias, scale = input scale x weight scale (per channel when the weight is)."""
        scale = (np.float32(input_scale) * np.asarray(weight_scale, np.float32)).astype(np.float32)
        values = np.round(real / scale).astype(np.int32)
        per_channel = np.ndim(scale) > 0
        zero_point = np.zeros(len(values), np.int32) if per_channel else np.int32(0)
        q = Quantized(name, values, scale, zero_point, 0 if per_channel else None)
        self.constant(name, q.values)
        self._quantization_constants(q)
        if self.form != "qop":
            self._dequantize(q)
        return q

    def output(self, name, ideal, float_source=None, same_as=None, tie_scale=None):
        """The quantized graph output. Its scale and zero point come from `same_as` (operators
        that only move data keep their input's) or from the range of the ideal result, as a
        calibration would set them (a little saturation allowed). In ties mode the scale is
        instead `tie_scale` (the operator's natural accumulator scale) times the nearest power
        of two, so that the output step divides the accumulator exactly and exact halves, the
        rounding ties, are frequent."""
        if same_as is not None:
            scale, zero_point = same_as.scale, same_as.zero_point
        else:
            low, high = min(float(ideal.min()), 0.0), max(float(ideal.max()), 0.0)
            scale = np.float32(max(high - low, 1e-3) / (self.qmax - self.qmin) * self.rng.uniform(0.85, 1.05))
            if self.ties and tie_scale is not None:
                scale = np.float32(np.float32(tie_scale) * np.float32(2.0 ** np.round(np.log2(scale / tie_scale))))
            zero_point = self.np_type(np.clip(np.round(self.qmin - low / scale), self.qmin, self.qmax))
        q = Quantized(name, None, scale, zero_point)
        self._quantization_constants(q)
        if self.form == "qdq":
            self.node("QuantizeLinear", [float_source, q.scale_name, q.zero_point_name], [name])
            self.node("DequantizeLinear", [name, q.scale_name, q.zero_point_name], [f"{name}_dq"])
            self.outputs.append(helper.make_tensor_value_info(f"{name}_dq", TensorProto.FLOAT, list(ideal.shape)))
        else:
            if self.form == "qdq_int":
                self.node("QuantizeLinear", [float_source, q.scale_name, q.zero_point_name], [name])
            self.outputs.append(helper.make_tensor_value_info(name, self.onnx_type, list(ideal.shape)))
        return q

    def model(self):
        graph = helper.make_graph(self.nodes, "case", self.inputs, self.outputs, self.initializers)
        opsets = [helper.make_opsetid("", self.opset)]
        if self.uses_ms_domain:
            opsets.append(helper.make_opsetid(MS_DOMAIN, 1))
        model = helper.make_model(graph, opset_imports=opsets, ir_version=7, producer_name="tinyaot onnx_ops")
        onnx.checker.check_model(model)
        return model
