// QuantizeLinear and DequantizeLinear: the edges of every quantized region.
// A DequantizeLinear makes a real-valued view of an activation or integer
// constant; a QuantizeLinear ends a region, giving the pending float
// operator before it its output quantization (or quantizes a float graph
// input, or requantizes a view, or folds a constant).
#include <cmath>

#include "compiler/import/onnx_ops.h"

namespace tinyaot::onnx_import {
namespace {

int32_t type_min(int32_t type) { return type == kUint8 ? 0 : type == kInt8 ? -128 : INT32_MIN; }
int32_t type_max(int32_t type) { return type == kUint8 ? 255 : type == kInt8 ? 127 : INT32_MAX; }

// The slice index along `axis` of element i of a tensor of `dims`.
size_t slice_of(const std::vector<int64_t>& dims, int32_t axis, size_t i) {
  int64_t inner = 1;
  for (size_t d = static_cast<size_t>(axis) + 1; d < dims.size(); ++d) inner *= dims[d];
  return static_cast<size_t>((static_cast<int64_t>(i) / inner) % dims[static_cast<size_t>(axis)]);
}

// ONNX's zero point of slice k in the integers' own domain (uint8 0..255).
int64_t own_zero_point(const QuantParams& q, size_t k) {
  const int64_t zp = q.zero_points[q.per_axis() ? k : 0];
  return q.type == kUint8 ? zp + 128 : zp;
}

// QuantizeLinear of reals: round half to even after the division, add the
// zero point, saturate.
Constant quantize_reals(const Node& node, const std::vector<double>& reals,
                        const std::vector<int64_t>& dims, const QuantParams& q) {
  std::vector<int64_t> out;
  for (size_t i = 0; i < reals.size(); ++i) {
    const size_t k = q.per_axis() ? slice_of(dims, q.axis, i) : 0;
    const float scaled = std::nearbyint(static_cast<float>(reals[i]) / q.scales[k]);
    if (std::isnan(scaled)) fail(node, "quantizes a NaN");
    const double v = static_cast<double>(scaled) + static_cast<double>(own_zero_point(q, k));
    out.push_back(static_cast<int64_t>(
        std::fmin(std::fmax(v, type_min(q.type)), static_cast<double>(type_max(q.type)))));
  }
  return make_integer_constant(q.type, dims, out);
}

void check_axis_size(const Node& node, const QuantParams& q, const std::vector<int64_t>& shape) {
  if (q.per_axis() && static_cast<int64_t>(q.scales.size()) != shape[static_cast<size_t>(q.axis)])
    fail(node, "has " + std::to_string(q.scales.size()) + " scales for axis " +
                   std::to_string(q.axis) + " of size " +
                   std::to_string(shape[static_cast<size_t>(q.axis)]));
}

void visit_quantize(Importer& im, const Node& node) {
  const Value& x = im.input(node, 0);
  const QuantParams q =
      im.quant_params(node, 1, 2, node.attr_int("axis", 1), x.shape.size(), kUint8);
  if (q.type != kInt8 && q.type != kUint8)
    fail(node, std::string("quantizes to ") + element_type_name(q.type) +
                   "; tinyaot runs int8 and uint8 tensors");
  check_axis_size(node, q, x.shape);
  const std::string& out = node.output();
  if (x.kind == ValueKind::kConstant) {
    if (!is_real_type(x.constant.type)) fail(node, "quantizes integers");
    Value c;
    c.kind = ValueKind::kConstant;
    c.shape = x.shape;
    c.constant = quantize_reals(node, x.constant.reals, x.shape, q);
    im.define(node, out, std::move(c));
    return;
  }
  if (x.kind == ValueKind::kDequantized && im.value(x.source).kind == ValueKind::kConstant) {
    const Value& source = im.value(x.source);
    std::vector<double> reals;
    for (size_t i = 0; i < static_cast<size_t>(source.constant.elements()); ++i) {
      const size_t k = x.quant.per_axis() ? slice_of(source.shape, x.quant.axis, i) : 0;
      reals.push_back(static_cast<double>(
          static_cast<float>(source.constant.integer(i) - own_zero_point(x.quant, k)) *
          x.quant.scales[k]));
    }
    Value c;
    c.kind = ValueKind::kConstant;
    c.shape = source.shape;
    c.constant = quantize_reals(node, reals, source.shape, q);
    im.define(node, out, std::move(c));
    return;
  }
  if (q.per_axis())
    fail(node, "quantizes an activation per axis; tinyaot takes per-tensor activations");
  OutputSpec spec;
  spec.name = out;
  spec.quant = q;
  switch (x.kind) {
    case ValueKind::kFloatInput: {
      const int32_t tensor = im.add_tensor(
          out, DType::kInt8, im.graph().tensors[static_cast<size_t>(x.tensor)].shape, &q);
      im.emit(node, OpType::kQuantize, {x.tensor}, {tensor});
      im.define_activation(node, out, tensor, x.shape, x.layout, q.type);
      return;
    }
    case ValueKind::kPending:
      spec.clamp_min = x.clamp_min;
      spec.clamp_max = x.clamp_max;
      emit_pending(im, x, spec);
      return;
    case ValueKind::kDequantized: {
      const Value& source = im.value(x.source);
      if (x.quant.same_reading(q)) {
        Value same = source;
        same.type = q.type;
        im.define(node, out, std::move(same));
        return;
      }
      const int32_t tensor = im.tensor_in(node, source, source.layout);
      const std::vector<int32_t> shape = im.graph().tensors[static_cast<size_t>(tensor)].shape;
      Attributes identity;
      const int32_t result = im.emit_lookup_table(node, tensor, shape, spec, identity);
      im.define_activation(node, out, result, source.shape, source.layout, q.type);
      return;
    }
    default:
      fail(node, "quantizes '" + node.proto->input(0) + "', which holds integers already");
  }
}

void visit_dequantize(Importer& im, const Node& node) {
  const Value& x = im.input(node, 0);
  const int32_t x_type = x.kind == ValueKind::kConstant ? x.constant.type : x.type;
  QuantParams q = im.quant_params(node, 1, 2, node.attr_int("axis", 1), x.shape.size(), x_type);
  check_axis_size(node, q, x.shape);
  if (x.kind == ValueKind::kConstant) {
    if (x.constant.type != q.type)
      fail(node, std::string("dequantizes ") + element_type_name(x.constant.type) +
                     " values with a " + element_type_name(q.type) + " zero point");
  } else if (x.kind == ValueKind::kActivation) {
    im.quantized_operand(node, 0, q);
  } else {
    fail(node, "dequantizes '" + node.proto->input(0) + "', which is not quantized");
  }
  Value v;
  v.kind = ValueKind::kDequantized;
  v.shape = x.shape;
  v.source = node.proto->input(0);
  v.quant = q;
  im.define(node, node.output(), std::move(v));
}

}  // namespace

void emit_pending(Importer& importer, const Value& v, const OutputSpec& out) {
  const Node& node = importer.nodes[static_cast<size_t>(v.node)];
  const std::string key = node.proto->domain() == "com.microsoft"
                              ? node.proto->domain() + ":" + node.op_type()
                              : node.op_type();
  const OpHandler& handler = handlers().at(key);
  std::vector<Operand> in;
  for (size_t i = 0; i < node.num_inputs(); ++i) in.push_back(importer.real_operand(node, i));
  handler.emit(importer, node, in, out);
}

void add_boundary_handlers(HandlerTable& table) {
  table["QuantizeLinear"] = {visit_quantize, nullptr};
  table["DequantizeLinear"] = {visit_dequantize, nullptr};
}

}  // namespace tinyaot::onnx_import
