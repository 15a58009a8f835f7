// Operators with weights: Conv (group 1, grouped and depthwise),
// ConvTranspose, Gemm and MatMul. ONNX's weights are re-laid out for the
// NHWC kernels at compile time: conv [M, C/g, kh, kw] -> [M, kh, kw, C/g],
// depthwise -> [1, kh, kw, M], transposed conv [C, M, kh, kw] ->
// [M, kh, kw, C], fully connected -> [units, depth]. A fully connected
// layer after a Flatten of an NHWC tensor reads it as it lies and takes its
// weights' columns in that order instead.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "compiler/import/onnx_ops.h"

namespace tinyaot::onnx_import {
namespace {

// Quantized weights as int8 (uint8 shifted by 128) with their scales.
struct Weights {
  std::vector<int8_t> values;  // ONNX's layout
  std::vector<int64_t> dims;
  std::vector<float> scales;  // one, or one per output channel
};

Weights int8_weights(const Node& node, const Operand& w, int32_t channel_axis) {
  if (!w.is_constant() || !w.quantized())
    fail(node, "weights '" + w.name +
                   "' must be a constant read through a DequantizeLinear (int8 or uint8)");
  const Constant& c = w.value->constant;
  if (c.type != kInt8 && c.type != kUint8)
    fail(node, "weights '" + w.name + "' are " + element_type_name(c.type) +
                   "; tinyaot takes int8 or uint8 weights");
  if (w.quant.per_axis() && w.quant.axis != channel_axis)
    fail(node, "weights '" + w.name + "' are quantized along axis " + std::to_string(w.quant.axis) +
                   "; tinyaot takes per-channel weights along the " + "output channels (axis " +
                   std::to_string(channel_axis) + ")");
  // The kernels take symmetric weights: an asymmetric tensor is taken as
  // its values minus the zero point (exact) where those fit int8.
  Weights out;
  out.dims = c.dims;
  out.scales = w.quant.scales;
  int64_t inner = 1;
  for (size_t d = static_cast<size_t>(std::max(w.quant.axis, 0)) + 1; d < c.dims.size(); ++d)
    inner *= c.dims[d];
  for (size_t i = 0; i < c.ints.size(); ++i) {
    const int64_t slice = w.quant.per_axis() ? (static_cast<int64_t>(i) / inner) %
                                                   c.dims[static_cast<size_t>(w.quant.axis)]
                                             : 0;
    const int32_t zp = w.quant.zero_points[static_cast<size_t>(slice)];
    const int64_t v = (c.type == kUint8 ? c.ints[i] - 128 : c.ints[i]) - zp;
    if (v < -128 || v > 127)
      fail(node, "weights '" + w.name + "' are asymmetric (zero point " +
                     std::to_string(c.type == kUint8 ? zp + 128 : zp) + ") and value " +
                     std::to_string(c.ints[i]) + " minus it leaves int8; tinyaot's kernels " +
                     "take symmetric int8 weights");
    out.values.push_back(static_cast<int8_t>(v));
  }
  return out;
}

// The bias in units of input scale x weight scale[c] (int32), as the
// kernels add it. A DequantizeLinear'd int32 bias whose scale is that
// product is taken as it is; another scale, or a float bias, is rescaled
// (round half to even, saturated).
std::vector<int32_t> int32_bias(const Node& node, const Operand& b, float input_scale,
                                const std::vector<float>& weight_scales, int64_t channels) {
  if (!b.present()) return {};
  if (!b.is_constant()) fail(node, "bias '" + b.name + "' must be a constant");
  const Constant& c = b.value->constant;
  if (c.elements() != channels)
    fail(node, "bias '" + b.name + "' has " + std::to_string(c.elements()) + " values for " +
                   std::to_string(channels) + " output channels");
  if (b.quantized() && c.type != kInt32)
    fail(node, "quantized bias '" + b.name + "' must be int32");
  if (!b.quantized() && !is_real_type(c.type))
    fail(node, "bias '" + b.name + "' must be float or a DequantizeLinear'd int32");
  std::vector<int32_t> out;
  for (size_t i = 0; i < static_cast<size_t>(channels); ++i) {
    const float product = input_scale * weight_scales[weight_scales.size() == 1 ? 0 : i];
    double real;
    if (b.quantized()) {
      const float scale = b.quant.scales[b.quant.scales.size() == 1 ? 0 : i];
      if (scale == product) {
        out.push_back(static_cast<int32_t>(c.ints[i]));
        continue;
      }
      real = static_cast<double>(c.ints[i]) * static_cast<double>(scale);
    } else {
      real = c.reals[i];
    }
    const double steps = std::nearbyint(real / static_cast<double>(product));
    if (!std::isfinite(steps)) fail(node, "bias '" + b.name + "' is not finite");
    out.push_back(static_cast<int32_t>(std::clamp(steps, -2147483648.0, 2147483647.0)));
  }
  return out;
}

std::vector<uint8_t> bytes_of(const std::vector<int8_t>& v) {
  return std::vector<uint8_t>(v.begin(), v.end());
}

std::vector<uint8_t> bytes_of(const std::vector<int32_t>& v) {
  std::vector<uint8_t> bytes(v.size() * 4);
  if (!v.empty()) std::memcpy(bytes.data(), v.data(), bytes.size());
  return bytes;
}

const Value& activation_operand(const Node& node, const Operand& x, const char* role) {
  if (!x.is_activation() || !x.quantized())
    fail(node, std::string(role) + " '" + x.name + "' must be a quantized activation");
  return *x.value;
}

std::vector<float> bias_scales(float input_scale, const std::vector<float>& weight_scales) {
  std::vector<float> out;
  for (float s : weight_scales) out.push_back(input_scale * s);
  return out;
}

int32_t add_filter(Importer& im, const std::string& name, std::vector<int32_t> shape,
                   const std::vector<int8_t>& values, const std::vector<float>& scales,
                   int32_t axis) {
  QuantParams q;
  q.scales = scales;
  q.zero_points.assign(scales.size(), 0);
  return im.add_constant_tensor(name, DType::kInt8, std::move(shape), bytes_of(values),
                                to_ir_quant(q, axis));
}

int32_t add_bias(Importer& im, const std::string& name, const std::vector<int32_t>& bias,
                 const std::vector<float>& scales) {
  QuantParams q;
  q.scales = scales;
  q.zero_points.assign(scales.size(), 0);
  return im.add_constant_tensor(name, DType::kInt32, {static_cast<int32_t>(bias.size())},
                                bytes_of(bias), to_ir_quant(q, 0));
}

}  // namespace

void emit_conv(Importer& im, const Node& node, const std::vector<Operand>& in,
               const OutputSpec& out) {
  const Value& x = activation_operand(node, in.at(0), "input");
  if (x.shape.size() != 4)
    fail(node, "convolves a rank " + std::to_string(x.shape.size()) +
                   " tensor; tinyaot runs 2-D convolutions (NCHW)");
  const Weights w = int8_weights(node, in.at(1), 0);
  if (w.dims.size() != 4) fail(node, "weights must be 4-D [M, C/group, kh, kw]");
  const int64_t group = node.attr_int("group", 1);
  const int64_t channels = x.shape[1], outputs = w.dims[0];
  if (group < 1 || channels % group != 0 || outputs % group != 0 || w.dims[1] * group != channels)
    fail(node, "group " + std::to_string(group) + " does not divide input channels " +
                   std::to_string(channels) + " and weights " + dims_text(w.dims));
  const SpatialWindow window =
      spatial_window(node, {x.shape[2], x.shape[3]}, {w.dims[2], w.dims[3]}, false);
  const int64_t kh = w.dims[2], kw = w.dims[3], depth = w.dims[1];
  const bool depthwise = group == channels && group > 1;
  std::vector<int8_t> filter(w.values.size());
  for (int64_t m = 0; m < outputs; ++m)
    for (int64_t c = 0; c < depth; ++c)
      for (int64_t y = 0; y < kh; ++y)
        for (int64_t z = 0; z < kw; ++z) {
          const size_t from = static_cast<size_t>(((m * depth + c) * kh + y) * kw + z);
          // depthwise [1, kh, kw, M]; conv [M, kh, kw, C/g]
          const size_t to = depthwise ? static_cast<size_t>((y * kw + z) * outputs + m)
                                      : static_cast<size_t>(((m * kh + y) * kw + z) * depth + c);
          filter[to] = w.values[from];
        }
  const std::string& name = out.name;
  const int32_t filter_tensor =
      depthwise ? add_filter(im, name + ":weights",
                             {1, static_cast<int32_t>(kh), static_cast<int32_t>(kw),
                              static_cast<int32_t>(outputs)},
                             filter, w.scales, 3)
                : add_filter(im, name + ":weights",
                             {static_cast<int32_t>(outputs), static_cast<int32_t>(kh),
                              static_cast<int32_t>(kw), static_cast<int32_t>(depth)},
                             filter, w.scales, 0);
  const float input_scale = in[0].quant.scale();
  std::vector<int32_t> inputs = {im.tensor_in(node, x, nhwc_layout()), filter_tensor};
  if (in.size() > 2 && in[2].present())
    inputs.push_back(add_bias(im, name + ":bias",
                              int32_bias(node, in[2], input_scale, w.scales, outputs),
                              bias_scales(input_scale, w.scales)));
  Attributes attrs = window_attributes(window);
  attrs.depth_multiplier = static_cast<int32_t>(outputs / channels);
  const std::vector<int64_t> shape = {x.shape[0], outputs, window.out[0], window.out[1]};
  const int32_t result =
      im.emit_result(node, depthwise ? OpType::kDepthwiseConv2d : OpType::kConv2d, inputs,
                     ir_shape(shape, nhwc_layout()), out, attrs);
  im.define_activation(node, out.name, result, shape, nhwc_layout(), out.quant.type);
}

void emit_conv_transpose(Importer& im, const Node& node, const std::vector<Operand>& in,
                         const OutputSpec& out) {
  const Value& x = activation_operand(node, in.at(0), "input");
  if (x.shape.size() != 4) fail(node, "tinyaot runs 2-D transposed convolutions (NCHW)");
  if (node.attr_int("group", 1) != 1) fail(node, "grouped transposed convolution is not supported");
  if (!node.attr_ints("output_shape").empty())
    fail(node, "attribute output_shape is not supported (give pads and output_padding)");
  const Weights w = int8_weights(node, in.at(1), 1);
  if (w.dims.size() != 4 || w.dims[0] != x.shape[1])
    fail(node, "weights must be 4-D [C, M, kh, kw] with C the input channels");
  const int64_t channels = w.dims[0], outputs = w.dims[1], kh = w.dims[2], kw = w.dims[3];
  std::vector<int64_t> strides = node.attr_ints("strides");
  if (strides.empty()) strides = {1, 1};
  std::vector<int64_t> dilations = node.attr_ints("dilations");
  std::vector<int64_t> pads = node.attr_ints("pads");
  if (pads.empty()) pads = {0, 0, 0, 0};
  std::vector<int64_t> output_padding = node.attr_ints("output_padding");
  if (output_padding.empty()) output_padding = {0, 0};
  const std::string auto_pad = node.attr_string("auto_pad", "NOTSET");
  if (auto_pad == "VALID") pads = {0, 0, 0, 0};
  if (auto_pad != "NOTSET" && auto_pad != "VALID")
    fail(node, "auto_pad '" + auto_pad + "' is not supported (give pads)");
  if (!dilations.empty() && (dilations != std::vector<int64_t>{1, 1}))
    fail(node, "dilated transposed convolution is not supported");
  if (strides.size() != 2 || pads.size() != 4 || output_padding.size() != 2)
    fail(node, "strides, pads and output_padding must describe 2 axes");
  std::vector<int64_t> shape = {x.shape[0], outputs, 0, 0};
  const int64_t kernel[2] = {kh, kw};
  for (size_t d = 0; d < 2; ++d) {
    if (strides[d] < 1 || strides[d] > 1024 || pads[d] < 0 || pads[d + 2] < 0 ||
        output_padding[d] < 0 || output_padding[d] >= strides[d])
      fail(node, "strides, pads or output_padding are out of range");
    shape[d + 2] =
        strides[d] * (x.shape[d + 2] - 1) + output_padding[d] + kernel[d] - pads[d] - pads[d + 2];
    if (shape[d + 2] < 1) fail(node, "the output is empty");
  }
  std::vector<int8_t> filter(w.values.size());
  for (int64_t c = 0; c < channels; ++c)
    for (int64_t m = 0; m < outputs; ++m)
      for (int64_t y = 0; y < kh; ++y)
        for (int64_t z = 0; z < kw; ++z)
          filter[static_cast<size_t>(((m * kh + y) * kw + z) * channels + c)] =
              w.values[static_cast<size_t>(((c * outputs + m) * kh + y) * kw + z)];
  const std::string& name = out.name;
  const std::vector<int32_t> out_ir = ir_shape(shape, nhwc_layout());
  std::vector<int32_t> inputs = {
      im.add_int32_constant(name + ":output_shape", out_ir),
      add_filter(im, name + ":weights",
                 {static_cast<int32_t>(outputs), static_cast<int32_t>(kh), static_cast<int32_t>(kw),
                  static_cast<int32_t>(channels)},
                 filter, w.scales, 0),
      im.tensor_in(node, x, nhwc_layout())};
  const float input_scale = in[0].quant.scale();
  if (in.size() > 2 && in[2].present())
    inputs.push_back(add_bias(im, name + ":bias",
                              int32_bias(node, in[2], input_scale, w.scales, outputs),
                              bias_scales(input_scale, w.scales)));
  Attributes attrs;
  attrs.stride_h = static_cast<int32_t>(strides[0]);
  attrs.stride_w = static_cast<int32_t>(strides[1]);
  attrs.explicit_padding = true;
  attrs.pad_top = static_cast<int32_t>(pads[0]);
  attrs.pad_left = static_cast<int32_t>(pads[1]);
  attrs.pad_bottom = static_cast<int32_t>(pads[2]);
  attrs.pad_right = static_cast<int32_t>(pads[3]);
  const int32_t result = im.emit_result(node, OpType::kTransposeConv, inputs, out_ir, out, attrs);
  im.define_activation(node, out.name, result, shape, nhwc_layout(), out.quant.type);
}

namespace {

// A fully connected layer: `a` ([rows, depth] in ONNX) times weights
// [units, depth] (int8, ONNX's column order), plus bias.
void emit_fully_connected(Importer& im, const Node& node, const Operand& a_operand,
                          std::vector<int8_t> weights, int64_t units,
                          const std::vector<float>& scales, const Operand& bias,
                          const OutputSpec& out) {
  const Value& a = activation_operand(node, a_operand, "input");
  const int64_t depth = a.shape.back();
  int32_t input;
  if (!a.flatten_source.empty()) {
    // The Flatten's input lies in its own layout: read it so, and order
    // each unit's weights as its elements lie. IR element j of a row is
    // ONNX element index_of(j) of the flattened row.
    const std::vector<int64_t>& source = a.flatten_source;
    const std::vector<int32_t> lying = ir_shape(source, a.flatten_layout);
    std::vector<int64_t> onnx_strides(source.size(), 1);
    for (size_t d = source.size(); d-- > 1;) onnx_strides[d - 1] = onnx_strides[d] * source[d];
    std::vector<int8_t> ordered(weights.size());
    for (int64_t j = 0; j < depth; ++j) {
      int64_t rest = j, onnx_index = 0;
      for (size_t k = lying.size(); k-- > 1;) {
        onnx_index += (rest % lying[k]) * onnx_strides[static_cast<size_t>(a.flatten_layout[k])];
        rest /= lying[k];
      }
      for (int64_t u = 0; u < units; ++u)
        ordered[static_cast<size_t>(u * depth + j)] =
            weights[static_cast<size_t>(u * depth + onnx_index)];
    }
    weights = std::move(ordered);
    const Tensor& t = im.graph().tensors[static_cast<size_t>(a.tensor)];
    const QuantParams quant = from_ir_quant(t.quant);
    input = im.add_tensor(t.name + ":rows", DType::kInt8,
                          {static_cast<int32_t>(a.shape[0]), static_cast<int32_t>(depth)}, &quant);
    im.emit(node, OpType::kReshape, {a.tensor}, {input});
  } else {
    input = im.tensor_in(node, a, identity_layout(a.shape.size()));
  }
  const std::string& name = out.name;
  std::vector<int32_t> inputs = {
      input,
      add_filter(im, name + ":weights", {static_cast<int32_t>(units), static_cast<int32_t>(depth)},
                 weights, scales, 0)};
  const float input_scale = a_operand.quant.scale();
  if (bias.present())
    inputs.push_back(add_bias(im, name + ":bias",
                              int32_bias(node, bias, input_scale, scales, units),
                              bias_scales(input_scale, scales)));
  std::vector<int64_t> shape = a.shape;
  shape.back() = units;
  Attributes attrs;
  attrs.keep_num_dims = shape.size() > 2;
  const int32_t result = im.emit_result(node, OpType::kFullyConnected, inputs,
                                        ir_shape(shape, identity_layout(shape.size())), out, attrs);
  im.define_activation(node, out.name, result, shape, identity_layout(shape.size()),
                       out.quant.type);
}

// Weights [K, N] (or [N, K] when `transposed`) as [N, K].
std::vector<int8_t> units_major(const Weights& w, bool transposed) {
  if (transposed) return w.values;
  const int64_t k = w.dims[0], n = w.dims[1];
  std::vector<int8_t> out(w.values.size());
  for (int64_t i = 0; i < k; ++i)
    for (int64_t j = 0; j < n; ++j)
      out[static_cast<size_t>(j * k + i)] = w.values[static_cast<size_t>(i * n + j)];
  return out;
}

}  // namespace

void emit_gemm(Importer& im, const Node& node, const std::vector<Operand>& in,
               const OutputSpec& out) {
  if (node.attr_int("transA", 0) != 0) fail(node, "transA is not supported");
  if (node.attr_float("alpha", 1.0f) != 1.0f)
    fail(node, "alpha must be 1 (fold it into the weights' scale)");
  const Operand bias = in.size() > 2 ? in[2] : Operand{};
  if (bias.present() && node.attr_float("beta", 1.0f) != 1.0f)
    fail(node, "beta must be 1 (fold it into the bias)");
  const Value& a = activation_operand(node, in.at(0), "A");
  if (a.shape.size() != 2) fail(node, "A must be 2-D");
  const bool trans_b = node.attr_int("transB", 0) != 0;
  const Weights w = int8_weights(node, in.at(1), trans_b ? 0 : 1);
  if (w.dims.size() != 2) fail(node, "B must be 2-D");
  const int64_t k = trans_b ? w.dims[1] : w.dims[0], n = trans_b ? w.dims[0] : w.dims[1];
  if (k != a.shape[1])
    fail(node, "A " + dims_text(a.shape) + " and B " + dims_text(w.dims) + " do not multiply");
  emit_fully_connected(im, node, in[0], units_major(w, trans_b), n, w.scales, bias, out);
}

void emit_matmul(Importer& im, const Node& node, const std::vector<Operand>& in,
                 const OutputSpec& out) {
  const Value& a = activation_operand(node, in.at(0), "A");
  if (a.shape.size() < 2) fail(node, "A must have at least 2 dimensions");
  if (in.at(1).is_constant()) {
    const Weights w = int8_weights(node, in[1], 1);
    if (w.dims.size() != 2) fail(node, "a constant B must be 2-D");
    if (w.dims[0] != a.shape.back())
      fail(node, "A " + dims_text(a.shape) + " and B " + dims_text(w.dims) + " do not multiply");
    emit_fully_connected(im, node, in[0], units_major(w, false), w.dims[1], w.scales, Operand{},
                         out);
    return;
  }
  const Value& b = activation_operand(node, in[1], "B");
  if (b.shape.size() < 2) fail(node, "B must have at least 2 dimensions");
  const size_t rank = std::max(a.shape.size(), b.shape.size());
  const Value lhs = im.with_rank(node, a, rank), rhs = im.with_rank(node, b, rank);
  if (lhs.shape[rank - 1] != rhs.shape[rank - 2])
    fail(node, "A " + dims_text(a.shape) + " and B " + dims_text(b.shape) + " do not multiply");
  std::vector<int64_t> shape =
      broadcast_shape(node, std::vector<int64_t>(lhs.shape.begin(), lhs.shape.end() - 2),
                      std::vector<int64_t>(rhs.shape.begin(), rhs.shape.end() - 2));
  shape.push_back(lhs.shape[rank - 2]);
  shape.push_back(rhs.shape[rank - 1]);
  const Layout plain = identity_layout(rank);
  const int32_t result = im.emit_result(
      node, OpType::kBatchMatMul, {im.tensor_in(node, lhs, plain), im.tensor_in(node, rhs, plain)},
      ir_shape(shape, plain), out);
  im.define_activation(node, out.name, result, shape, plain, out.quant.type);
}

void add_weighted_handlers(HandlerTable& table) {
  table["Conv"] = {nullptr, emit_conv};
  table["ConvTranspose"] = {nullptr, emit_conv_transpose};
  table["Gemm"] = {nullptr, emit_gemm};
  table["MatMul"] = {nullptr, emit_matmul};
}

}  // namespace tinyaot::onnx_import
