// Operators that move quantized values without computing on them: Reshape,
// Flatten, Squeeze, Unsqueeze, Transpose, Concat, Pad, Slice, Resize
// (nearest) and MaxPool. On a DequantizeLinear's reals they are exact in
// the integers (dequantization is monotonic and keeps zero padding), so
// they run where they stand and their result is a view with the same
// quantization; on integers (QOperator graphs) likewise; on constants they
// fold. Transpose, Squeeze and Unsqueeze only relabel axes: no operation.
#include <algorithm>
#include <cmath>

#include "compiler/import/onnx_ops.h"

namespace tinyaot::onnx_import {
namespace {

// The activation a movement reads: the input itself, or the activation
// behind a DequantizeLinear view (`quant` then its reading).
struct Moving {
  Value activation;
  bool view = false;
  QuantParams quant;
};

Moving moving_input(Importer& im, const Node& node, size_t i) {
  const Value& x = im.input(node, i);
  if (x.kind == ValueKind::kActivation) return {x, false, {}};
  if (x.kind == ValueKind::kDequantized && im.value(x.source).kind == ValueKind::kActivation)
    return {im.value(x.source), true, x.quant};
  im.real_operand(node, i);  // fails naming why (a float result or input)
  fail(node, "input '" + node.proto->input(static_cast<int>(i)) + "' is not a quantized tensor");
}

// Defines the node's output as the moved activation (a view of it when
// the input was a view).
void define_moved(Importer& im, const Node& node, const Moving& in, Value result) {
  result.kind = ValueKind::kActivation;
  result.type = in.activation.type;
  const std::string& out = node.output();
  if (!in.view) {
    im.define(node, out, std::move(result));
    return;
  }
  const std::string integers = out + "#q";
  Value view;
  view.kind = ValueKind::kDequantized;
  view.shape = result.shape;
  view.source = integers;
  view.quant = in.quant;
  im.define_graph_value(integers, std::move(result));
  im.define(node, out, std::move(view));
}

// Defines the output as a constant, or as a view of one with `quant`
// (per-axis parameters follow their axis to `axis_after`; -1 when the
// movement loses it).
void define_constant(Importer& im, const Node& node, Constant c, const Value& input,
                     int32_t axis_after) {
  Value v;
  v.kind = ValueKind::kConstant;
  v.shape = c.dims;
  v.constant = std::move(c);
  if (input.kind != ValueKind::kDequantized) {
    im.define(node, node.output(), std::move(v));
    return;
  }
  QuantParams quant = input.quant;
  if (quant.per_axis()) {
    if (axis_after < 0)
      fail(node, "moves a constant quantized per axis in a way that loses its axis");
    quant.axis = axis_after;
  }
  const std::string integers = node.output() + "#q";
  Value view;
  view.kind = ValueKind::kDequantized;
  view.shape = v.shape;
  view.source = integers;
  view.quant = quant;
  im.define_graph_value(integers, std::move(v));
  im.define(node, node.output(), std::move(view));
}

// The constant behind a constant input or a view of one; nullptr otherwise.
const Constant* constant_behind(const Importer& im, const Value& x) {
  if (x.kind == ValueKind::kConstant) return &x.constant;
  if (x.kind == ValueKind::kDequantized && im.value(x.source).kind == ValueKind::kConstant)
    return &im.value(x.source).constant;
  return nullptr;
}

QuantParams tensor_quant(Importer& im, int32_t tensor) {
  return from_ir_quant(im.graph().tensors[static_cast<size_t>(tensor)].quant);
}

// An activation without a pending flatten (materialized in ONNX's order).
Value plain(Importer& im, const Node& node, const Value& x) {
  if (x.flatten_source.empty()) return x;
  Value out = x;
  out.tensor = im.tensor_in(node, x, identity_layout(x.shape.size()));
  out.flatten_source.clear();
  out.flatten_layout.clear();
  return out;
}

// ---- Reshape, Flatten, Squeeze, Unsqueeze, Transpose ----

Value reshaped(Importer& im, const Node& node, const Value& in, const std::vector<int64_t>& shape) {
  Value x = plain(im, node, in);
  Value out;
  out.shape = shape;
  out.layout = identity_layout(shape.size());
  const bool flatten_like = shape.size() == 2 && x.shape.size() >= 3 && shape[0] == x.shape[0] &&
                            !x.layout.empty() && x.layout[0] == 0;
  int32_t source;
  if (same_memory_order(x.shape, x.layout, identity_layout(x.shape.size()))) {
    source = x.tensor;
  } else if (flatten_like) {
    out.tensor = x.tensor;
    out.flatten_source = x.shape;
    out.flatten_layout = x.layout;
    return out;
  } else {
    source = im.tensor_in(node, x, identity_layout(x.shape.size()));
  }
  const QuantParams quant = tensor_quant(im, source);
  out.tensor = im.add_tensor(node.output(), DType::kInt8, ir_shape(shape, out.layout), &quant);
  im.emit(node, OpType::kReshape, {source}, {out.tensor});
  return out;
}

// The same bytes under a new ONNX shape and layout (axes of size 1 added
// or removed): one RESHAPE, which the pipeline turns into a view.
Value relabelled(Importer& im, const Node& node, const Value& in, std::vector<int64_t> shape,
                 Layout layout) {
  const Value x = plain(im, node, in);
  Value out;
  out.shape = std::move(shape);
  out.layout = std::move(layout);
  const QuantParams quant = tensor_quant(im, x.tensor);
  out.tensor = im.add_tensor(node.output(), DType::kInt8, ir_shape(out.shape, out.layout), &quant);
  im.emit(node, OpType::kReshape, {x.tensor}, {out.tensor});
  return out;
}

std::vector<int64_t> reshape_target(Importer& im, const Node& node,
                                    const std::vector<int64_t>& in) {
  const std::vector<int64_t> wanted = im.constant_input(node, 1, "shape").integers();
  const bool allow_zero = node.attr_int("allowzero", 0) != 0;
  std::vector<int64_t> out;
  int64_t known = 1, infer = -1;
  for (size_t i = 0; i < wanted.size(); ++i) {
    int64_t d = wanted[i];
    if (d == 0 && !allow_zero) {
      if (i >= in.size()) fail(node, "copies dimension " + std::to_string(i) + ", which is absent");
      d = in[i];
    }
    if (d == -1) {
      if (infer >= 0) fail(node, "shape has more than one -1");
      infer = static_cast<int64_t>(i);
      out.push_back(1);
      continue;
    }
    if (d < 1) fail(node, "shape has the dimension " + std::to_string(d));
    if (known > (int64_t{1} << 40) / d) fail(node, "shape is too large");
    known *= d;
    out.push_back(d);
  }
  const int64_t total = checked_elements(in);
  if (infer >= 0) {
    if (total % known != 0)
      fail(node, "cannot reshape " + dims_text(in) + " into " + dims_text(wanted));
    out[static_cast<size_t>(infer)] = total / known;
  } else if (known != total) {
    fail(node, "cannot reshape " + dims_text(in) + " (" + std::to_string(total) +
                   " elements) into " + dims_text(out));
  }
  return out;
}

void reshape_like(Importer& im, const Node& node, const std::vector<int64_t>& shape) {
  const Value& x = im.input(node, 0);
  if (const Constant* c = constant_behind(im, x)) {
    Constant moved = *c;
    moved.dims = shape;
    define_constant(im, node, std::move(moved), x, -1);
    return;
  }
  const Moving in = moving_input(im, node, 0);
  define_moved(im, node, in, reshaped(im, node, in.activation, shape));
}

void visit_reshape(Importer& im, const Node& node) {
  reshape_like(im, node, reshape_target(im, node, im.input(node, 0).shape));
}

void visit_flatten(Importer& im, const Node& node) {
  const std::vector<int64_t>& in = im.input(node, 0).shape;
  const int64_t rank = static_cast<int64_t>(in.size());
  int64_t axis = node.attr_int("axis", 1);
  if (axis < -rank || axis > rank) fail(node, "axis " + std::to_string(axis) + " is outside");
  if (axis < 0) axis += rank;
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < rank; ++d) (d < axis ? outer : inner) *= in[static_cast<size_t>(d)];
  reshape_like(im, node, {outer, inner});
}

std::vector<int64_t> axes_of(Importer& im, const Node& node, int64_t since_opset) {
  if (node.opset >= since_opset)
    return node.has_input(1) ? im.constant_input(node, 1, "axes").integers()
                             : std::vector<int64_t>{};
  return node.attr_ints("axes");
}

// Squeeze or Unsqueeze of a constant: the constant with the new dims, its
// per-axis quantization axis renumbered (old axis -> new axis); false when
// x is not a constant.
bool define_reshaped_constant(Importer& im, const Node& node, const Value& x,
                              const std::vector<int64_t>& shape,
                              const std::vector<int32_t>& renumbered) {
  const Constant* c = constant_behind(im, x);
  if (c == nullptr) return false;
  Constant moved = *c;
  moved.dims = shape;
  const int32_t axis = x.kind == ValueKind::kDequantized && x.quant.per_axis()
                           ? renumbered[static_cast<size_t>(x.quant.axis)]
                           : -1;
  define_constant(im, node, std::move(moved), x, axis);
  return true;
}

void visit_squeeze(Importer& im, const Node& node) {
  const Value& x = im.input(node, 0);
  std::vector<int64_t> axes = axes_of(im, node, 13);
  std::vector<bool> drop(x.shape.size(), false);
  for (size_t d = 0; d < x.shape.size(); ++d) drop[d] = axes.empty() && x.shape[d] == 1;
  for (int64_t a : axes) {
    const int32_t axis = resolve_axis(node, a, x.shape.size());
    if (x.shape[static_cast<size_t>(axis)] != 1)
      fail(node, "squeezes axis " + std::to_string(axis) + " of size " +
                     std::to_string(x.shape[static_cast<size_t>(axis)]));
    drop[static_cast<size_t>(axis)] = true;
  }
  std::vector<int64_t> shape;
  std::vector<int32_t> renumbered(x.shape.size(), -1);
  for (size_t d = 0; d < x.shape.size(); ++d)
    if (!drop[d]) {
      renumbered[d] = static_cast<int32_t>(shape.size());
      shape.push_back(x.shape[d]);
    }
  if (define_reshaped_constant(im, node, x, shape, renumbered)) return;
  const Moving in = moving_input(im, node, 0);
  const Value source = plain(im, node, in.activation);
  Layout layout;
  for (int32_t axis : source.layout)
    if (renumbered[static_cast<size_t>(axis)] >= 0)
      layout.push_back(renumbered[static_cast<size_t>(axis)]);
  define_moved(im, node, in, relabelled(im, node, source, shape, layout));
}

void visit_unsqueeze(Importer& im, const Node& node) {
  const Value& x = im.input(node, 0);
  const std::vector<int64_t> axes = axes_of(im, node, 13);
  const size_t rank = x.shape.size() + axes.size();
  std::vector<bool> inserted(rank, false);
  for (int64_t a : axes) {
    const int32_t axis = resolve_axis(node, a, rank);
    if (inserted[static_cast<size_t>(axis)]) fail(node, "repeats an axis");
    inserted[static_cast<size_t>(axis)] = true;
  }
  std::vector<int64_t> shape;
  std::vector<int32_t> renumbered;  // old axis -> new axis
  for (size_t d = 0, old = 0; d < rank; ++d) {
    if (inserted[d]) {
      shape.push_back(1);
    } else {
      renumbered.push_back(static_cast<int32_t>(d));
      shape.push_back(x.shape[old++]);
    }
  }
  if (define_reshaped_constant(im, node, x, shape, renumbered)) return;
  const Moving in = moving_input(im, node, 0);
  const Value source = plain(im, node, in.activation);
  Layout layout;
  for (int32_t axis : source.layout) layout.push_back(renumbered[static_cast<size_t>(axis)]);
  for (size_t d = 0; d < rank; ++d)
    if (inserted[d]) layout.push_back(static_cast<int32_t>(d));
  define_moved(im, node, in, relabelled(im, node, source, shape, layout));
}

void visit_transpose(Importer& im, const Node& node) {
  const Value& x = im.input(node, 0);
  const size_t rank = x.shape.size();
  std::vector<int64_t> given = node.attr_ints("perm");
  std::vector<int32_t> perm;
  for (size_t d = 0; d < rank; ++d)
    perm.push_back(given.empty()
                       ? static_cast<int32_t>(rank - 1 - d)
                       : resolve_axis(node, given.size() == rank ? given[d] : -999, rank));
  std::vector<int32_t> inverse(rank, -1);
  for (size_t d = 0; d < rank; ++d) {
    if (inverse[static_cast<size_t>(perm[d])] >= 0) fail(node, "perm is not a permutation");
    inverse[static_cast<size_t>(perm[d])] = static_cast<int32_t>(d);
  }
  if (const Constant* c = constant_behind(im, x)) {
    const int32_t axis = x.kind == ValueKind::kDequantized && x.quant.per_axis()
                             ? inverse[static_cast<size_t>(x.quant.axis)]
                             : -1;
    define_constant(im, node, transpose_constant(*c, perm), x, axis);
    return;
  }
  const Moving in = moving_input(im, node, 0);
  Value out = plain(im, node, in.activation);
  for (int32_t& axis : out.layout) axis = inverse[static_cast<size_t>(axis)];
  out.shape.clear();
  for (int32_t p : perm) out.shape.push_back(in.activation.shape[static_cast<size_t>(p)]);
  define_moved(im, node, in, out);
}

// ---- Concat ----

}  // namespace

