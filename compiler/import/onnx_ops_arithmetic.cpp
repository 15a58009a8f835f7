// Arithmetic on quantized reals without weights: Add, Sub, Mul (TFLite's
// integer kernels), the unary operators (one 256-entry table each, ONNX's
// function evaluated on every int8 input), Softmax, AveragePool,
// GlobalAveragePool and ReduceMean. Relu and Clip after any pending
// operator fold into its output clamp, as TFLite's fused activations do.
#include <algorithm>
#include <cmath>

#include "compiler/import/onnx_ops.h"

namespace tinyaot::onnx_import {
namespace {

const Value& activation_of_operand(const Node& node, const Operand& x) {
  if (!x.is_activation() || !x.quantized())
    fail(node, "input '" + x.name + "' must be a quantized activation");
  return *x.value;
}

// An int8 IR constant of `c` (int8 or uint8, per-tensor quant) padded to
// `rank` and laid out by `layout`.
int32_t constant_operand(Importer& im, const Node& node, const Operand& operand, size_t rank,
                         const Layout& layout) {
  const Constant& c = operand.value->constant;
  if (!operand.quantized() || (c.type != kInt8 && c.type != kUint8))
    fail(node,
         "constant '" + operand.name + "' must be int8 or uint8 read through a DequantizeLinear");
  if (operand.quant.per_axis())
    fail(node, "constant '" + operand.name + "' is quantized per axis; it must be per tensor");
  Constant padded = c;
  padded.dims.insert(padded.dims.begin(), rank - c.dims.size(), 1);
  const Constant laid = transpose_constant(padded, layout);
  std::vector<uint8_t> bytes;
  for (int64_t v : laid.ints) bytes.push_back(static_cast<uint8_t>(c.type == kUint8 ? v - 128 : v));
  std::vector<int32_t> dims;
  for (int64_t d : laid.dims) dims.push_back(static_cast<int32_t>(d));
  return im.add_constant_tensor(operand.name + ":int8", DType::kInt8, dims, std::move(bytes),
                                to_ir_quant(operand.quant, 0));
}

// Relu and Clip after a pending operator tighten its clamp; otherwise
// they are operators of their own (emit_unary).
void visit_clamp(Importer& im, const Node& node) {
  const Value& x = im.input(node, 0);
  if (x.kind != ValueKind::kPending) {
    visit_pending(im, node);
    return;
  }
  float lo = 0.0f, hi = INFINITY;
  if (node.op_type() == "Clip") {
    lo = -INFINITY;
    if (node.opset >= 11) {
      if (node.has_input(1)) lo = static_cast<float>(im.constant_input(node, 1, "min").real(0));
      if (node.has_input(2)) hi = static_cast<float>(im.constant_input(node, 2, "max").real(0));
    } else {
      lo = node.attr_float("min", -INFINITY);
      hi = node.attr_float("max", INFINITY);
    }
  }
  Value folded = x;
  folded.clamp_min = std::max(folded.clamp_min, lo);
  folded.clamp_max = std::min(folded.clamp_max, hi);
  im.define(node, node.output(), std::move(folded));
}

Attributes unary_function(Importer& im, const Node& node) {
  Attributes a;
  const std::string& op = node.op_type();
  if (op == "Relu") {
    a.unary = UnaryFunction::kRelu;
  } else if (op == "Clip") {
    a.unary = UnaryFunction::kClip;
    if (node.opset >= 11) {
      if (node.has_input(1))
        a.clip_min = static_cast<float>(im.constant_input(node, 1, "min").real(0));
      if (node.has_input(2))
        a.clip_max = static_cast<float>(im.constant_input(node, 2, "max").real(0));
    } else {
      a.clip_min = node.attr_float("min", -INFINITY);
      a.clip_max = node.attr_float("max", INFINITY);
    }
  } else if (op == "LeakyRelu" || op == "QLinearLeakyRelu") {
    a.unary = UnaryFunction::kLeakyRelu;
    a.alpha = node.attr_float("alpha", 0.01f);
  } else if (op == "Sigmoid" || op == "QLinearSigmoid") {
    a.unary = UnaryFunction::kSigmoid;
  } else if (op == "HardSigmoid") {
    a.unary = UnaryFunction::kHardSigmoid;
    a.alpha = node.attr_float("alpha", 0.2f);
    a.beta = node.attr_float("beta", 0.5f);
  } else if (op == "HardSwish") {
    a.unary = UnaryFunction::kHardSwish;
  } else if (op == "Tanh") {
    a.unary = UnaryFunction::kTanh;
  } else {
    fail(node, "internal: not a unary operator");
  }
  return a;
}

// The layout of a reduction's output: the input's, without the reduced
// axes (renumbered) unless they are kept.
Layout reduced_layout(const Layout& layout, const std::vector<bool>& reduced, bool keep) {
  if (keep) return layout;
  std::vector<int32_t> renumbered(reduced.size(), -1);
  int32_t next = 0;
  for (size_t d = 0; d < reduced.size(); ++d)
    if (!reduced[d]) renumbered[d] = next++;
  Layout out;
  for (int32_t axis : layout)
    if (!reduced[static_cast<size_t>(axis)]) out.push_back(renumbered[static_cast<size_t>(axis)]);
  return out;
}

void emit_reduce_mean(Importer& im, const Node& node, const std::vector<Operand>& in,
                      const OutputSpec& out) {
  const Value& x = activation_of_operand(node, in.at(0));
  const size_t rank = x.shape.size();
  std::vector<int64_t> axes =
      node.opset >= 18 ? (node.has_input(1) ? im.constant_input(node, 1, "axes").integers()
                                            : std::vector<int64_t>{})
                       : node.attr_ints("axes");
  const bool keep = node.attr_int("keepdims", 1) != 0;
  if (axes.empty()) {
    if (node.attr_int("noop_with_empty_axes", 0) != 0) fail(node, "reduces no axis");
    for (size_t d = 0; d < rank; ++d) axes.push_back(static_cast<int64_t>(d));
  }
  std::vector<bool> reduced(rank, false);
  for (int64_t a : axes) reduced[static_cast<size_t>(resolve_axis(node, a, rank))] = true;
  const int32_t source = im.tensor_in(node, x, x.layout);
  std::vector<int32_t> ir_axes;
  for (size_t j = 0; j < rank; ++j)
    if (reduced[static_cast<size_t>(x.layout[j])]) ir_axes.push_back(static_cast<int32_t>(j));
  std::vector<int64_t> shape;
  for (size_t d = 0; d < rank; ++d)
    if (!reduced[d] || keep) shape.push_back(reduced[d] ? 1 : x.shape[d]);
  const Layout layout = reduced_layout(x.layout, reduced, keep);
  Attributes attrs;
  attrs.keep_dims = keep;
  const int32_t result = im.emit_result(
      node, OpType::kMean, {source, im.add_int32_constant(out.name + ":axes", ir_axes)},
      ir_shape(shape, layout), out, attrs);
  im.define_activation(node, out.name, result, shape, layout, out.quant.type);
}

}  // namespace

void emit_binary(Importer& im, const Node& node, const std::vector<Operand>& in,
                 const OutputSpec& out) {
  const std::string& op = node.op_type();
  const OpType type = (op == "Add" || op == "QLinearAdd")   ? OpType::kAdd
                      : (op == "Sub")                       ? OpType::kSub
                      : (op == "Mul" || op == "QLinearMul") ? OpType::kMul
                                                            : OpType::kAdd;
  const Operand& a = in.at(0);
  const Operand& b = in.at(1);
  for (const Operand* operand : {&a, &b})
    if (!operand->present() || !operand->quantized())
      fail(node, "input '" + operand->name +
                     "' must be quantized (read through a DequantizeLinear): tinyaot runs "
                     "integer programs");
  if (!a.is_activation() && !b.is_activation()) fail(node, "has no activation input");
  const std::vector<int64_t> shape = broadcast_shape(node, a.value->shape, b.value->shape);
  const size_t rank = shape.size();
  // The layout of the first full-rank activation (NHWC after a
  // convolution), so that no transpose is needed where none was.
  Layout layout = identity_layout(rank);
  for (const Operand* operand : {&a, &b})
    if (operand->is_activation() && operand->value->shape.size() == rank &&
        operand->value->flatten_source.empty()) {
      layout = operand->value->layout;
      break;
    }
  std::vector<int32_t> inputs;
  for (const Operand* operand : {&a, &b}) {
    if (operand->is_activation()) {
      const Value full = im.with_rank(node, *operand->value, rank);
      inputs.push_back(im.tensor_in(node, full, layout));
    } else {
      inputs.push_back(constant_operand(im, node, *operand, rank, layout));
    }
  }
  const int32_t result = im.emit_result(node, type, inputs, ir_shape(shape, layout), out);
  im.define_activation(node, out.name, result, shape, layout, out.quant.type);
}

void emit_unary(Importer& im, const Node& node, const std::vector<Operand>& in,
                const OutputSpec& out) {
  const Value& x = activation_of_operand(node, in.at(0));
  const int32_t source = im.tensor_in(node, x, x.layout);
  const std::vector<int32_t> shape = im.graph().tensors[static_cast<size_t>(source)].shape;
  const Attributes function = unary_function(im, node);
  int32_t result;
  if (function.unary == UnaryFunction::kRelu && !out.clamped() &&
      in[0].quant.same_reading(out.quant)) {
    // TFLite's RELU: folds into the operator before it when it can.
    result = im.add_tensor(out.name, DType::kInt8, shape, &out.quant);
    im.emit(node, OpType::kRelu, {source}, {result});
  } else {
    result = im.emit_lookup_table(node, source, shape, out, function);
  }
  im.define_activation(node, out.name, result, x.shape, x.layout, out.quant.type);
}

void emit_softmax(Importer& im, const Node& node, const std::vector<Operand>& in,
                  const OutputSpec& out) {
  const Value& x = activation_of_operand(node, in.at(0));
  const size_t rank = x.shape.size();
  // com.microsoft's QLinearSoftmax says which Softmax it is in an attribute.
  const int64_t opset =
      node.op_type() == "QLinearSoftmax" ? node.attr_int("opset", 13) : node.opset;
  const int32_t axis = resolve_axis(node, node.attr_int("axis", opset >= 13 ? -1 : 1), rank);
  // TFLite's SOFTMAX writes scale 1/256, zero point -128 (uint8: 0); any
  // other output quantization is a requantization after it.
  QuantParams softmax_quant;
  softmax_quant.scales = {1.0f / 256.0f};
  softmax_quant.zero_points = {-128};
  softmax_quant.type = out.quant.type;
  const bool direct = out.quant.same_reading(softmax_quant);
  OutputSpec first = out;
  if (!direct) {
    first = OutputSpec{};
    first.name = out.name + ":softmax";
    first.quant = softmax_quant;
  }
  Attributes attrs;
  attrs.beta = 1.0f;
  int32_t result;
  Layout layout;
  if (opset < 13 && axis != static_cast<int32_t>(rank) - 1) {
    // Before opset 13 Softmax works on the input flattened to 2-D at `axis`.
    layout = identity_layout(rank);
    const int32_t plain = im.tensor_in(node, x, layout);
    int64_t outer = 1, inner = 1;
    for (size_t d = 0; d < rank; ++d)
      (static_cast<int32_t>(d) < axis ? outer : inner) *= x.shape[d];
    const QuantParams in_quant =
        from_ir_quant(im.graph().tensors[static_cast<size_t>(plain)].quant);
    const int32_t rows =
        im.add_tensor(first.name + ":rows", DType::kInt8,
                      {static_cast<int32_t>(outer), static_cast<int32_t>(inner)}, &in_quant);
    im.emit(node, OpType::kReshape, {plain}, {rows});
    OutputSpec row_spec = first;
    row_spec.name = first.name + ":softmax_rows";
    const int32_t soft =
        im.emit_result(node, OpType::kSoftmax, {rows},
                       {static_cast<int32_t>(outer), static_cast<int32_t>(inner)}, row_spec, attrs);
    result = im.add_tensor(first.name, DType::kInt8, ir_shape(x.shape, layout), &first.quant);
    im.emit(node, OpType::kReshape, {soft}, {result});
  } else {
    // Over one axis: lay it innermost.
    layout = x.layout;
    if (layout.back() != axis) {
      layout.erase(std::find(layout.begin(), layout.end(), axis));
      layout.push_back(axis);
    }
    result = im.emit_result(node, OpType::kSoftmax, {im.tensor_in(node, x, layout)},
                            ir_shape(x.shape, layout), first, attrs);
  }
  if (!direct)
    result = im.emit_lookup_table(node, result, ir_shape(x.shape, layout), out, Attributes{});
  im.define_activation(node, out.name, result, x.shape, layout, out.quant.type);
}

void emit_average_pool(Importer& im, const Node& node, const std::vector<Operand>& in,
                       const OutputSpec& out) {
  const Value& x = activation_of_operand(node, in.at(0));
  if (x.shape.size() != 4) fail(node, "tinyaot pools NCHW tensors (2-D)");
  const SpatialWindow w =
      spatial_window(node, {x.shape[2], x.shape[3]}, {}, node.attr_int("ceil_mode", 0) != 0);
  const bool padded = w.pad_begin[0] || w.pad_begin[1] || w.pad_end[0] || w.pad_end[1];
  if (node.attr_int("count_include_pad", 0) != 0 && padded)
    fail(node,
         "count_include_pad 1 with padding is not supported (TFLite's pooling divides by "
         "the cells inside the input)");
  if (w.dilations[0] != 1 || w.dilations[1] != 1) fail(node, "dilated pooling is not supported");
  const std::vector<int64_t> shape = {x.shape[0], x.shape[1], w.out[0], w.out[1]};
  const std::vector<int32_t> dims = ir_shape(shape, nhwc_layout());
  const int32_t source = im.tensor_in(node, x, nhwc_layout());
  // TFLite's pooling keeps the input's quantization.
  OutputSpec pooled = out;
  const bool same = in[0].quant.same_reading(out.quant);
  if (!same) {
    pooled = OutputSpec{};
    pooled.name = out.name + ":pooled";
    pooled.quant = in[0].quant;
  }
  int32_t result =
      im.emit_result(node, OpType::kAveragePool2d, {source}, dims, pooled, window_attributes(w));
  if (!same) result = im.emit_lookup_table(node, result, dims, out, Attributes{});
  im.define_activation(node, out.name, result, shape, nhwc_layout(), out.quant.type);
}

void emit_global_average_pool(Importer& im, const Node& node, const std::vector<Operand>& in,
                              const OutputSpec& out) {
  const Value& x = activation_of_operand(node, in.at(0));
  if (x.shape.size() != 4) fail(node, "tinyaot pools NCHW tensors (2-D)");
  const std::vector<int64_t> shape = {x.shape[0], x.shape[1], 1, 1};
  const std::vector<int32_t> dims = ir_shape(shape, nhwc_layout());
  const int32_t source = im.tensor_in(node, x, nhwc_layout());
  int32_t result;
  if (in[0].quant.same_reading(out.quant) && x.shape[2] <= INT32_MAX && x.shape[3] <= INT32_MAX) {
    // One window over the whole plane: TFLite's average pooling.
    Attributes attrs;
    attrs.filter_h = static_cast<int32_t>(x.shape[2]);
    attrs.filter_w = static_cast<int32_t>(x.shape[3]);
    attrs.padding = Padding::kValid;
    result = im.emit_result(node, OpType::kAveragePool2d, {source}, dims, out, attrs);
  } else {
    // Another output quantization: TFLite's MEAN, which requantizes.
    Attributes attrs;
    attrs.keep_dims = true;
    result = im.emit_result(node, OpType::kMean,
                            {source, im.add_int32_constant(out.name + ":axes", {1, 2})}, dims, out,
                            attrs);
  }
  im.define_activation(node, out.name, result, shape, nhwc_layout(), out.quant.type);
}

void add_arithmetic_handlers(HandlerTable& table) {
  for (const char* op : {"Add", "Sub", "Mul"}) table[op] = {nullptr, emit_binary};
  table["Relu"] = {visit_clamp, emit_unary};
  table["Clip"] = {visit_clamp, emit_unary};
  for (const char* op : {"LeakyRelu", "Sigmoid", "HardSigmoid", "HardSwish", "Tanh"})
    table[op] = {nullptr, emit_unary};
  table["Softmax"] = {nullptr, emit_softmax};
  table["AveragePool"] = {nullptr, emit_average_pool};
  table["GlobalAveragePool"] = {nullptr, emit_global_average_pool};
  table["ReduceMean"] = {nullptr, emit_reduce_mean};
}

}  // namespace tinyaot::onnx_import
