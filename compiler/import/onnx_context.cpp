#include "compiler/import/onnx_context.h"

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "compiler/lower/lowering.h"

namespace tinyaot::onnx_import {
namespace {

std::string layout_text(const Layout& layout) {
  std::string text;
  for (int32_t axis : layout) text += std::to_string(axis);
  return text;
}

void check_scale(const Node& node, float scale) {
  if (!(scale > 0.0f) || !std::isnormal(scale))
    fail(node, "scale " + real_text(scale) +
                   " is not a positive normal float (scales must be at least 1.2e-38)");
}

}  // namespace

// ---- Node ----

bool Node::has_input(size_t i) const {
  return i < num_inputs() && !proto->input(static_cast<int>(i)).empty();
}

const std::string& Node::output(size_t i) const { return proto->output(static_cast<int>(i)); }

const onnx::AttributeProto* Node::attribute(const std::string& name) const {
  for (const onnx::AttributeProto& a : proto->attribute())
    if (a.name() == name) return &a;
  return nullptr;
}

int64_t Node::attr_int(const std::string& name, int64_t fallback) const {
  const onnx::AttributeProto* a = attribute(name);
  if (a == nullptr) return fallback;
  if (a->type() != onnx::AttributeProto_AttributeType_INT)
    fail(*this, "attribute '" + name + "' must be an integer");
  return a->i();
}

float Node::attr_float(const std::string& name, float fallback) const {
  const onnx::AttributeProto* a = attribute(name);
  if (a == nullptr) return fallback;
  if (a->type() != onnx::AttributeProto_AttributeType_FLOAT)
    fail(*this, "attribute '" + name + "' must be a float");
  return a->f();
}

std::string Node::attr_string(const std::string& name, const std::string& fallback) const {
  const onnx::AttributeProto* a = attribute(name);
  if (a == nullptr) return fallback;
  if (a->type() != onnx::AttributeProto_AttributeType_STRING)
    fail(*this, "attribute '" + name + "' must be a string");
  return a->s();
}

std::vector<int64_t> Node::attr_ints(const std::string& name) const {
  const onnx::AttributeProto* a = attribute(name);
  if (a == nullptr) return {};
  if (a->type() != onnx::AttributeProto_AttributeType_INTS)
    fail(*this, "attribute '" + name + "' must be a list of integers");
  return {a->ints().begin(), a->ints().end()};
}

void fail(const Node& node, const std::string& what) {
  throw CompileError(node.where + ": " + what);
}

std::string dims_text(const std::vector<int64_t>& dims) {
  std::string text = "[";
  for (size_t i = 0; i < dims.size(); ++i)
    text += (i ? ", " : "") + (dims[i] < 0 ? std::string("?") : std::to_string(dims[i]));
  return text + "]";
}

std::string real_text(double value) {
  char text[32];
  std::snprintf(text, sizeof(text), "%g", value);
  return text;
}

// ---- layouts ----

Layout identity_layout(size_t rank) {
  Layout layout(rank);
  for (size_t i = 0; i < rank; ++i) layout[i] = static_cast<int32_t>(i);
  return layout;
}

Layout nhwc_layout() { return {0, 2, 3, 1}; }

bool is_identity(const Layout& layout) { return layout == identity_layout(layout.size()); }

std::vector<int32_t> ir_shape(const std::vector<int64_t>& shape, const Layout& layout) {
  std::vector<int32_t> out;
  for (int32_t axis : layout) out.push_back(static_cast<int32_t>(shape[static_cast<size_t>(axis)]));
  return out;
}

bool same_memory_order(const std::vector<int64_t>& shape, const Layout& a, const Layout& b) {
  auto non_unit = [&](const Layout& layout) {
    Layout out;
    for (int32_t axis : layout)
      if (shape[static_cast<size_t>(axis)] != 1) out.push_back(axis);
    return out;
  };
  return non_unit(a) == non_unit(b);
}

// ---- quantization ----

Quantization to_ir_quant(const QuantParams& quant, int32_t ir_axis) {
  Quantization q;
  q.scales = quant.scales;
  q.zero_points.assign(quant.zero_points.begin(), quant.zero_points.end());
  q.axis = ir_axis;
  return q;
}

QuantParams from_ir_quant(const Quantization& quant) {
  QuantParams q;
  q.scales = quant.scales;
  for (int64_t zp : quant.zero_points) q.zero_points.push_back(static_cast<int32_t>(zp));
  if (q.zero_points.empty()) q.zero_points.assign(q.scales.size(), 0);
  return q;
}

// ---- values ----

const Value& Importer::value(const std::string& name) const {
  const auto found = values_.find(name);
  if (found == values_.end()) throw CompileError("internal: value '" + name + "' is undefined");
  return found->second;
}

Value& Importer::mutable_value(const std::string& name) {
  return const_cast<Value&>(static_cast<const Importer*>(this)->value(name));
}

const Value& Importer::input(const Node& node, size_t i) const {
  if (!node.has_input(i)) fail(node, "input " + std::to_string(i) + " is missing");
  const std::string& name = node.proto->input(static_cast<int>(i));
  const auto found = values_.find(name);
  if (found == values_.end())
    fail(node, "input '" + name +
                   "' is neither a graph input, an initializer nor the output of "
                   "an earlier node");
  return found->second;
}

void Importer::define(const Node& node, const std::string& name, Value value) {
  if (name.empty()) return;  // an output nobody may read
  if (values_.count(name)) fail(node, "writes '" + name + "', which already holds a value");
  const auto expected = expected_shapes.find(name);
  if (expected != expected_shapes.end() && value.kind != ValueKind::kPending) {
    bool same = expected->second.size() == value.shape.size();
    for (size_t i = 0; same && i < value.shape.size(); ++i)
      same = expected->second[i] < 0 || expected->second[i] == value.shape[i];
    if (!same)
      fail(node, "output '" + name + "' has shape " + dims_text(value.shape) +
                     " but the model (or ONNX's shape inference) says " +
                     dims_text(expected->second));
  }
  values_[name] = std::move(value);
}

const Constant& Importer::constant_input(const Node& node, size_t i, const char* role) const {
  const Value& v = input(node, i);
  if (v.kind != ValueKind::kConstant)
    fail(node, std::string(role) + " '" + node.proto->input(static_cast<int>(i)) +
                   "' must be a constant (an initializer or computed from them)");
  return v.constant;
}

QuantParams Importer::quant_params(const Node& node, size_t scale_input, size_t zero_point_input,
                                   int64_t axis, size_t rank,
                                   int32_t type_without_zero_point) const {
  const Constant& scale = constant_input(node, scale_input, "scale");
  if (scale.type != kFloat)
    fail(node, std::string("scale must be float, not ") + element_type_name(scale.type));
  QuantParams q;
  const int64_t count = scale.elements();
  if (count < 1 || scale.dims.size() > 1) fail(node, "scale must be a scalar or a 1-D tensor");
  for (size_t i = 0; i < static_cast<size_t>(count); ++i) {
    q.scales.push_back(static_cast<float>(scale.reals[i]));
    check_scale(node, q.scales.back());
  }
  // A 1-D scale of one element is per tensor (as onnxruntime reads it).
  if (count > 1) {
    const int64_t resolved = axis < 0 ? axis + static_cast<int64_t>(rank) : axis;
    if (resolved < 0 || resolved >= static_cast<int64_t>(rank))
      fail(node, "axis " + std::to_string(axis) + " is outside a rank " + std::to_string(rank) +
                     " tensor");
    q.axis = static_cast<int32_t>(resolved);
  }
  q.type = type_without_zero_point;
  if (node.has_input(zero_point_input)) {
    const Constant& zp = constant_input(node, zero_point_input, "zero point");
    if (zp.type != kInt8 && zp.type != kUint8 && zp.type != kInt32)
      fail(node, std::string("zero point must be int8, uint8 or int32, not ") +
                     element_type_name(zp.type));
    if (zp.elements() != count)
      fail(node, "has " + std::to_string(count) + " scales but " + std::to_string(zp.elements()) +
                     " zero points");
    q.type = zp.type;
    for (int64_t v : zp.ints) {
      if (zp.type == kInt32 && v != 0)
        fail(node, "an int32 tensor's zero point must be 0, not " + std::to_string(v));
      q.zero_points.push_back(static_cast<int32_t>(zp.type == kUint8 ? v - 128 : v));
    }
  } else {
    q.zero_points.assign(q.scales.size(), q.type == kUint8 ? -128 : 0);
  }
  return q;
}

Operand Importer::real_operand(const Node& node, size_t i) const {
  if (!node.has_input(i)) return {};
  const Value& v = input(node, i);
  const std::string& name = node.proto->input(static_cast<int>(i));
  switch (v.kind) {
    case ValueKind::kDequantized:
      return {&value(v.source), v.quant, v.source};
    case ValueKind::kConstant:
      return {&v, {}, name};
    case ValueKind::kActivation:
      fail(node, "reads the integers of '" + name +
                     "' as reals; a DequantizeLinear must come between them");
    case ValueKind::kPending:
      fail(node, "reads '" + name + "', the float result of " +
                     node_where[static_cast<size_t>(v.node)] +
                     ", which no QuantizeLinear quantizes: tinyaot runs integer programs, so "
                     "every operator must sit in a quantized region (DequantizeLinear -> "
                     "operator -> QuantizeLinear)");
    case ValueKind::kFloatInput:
      fail(node, "reads the float32 graph input '" + name +
                     "' directly: tinyaot runs integer programs, so the input must be quantized "
                     "first (QuantizeLinear)");
  }
  return {};
}

Operand Importer::quantized_operand(const Node& node, size_t i, const QuantParams& quant) {
  const Value& v = input(node, i);
  const std::string& name = node.proto->input(static_cast<int>(i));
  if (v.kind == ValueKind::kConstant) {
    if (!is_integer_type(v.constant.type) || v.constant.type == kInt64)
      fail(node, "quantized constant '" + name + "' must be int8, uint8 or int32");
    return {&v, quant, name};
  }
  if (v.kind != ValueKind::kActivation)
    fail(node, "input '" + name + "' must be a quantized tensor (int8 or uint8)");
  if (quant.type != kInt8 && quant.type != kUint8)
    fail(node, "activation '" + name + "' must be int8 or uint8");
  if (quant.per_axis())
    fail(node,
         "activation '" + name + "' is quantized per axis; tinyaot takes per-tensor activations");
  Tensor& t = graph_.tensors[static_cast<size_t>(v.tensor)];
  if (v.quant_unset) {
    t.quant = to_ir_quant(quant, 0);
    mutable_value(name).quant_unset = false;
  } else if (!from_ir_quant(t.quant).same_reading(quant)) {
    const QuantParams has = from_ir_quant(t.quant);
    fail(node, "reads '" + name + "' with scale " + real_text(quant.scale()) + " and zero point " +
                   std::to_string(quant.zero_point()) +
                   " (int8 domain), but it was quantized with " + real_text(has.scale()) + " and " +
                   std::to_string(has.zero_point()));
  }
  return {&value(name), quant, name};
}

const Value& Importer::activation_of(const Node& node, const Value& v) const {
  if (v.kind == ValueKind::kActivation) return v;
  if (v.kind == ValueKind::kDequantized && value(v.source).kind == ValueKind::kActivation)
    return value(v.source);
  fail(node, "expects a quantized activation");
}

// ---- IR ----

int32_t Importer::add_tensor(const std::string& name, DType dtype, std::vector<int32_t> shape,
                             const QuantParams* quant) {
  Tensor t;
  t.name = name;
  t.dtype = dtype;
  t.shape = std::move(shape);
  if (quant) t.quant = to_ir_quant(*quant, 0);
  graph_.tensors.push_back(std::move(t));
  return static_cast<int32_t>(graph_.tensors.size() - 1);
}

int32_t Importer::add_constant_tensor(const std::string& name, DType dtype,
                                      std::vector<int32_t> shape, std::vector<uint8_t> bytes,
                                      const Quantization& quant) {
  Tensor t;
  t.name = name;
  t.dtype = dtype;
  t.shape = std::move(shape);
  t.quant = quant;
  t.data = std::move(bytes);
  graph_.tensors.push_back(std::move(t));
  return static_cast<int32_t>(graph_.tensors.size() - 1);
}

int32_t Importer::add_int32_constant(const std::string& name, const std::vector<int32_t>& values) {
  std::vector<uint8_t> bytes(values.size() * 4);
  if (!values.empty()) std::memcpy(bytes.data(), values.data(), bytes.size());
  return add_constant_tensor(name, DType::kInt32, {static_cast<int32_t>(values.size())},
                             std::move(bytes));
}

Operation& Importer::emit(const Node& node, OpType type, std::vector<int32_t> inputs,
                          std::vector<int32_t> outputs) {
  Operation op;
  op.type = type;
  op.source_index = node.index;
  op.source_name = node.proto->name();
  op.inputs = std::move(inputs);
  op.outputs = std::move(outputs);
  graph_.operations.push_back(std::move(op));
  return graph_.operations.back();
}

int32_t Importer::emit_lookup_table(const Node& node, int32_t input,
                                    const std::vector<int32_t>& shape, const OutputSpec& out,
                                    const Attributes& function) {
  const int32_t result = add_tensor(out.name, DType::kInt8, shape, &out.quant);
  Operation& op = emit(node, OpType::kLookupTable, {input}, {result});
  op.attrs = function;
  if (out.clamped()) {
    op.attrs.activation = Activation::kClip;
    op.attrs.clip_min = out.clamp_min;
    op.attrs.clip_max = out.clamp_max;
  }
  return result;
}

int32_t Importer::emit_result(const Node& node, OpType type, std::vector<int32_t> inputs,
                              const std::vector<int32_t>& shape, const OutputSpec& out,
                              const Attributes& attrs) {
  const bool table_clamps = out.clamped() && !lowering_applies_clamp(type);
  const int32_t written = add_tensor(table_clamps ? out.name + ":unclamped" : out.name,
                                     DType::kInt8, shape, &out.quant);
  Operation& op = emit(node, type, std::move(inputs), {written});
  op.attrs = attrs;
  if (!table_clamps && out.clamped()) {
    op.attrs.activation = Activation::kClip;
    op.attrs.clip_min = out.clamp_min;
    op.attrs.clip_max = out.clamp_max;
  }
  if (!table_clamps) return written;
  return emit_lookup_table(node, written, shape, out, Attributes{});
}

int32_t Importer::requantized(const Node& node, int32_t tensor, const QuantParams& quant) {
  const Tensor& t = graph_.tensors[static_cast<size_t>(tensor)];
  if (from_ir_quant(t.quant).same_reading(quant)) return tensor;
  const float scale = quant.scale();
  uint32_t scale_bits;
  std::memcpy(&scale_bits, &scale, sizeof(scale_bits));
  const std::string key = std::to_string(tensor) + "|" + std::to_string(scale_bits) + "|" +
                          std::to_string(quant.zero_point());
  if (requantized_copies_.count(key)) return requantized_copies_[key];
  OutputSpec out;
  out.name = t.name + ":requantized";
  out.quant = quant;
  const std::vector<int32_t> shape = t.shape;
  const int32_t copy = emit_lookup_table(node, tensor, shape, out, Attributes{});
  requantized_copies_[key] = copy;
  return copy;
}

// ---- layouts ----

int32_t Importer::tensor_in(const Node& node, const Value& v, const Layout& layout) {
  if (v.kind != ValueKind::kActivation) fail(node, "internal: layout of a non-activation");
  if (layout.size() != v.shape.size()) fail(node, "internal: layout of another rank");
  if (!v.flatten_source.empty()) {
    // ONNX's element order: the flatten's input in ONNX's layout, reshaped.
    const std::string key = std::to_string(v.tensor) + "|flat" + layout_text(v.flatten_layout);
    int32_t flat;
    if (layout_copies_.count(key)) {
      flat = layout_copies_[key];
    } else {
      Value source;
      source.kind = ValueKind::kActivation;
      source.shape = v.flatten_source;
      source.tensor = v.tensor;
      source.layout = v.flatten_layout;
      const int32_t ordered = tensor_in(node, source, identity_layout(v.flatten_source.size()));
      const Tensor& t = graph_.tensors[static_cast<size_t>(ordered)];
      const QuantParams quant = from_ir_quant(t.quant);
      flat =
          add_tensor(t.name + ":flat", DType::kInt8, ir_shape(v.shape, identity_layout(2)), &quant);
      emit(node, OpType::kReshape, {ordered}, {flat});
      layout_copies_[key] = flat;
    }
    Value plain;
    plain.kind = ValueKind::kActivation;
    plain.shape = v.shape;
    plain.tensor = flat;
    plain.layout = identity_layout(v.shape.size());
    return tensor_in(node, plain, layout);
  }
  if (v.layout == layout) return v.tensor;
  const std::string key =
      std::to_string(v.tensor) + "|" + layout_text(v.layout) + "|" + layout_text(layout);
  if (layout_copies_.count(key)) return layout_copies_[key];
  const Tensor& source = graph_.tensors[static_cast<size_t>(v.tensor)];
  const QuantParams quant = from_ir_quant(source.quant);
  const std::string name = source.name + ":" +
                           (layout == nhwc_layout() ? "nhwc"
                            : is_identity(layout)   ? "onnx"
                                                    : layout_text(layout));
  const int32_t copy = add_tensor(name, DType::kInt8, ir_shape(v.shape, layout), &quant);
  if (same_memory_order(v.shape, v.layout, layout)) {
    emit(node, OpType::kReshape, {v.tensor}, {copy});
  } else {
    std::vector<int32_t> perm;
    for (int32_t axis : layout)
      perm.push_back(static_cast<int32_t>(std::find(v.layout.begin(), v.layout.end(), axis) -
                                          v.layout.begin()));
    const int32_t perm_tensor = add_int32_constant(name + ":perm", perm);
    emit(node, OpType::kTranspose, {v.tensor, perm_tensor}, {copy});
  }
  layout_copies_[key] = copy;
  return copy;
}

Value Importer::with_rank(const Node& node, const Value& v, size_t rank) {
  if (v.shape.size() >= rank) return v;
  const size_t extra = rank - v.shape.size();
  Value out = v;
  out.shape.insert(out.shape.begin(), extra, 1);
  if (v.kind == ValueKind::kConstant) {
    out.constant.dims = out.shape;
    return out;
  }
  // Leading unit axes, then the value's own in its layout: the same bytes.
  const int32_t source = tensor_in(node, v, v.layout);
  out.layout = identity_layout(extra);
  for (int32_t axis : v.layout) out.layout.push_back(axis + static_cast<int32_t>(extra));
  out.flatten_source.clear();
  out.flatten_layout.clear();
  const Tensor& t = graph_.tensors[static_cast<size_t>(source)];
  const QuantParams quant = from_ir_quant(t.quant);
  out.tensor = add_tensor(t.name + ":rank" + std::to_string(rank), DType::kInt8,
                          ir_shape(out.shape, out.layout), &quant);
  emit(node, OpType::kReshape, {source}, {out.tensor});
  return out;
}

void Importer::define_activation(const Node& node, const std::string& name, int32_t tensor,
                                 std::vector<int64_t> shape, Layout layout, int32_t type) {
  Value v;
  v.type = type;
  v.kind = ValueKind::kActivation;
  v.tensor = tensor;
  v.shape = std::move(shape);
  v.layout = std::move(layout);
  define(node, name, std::move(v));
}

}  // namespace tinyaot::onnx_import