void emit_concat(Importer& im, const Node& node, const std::vector<Operand>& in,
                 const OutputSpec& out) {
  const Operand* lead = nullptr;
  for (const Operand& operand : in)
    if (operand.is_activation() && lead == nullptr) lead = &operand;
  if (lead == nullptr) fail(node, "concatenates no activation");
  const Value first = plain(im, node, *lead->value);
  const int32_t axis = resolve_axis(node, node.attr_int("axis", 0), first.shape.size());
  std::vector<int64_t> shape = first.shape;
  shape[static_cast<size_t>(axis)] = 0;
  std::vector<int32_t> tensors;
  for (const Operand& operand : in) {
    if (!operand.is_activation() || !operand.quantized())
      fail(node, "concatenates '" + operand.name + "', which is not a quantized activation");
    const Value& v = *operand.value;
    if (v.shape.size() != shape.size()) fail(node, "concatenates tensors of different ranks");
    for (size_t d = 0; d < shape.size(); ++d)
      if (static_cast<int32_t>(d) != axis && v.shape[d] != first.shape[d])
        fail(node, "input shapes " + dims_text(v.shape) + " and " + dims_text(first.shape) +
                       " differ off the axis");
    shape[static_cast<size_t>(axis)] += v.shape[static_cast<size_t>(axis)];
    tensors.push_back(im.requantized(node, im.tensor_in(node, v, first.layout), out.quant));
  }
  Attributes attrs;
  attrs.axis = static_cast<int32_t>(std::find(first.layout.begin(), first.layout.end(), axis) -
                                    first.layout.begin());
  const int32_t result = im.emit_result(node, OpType::kConcatenation, tensors,
                                        ir_shape(shape, first.layout), out, attrs);
  im.define_activation(node, out.name, result, shape, first.layout, out.quant.type);
}

namespace {

// Concat of activations with one quantization runs where it stands;
// otherwise (different quantizations) it is arithmetic: each input is
// requantized to the output's, which the QuantizeLinear after it gives.
void visit_concat(Importer& im, const Node& node) {
  bool constants = true, movable = true;
  const Value& first = im.input(node, 0);
  for (size_t i = 0; i < node.num_inputs(); ++i) {
    const Value& x = im.input(node, i);
    constants = constants && x.kind == ValueKind::kConstant;
    movable =
        movable && x.kind == first.kind &&
        (x.kind == ValueKind::kActivation ||
         (x.kind == ValueKind::kDequantized && im.value(x.source).kind == ValueKind::kActivation &&
          x.quant.same_reading(first.quant)));
  }
  if (constants) {
    const int32_t axis = resolve_axis(node, node.attr_int("axis", 0), first.shape.size());
    std::vector<Constant> parts;
    for (size_t i = 0; i < node.num_inputs(); ++i) parts.push_back(im.input(node, i).constant);
    int64_t outer = 1;
    for (int32_t d = 0; d < axis; ++d) outer *= first.shape[static_cast<size_t>(d)];
    Constant out;
    out.type = first.constant.type;
    out.dims = first.shape;
    out.dims[static_cast<size_t>(axis)] = 0;
    for (const Constant& part : parts) {
      if (part.type != out.type || part.dims.size() != out.dims.size())
        fail(node, "concatenates constants of different types or ranks");
      out.dims[static_cast<size_t>(axis)] += part.dims[static_cast<size_t>(axis)];
    }
    for (int64_t o = 0; o < outer; ++o)
      for (const Constant& part : parts) {
        const int64_t rows = part.elements() / std::max<int64_t>(outer, 1);
        for (int64_t k = 0; k < rows; ++k) {
          const size_t at = static_cast<size_t>(o * rows + k);
          if (is_real_type(out.type))
            out.reals.push_back(part.reals[at]);
          else
            out.ints.push_back(part.ints[at]);
        }
      }
    define_constant(im, node, std::move(out), first, -1);
    return;
  }
  if (!movable) {
    visit_pending(im, node);
    return;
  }
  std::vector<Moving> inputs;
  for (size_t i = 0; i < node.num_inputs(); ++i) inputs.push_back(moving_input(im, node, i));
  const Value lead = plain(im, node, inputs[0].activation);
  const int32_t axis = resolve_axis(node, node.attr_int("axis", 0), lead.shape.size());
  const int32_t reference = lead.tensor;
  std::vector<int32_t> tensors;
  std::vector<int64_t> shape = lead.shape;
  shape[static_cast<size_t>(axis)] = 0;
  for (const Moving& in : inputs) {
    if (in.activation.shape.size() != shape.size())
      fail(node, "concatenates tensors of different ranks");
    for (size_t d = 0; d < shape.size(); ++d)
      if (static_cast<int32_t>(d) != axis && in.activation.shape[d] != lead.shape[d])
        fail(node, "input shapes " + dims_text(in.activation.shape) + " and " +
                       dims_text(lead.shape) + " differ off the axis");
    shape[static_cast<size_t>(axis)] += in.activation.shape[static_cast<size_t>(axis)];
    const int32_t t = im.tensor_in(node, in.activation, lead.layout);
    if (!inputs[0].view && !tensor_quant(im, t).same_reading(tensor_quant(im, reference)))
      fail(node, "concatenates integers of different quantizations");
    tensors.push_back(t);
  }
  const QuantParams quant = tensor_quant(im, reference);
  Value out;
  out.shape = shape;
  out.layout = lead.layout;
  out.tensor = im.add_tensor(node.output(), DType::kInt8, ir_shape(shape, lead.layout), &quant);
  Operation& op = im.emit(node, OpType::kConcatenation, tensors, {out.tensor});
  op.attrs.axis = static_cast<int32_t>(std::find(lead.layout.begin(), lead.layout.end(), axis) -
                                       lead.layout.begin());
  define_moved(im, node, inputs[0], out);
}

// ---- Pad ----

void visit_pad(Importer& im, const Node& node) {
  const std::string mode = node.attr_string("mode", "constant");
  if (mode != "constant")
    fail(node, "mode '" + mode + "' is not supported (tinyaot pads with a constant)");
  const Moving in = moving_input(im, node, 0);
  const size_t rank = in.activation.shape.size();
  std::vector<int64_t> pads =
      node.opset >= 11 ? im.constant_input(node, 1, "pads").integers() : node.attr_ints("pads");
  if (node.opset >= 18 && node.has_input(3)) {
    const std::vector<int64_t> axes = im.constant_input(node, 3, "axes").integers();
    if (pads.size() != 2 * axes.size()) fail(node, "pads and axes disagree in length");
    std::vector<int64_t> full(2 * rank, 0);
    for (size_t i = 0; i < axes.size(); ++i) {
      const size_t axis = static_cast<size_t>(resolve_axis(node, axes[i], rank));
      full[axis] = pads[i];
      full[axis + rank] = pads[i + axes.size()];
    }
    pads = full;
  }
  if (pads.size() != 2 * rank)
    fail(node, "pads must have " + std::to_string(2 * rank) + " entries");
  // PyTorch writes a Pad of zeros before an AvgPool2d: nothing to copy.
  if (std::all_of(pads.begin(), pads.end(), [](int64_t p) { return p == 0; })) {
    define_moved(im, node, in, in.activation);
    return;
  }
  const Value x = plain(im, node, in.activation);
  // The fill value in the int8 domain.
  const QuantParams quant = tensor_quant(im, x.tensor);
  int64_t fill = quant.zero_point();
  const bool has_value = node.opset >= 11 ? node.has_input(2) : node.attribute("value") != nullptr;
  if (has_value) {
    const double real = node.opset >= 11 ? im.constant_input(node, 2, "constant_value").real(0)
                                         : node.attr_float("value", 0.0f);
    if (in.view) {
      const float steps = std::nearbyint(static_cast<float>(real) / in.quant.scale());
      fill = static_cast<int64_t>(steps) + in.quant.zero_point();
      if (static_cast<double>(static_cast<float>(fill - in.quant.zero_point()) *
                              in.quant.scale()) != static_cast<double>(static_cast<float>(real)) ||
          fill < -128 || fill > 127)
        fail(node, "pads with " + real_text(real) +
                       ", which the input's quantization does not hold exactly");
    } else {
      fill = static_cast<int64_t>(real) - (x.type == kUint8 ? 128 : 0);
      if (fill < -128 || fill > 127) fail(node, "pads with a value outside the integers' type");
    }
  }
  std::vector<int64_t> shape = x.shape;
  std::vector<int32_t> paddings;  // [IR rank, 2]
  for (size_t d = 0; d < rank; ++d) {
    if (pads[d] < 0 || pads[d + rank] < 0 || pads[d] > INT32_MAX || pads[d + rank] > INT32_MAX)
      fail(node, "pads must be between 0 and 2^31 (cropping is not supported)");
    shape[d] += pads[d] + pads[d + rank];
  }
  for (int32_t axis : x.layout) {
    paddings.push_back(static_cast<int32_t>(pads[static_cast<size_t>(axis)]));
    paddings.push_back(static_cast<int32_t>(pads[static_cast<size_t>(axis) + rank]));
  }
  const int32_t paddings_tensor = im.add_constant_tensor(
      node.output() + ":paddings", DType::kInt32, {static_cast<int32_t>(rank), 2},
      std::vector<uint8_t>(reinterpret_cast<const uint8_t*>(paddings.data()),
                           reinterpret_cast<const uint8_t*>(paddings.data() + paddings.size())));
  Value out;
  out.shape = shape;
  out.layout = x.layout;
  out.tensor = im.add_tensor(node.output(), DType::kInt8, ir_shape(shape, x.layout), &quant);
  if (fill == quant.zero_point()) {
    im.emit(node, OpType::kPad, {x.tensor, paddings_tensor}, {out.tensor});
  } else {
    const int32_t value = im.add_constant_tensor(node.output() + ":value", DType::kInt8, {1},
                                                 {static_cast<uint8_t>(static_cast<int8_t>(fill))},
                                                 to_ir_quant(quant, 0));
    im.emit(node, OpType::kPadV2, {x.tensor, paddings_tensor, value}, {out.tensor});
  }
  define_moved(im, node, in, out);
}

// ---- Slice ----

void visit_slice(Importer& im, const Node& node) {
  const Value& data = im.input(node, 0);
  const size_t rank = data.shape.size();
  std::vector<int64_t> starts, ends, axes, steps;
  if (node.opset >= 10) {
    starts = im.constant_input(node, 1, "starts").integers();
    ends = im.constant_input(node, 2, "ends").integers();
    if (node.has_input(3)) axes = im.constant_input(node, 3, "axes").integers();
    if (node.has_input(4)) steps = im.constant_input(node, 4, "steps").integers();
  }
  if (axes.empty())
    for (size_t i = 0; i < starts.size(); ++i) axes.push_back(static_cast<int64_t>(i));
  if (steps.empty()) steps.assign(starts.size(), 1);
  if (ends.size() != starts.size() || axes.size() != starts.size() || steps.size() != starts.size())
    fail(node, "starts, ends, axes and steps differ in length");
  std::vector<int64_t> begin(rank, 0), step(rank, 1), count(data.shape);
  for (size_t i = 0; i < starts.size(); ++i) {
    const size_t a = static_cast<size_t>(resolve_axis(node, axes[i], rank));
    const int64_t dim = data.shape[a];
    if (steps[i] == 0) fail(node, "has a step of 0");
    int64_t s = std::clamp<int64_t>(starts[i], -(int64_t{1} << 40), int64_t{1} << 40);
    int64_t e = std::clamp<int64_t>(ends[i], -(int64_t{1} << 40), int64_t{1} << 40);
    const int64_t k = std::clamp<int64_t>(steps[i], -(int64_t{1} << 30), int64_t{1} << 30);
    if (s < 0) s += dim;
    if (e < 0) e += dim;
    if (k > 0) {
      s = std::clamp<int64_t>(s, 0, dim);
      e = std::clamp<int64_t>(e, 0, dim);
      count[a] = e > s ? (e - s + k - 1) / k : 0;
    } else {
      s = std::clamp<int64_t>(s, 0, dim - 1);
      e = std::clamp<int64_t>(e, -1, dim - 1);
      count[a] = s > e ? (s - e - k - 1) / -k : 0;
    }
    if (count[a] < 1) fail(node, "the slice along axis " + std::to_string(a) + " is empty");
    begin[a] = s;
    step[a] = k;
  }
  if (constant_behind(im, data) != nullptr) {
    const Constant& c = *constant_behind(im, data);
    Constant out;
    out.type = c.type;
    out.dims = count;
    std::vector<int64_t> strides(rank, 1);
    for (size_t d = rank; d-- > 1;) strides[d - 1] = strides[d] * c.dims[d];
    std::vector<int64_t> index(rank, 0);
    const int64_t n = checked_elements(count);
    for (int64_t i = 0; i < n; ++i) {
      int64_t from = 0;
      for (size_t d = 0; d < rank; ++d) from += (begin[d] + index[d] * step[d]) * strides[d];
      if (is_real_type(c.type))
        out.reals.push_back(c.reals[static_cast<size_t>(from)]);
      else
        out.ints.push_back(c.ints[static_cast<size_t>(from)]);
      for (size_t d = rank; d-- > 0;) {
        if (++index[d] < count[d]) break;
        index[d] = 0;
      }
    }
    const int32_t axis =
        data.kind == ValueKind::kDequantized && data.quant.per_axis() ? data.quant.axis : -1;
    define_constant(im, node, std::move(out), data, axis);
    return;
  }
  const Moving in = moving_input(im, node, 0);
  const Value x = plain(im, node, in.activation);
  std::vector<int32_t> b, e, s;
  int32_t end_mask = 0;
  for (size_t j = 0; j < rank; ++j) {
    const size_t a = static_cast<size_t>(x.layout[j]);
    const int64_t last = begin[a] + count[a] * step[a];
    b.push_back(static_cast<int32_t>(begin[a]));
    s.push_back(static_cast<int32_t>(step[a]));
    if (last < 0) end_mask |= 1 << j;  // a reversed slice down to index 0
    e.push_back(static_cast<int32_t>(std::max<int64_t>(last, 0)));
  }
  const QuantParams quant = tensor_quant(im, x.tensor);
  Value out;
  out.shape = count;
  out.layout = x.layout;
  out.tensor = im.add_tensor(node.output(), DType::kInt8, ir_shape(count, x.layout), &quant);
  Operation& op = im.emit(node, OpType::kStridedSlice,
                          {x.tensor, im.add_int32_constant(node.output() + ":begin", b),
                           im.add_int32_constant(node.output() + ":end", e),
                           im.add_int32_constant(node.output() + ":strides", s)},
                          {out.tensor});
  op.attrs.end_mask = end_mask;
  define_moved(im, node, in, out);
}

// ---- Resize (nearest) ----

// The input index ONNX's Resize reads for output index `y` along one axis.
int64_t nearest_source(const Node& node, int64_t y, int64_t in, int64_t out, float scale) {
  const std::string mode = node.attr_string("coordinate_transformation_mode",
                                            node.opset >= 11 ? "half_pixel" : "asymmetric");
  const float yf = static_cast<float>(y);
  float x;
  if (mode == "half_pixel") {
    x = (yf + 0.5f) / scale - 0.5f;
  } else if (mode == "pytorch_half_pixel") {
    x = out > 1 ? (yf + 0.5f) / scale - 0.5f : 0.0f;
  } else if (mode == "align_corners") {
    x = out == 1 ? 0.0f : yf * static_cast<float>(in - 1) / static_cast<float>(out - 1);
  } else if (mode == "asymmetric") {
    x = yf / scale;
  } else if (mode == "tf_half_pixel_for_nn") {
    x = (yf + 0.5f) / scale;
  } else {
    fail(node, "coordinate_transformation_mode '" + mode + "' is not supported");
  }
  const std::string rounding = node.attr_string("nearest_mode", "round_prefer_floor");
  float picked;
  if (rounding == "round_prefer_floor") {
    picked = x == std::floor(x) + 0.5f ? std::floor(x) : std::round(x);
  } else if (rounding == "round_prefer_ceil") {
    picked = std::round(x);
  } else if (rounding == "floor") {
    picked = std::floor(x);
  } else if (rounding == "ceil") {
    picked = std::ceil(x);
  } else {
    fail(node, "nearest_mode '" + rounding + "' is not supported");
  }
  return std::clamp<int64_t>(static_cast<int64_t>(picked), 0, in - 1);
}

void visit_resize(Importer& im, const Node& node) {
  const std::string mode = node.attr_string("mode", "nearest");
  if (mode != "nearest")
    fail(node, "mode '" + mode + "' is not supported (tinyaot resizes by nearest neighbour)");
  const Moving in = moving_input(im, node, 0);
  const Value x = plain(im, node, in.activation);
  if (x.shape.size() != 4)
    fail(node, "resizes a rank " + std::to_string(x.shape.size()) +
                   " tensor; tinyaot resizes NCHW tensors");
  const size_t scales_input = node.opset >= 11 ? 2 : 1;
  std::vector<double> scales;
  std::vector<int64_t> sizes;
  if (node.opset >= 11 && node.has_input(3)) {
    sizes = im.constant_input(node, 3, "sizes").integers();
  } else if (node.has_input(scales_input)) {
    const Constant& c = im.constant_input(node, scales_input, "scales");
    for (size_t i = 0; i < static_cast<size_t>(c.elements()); ++i) scales.push_back(c.real(i));
  }
  if (sizes.empty() && scales.size() != 4) fail(node, "needs 4 scales or 4 sizes");
  if (!sizes.empty() && sizes.size() != 4) fail(node, "needs 4 sizes");
  std::vector<int64_t> shape(4);
  std::vector<float> axis_scale(4);
  for (size_t d = 0; d < 4; ++d) {
    if (!sizes.empty()) {
      shape[d] = sizes[d];
      axis_scale[d] = static_cast<float>(sizes[d]) / static_cast<float>(x.shape[d]);
    } else {
      axis_scale[d] = static_cast<float>(scales[d]);
      shape[d] = static_cast<int64_t>(std::floor(static_cast<double>(x.shape[d]) * scales[d]));
    }
    if (shape[d] < 1 || shape[d] > (int64_t{1} << 24)) fail(node, "gives an empty or huge output");
  }
  if (shape[0] != x.shape[0] || shape[1] != x.shape[1])
    fail(node, "resizes the batch or channel axis");
  for (size_t d = 2; d < 4; ++d) {
    const int64_t factor = shape[d] / x.shape[d];
    bool whole = factor >= 1 && factor * x.shape[d] == shape[d];
    for (int64_t y = 0; whole && y < shape[d]; ++y)
      whole = nearest_source(node, y, x.shape[d], shape[d], axis_scale[d]) == y / factor;
    if (!whole)
      fail(node, "resizes " + dims_text(x.shape) + " to " + dims_text(shape) +
                     " in a way that is not a whole-factor nearest upsampling (each input pixel "
                     "repeated), the only Resize tinyaot runs");
  }
  const int32_t source = im.tensor_in(node, x, nhwc_layout());
  const QuantParams quant = tensor_quant(im, source);
  Value out;
  out.shape = shape;
  out.layout = nhwc_layout();
  out.tensor = im.add_tensor(node.output(), DType::kInt8, ir_shape(shape, out.layout), &quant);
  im.emit(node, OpType::kResizeNearestNeighbor, {source}, {out.tensor});
  define_moved(im, node, in, out);
}

// ---- MaxPool ----

void visit_max_pool(Importer& im, const Node& node) {
  if (node.proto->output_size() > 1 && !node.output(1).empty())
    fail(node, "asks for the Indices output, which tinyaot does not compute");
  if (node.attr_int("storage_order", 0) != 0) fail(node, "storage_order 1 is not supported");
  const Moving in = moving_input(im, node, 0);
  const Value x = plain(im, node, in.activation);
  if (x.shape.size() != 4)
    fail(node, "pools a rank " + std::to_string(x.shape.size()) +
                   " tensor; tinyaot pools NCHW tensors (2-D)");
  const SpatialWindow w =
      spatial_window(node, {x.shape[2], x.shape[3]}, {}, node.attr_int("ceil_mode", 0) != 0);
  if (w.dilations[0] != 1 || w.dilations[1] != 1) fail(node, "dilated pooling is not supported");
  const int32_t source = im.tensor_in(node, x, nhwc_layout());
  const QuantParams quant = tensor_quant(im, source);
  Value out;
  out.shape = {x.shape[0], x.shape[1], w.out[0], w.out[1]};
  out.layout = nhwc_layout();
  out.tensor = im.add_tensor(node.output(), DType::kInt8, ir_shape(out.shape, out.layout), &quant);
  Operation& op = im.emit(node, OpType::kMaxPool2d, {source}, {out.tensor});
  op.attrs = window_attributes(w);
  define_moved(im, node, in, out);
}

}  // namespace

void add_movement_handlers(HandlerTable& table) {
  table["Reshape"] = {visit_reshape, nullptr};
  table["Flatten"] = {visit_flatten, nullptr};
  table["Squeeze"] = {visit_squeeze, nullptr};
  table["Unsqueeze"] = {visit_unsqueeze, nullptr};
  table["Transpose"] = {visit_transpose, nullptr};
  table["Pad"] = {visit_pad, nullptr};
  table["Slice"] = {visit_slice, nullptr};
  table["Resize"] = {visit_resize, nullptr};
  table["MaxPool"] = {visit_max_pool, nullptr};
  table["Concat"] = {visit_concat, emit_concat};
}

}  // namespace tinyaot::onnx_import
