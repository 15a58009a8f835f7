// Constants: Constant nodes, and every node whose inputs are all constants
// (the scales, zero points and shapes exporters compute in the graph:
// Identity, Cast, ConstantOfShape, Shape, Gather, Mul, Div, Add, Sub, and
// the shape operators on constants) is evaluated at import time.
#include <algorithm>
#include <cmath>

#include "compiler/import/onnx_ops.h"

namespace tinyaot::onnx_import {
namespace {

Value constant_value(Constant c) {
  Value v;
  v.kind = ValueKind::kConstant;
  v.shape = c.dims;
  v.constant = std::move(c);
  return v;
}

Constant attribute_constant(const Node& node) {
  for (const onnx::AttributeProto& a : node.proto->attribute()) {
    const std::string where = node.where + ": attribute '" + a.name() + "'";
    if (a.name() == "value") return read_constant(a.t(), where);
    if (a.name() == "value_float") return make_real_constant({}, {a.f()});
    if (a.name() == "value_floats")
      return make_real_constant({a.floats_size()}, {a.floats().begin(), a.floats().end()});
    if (a.name() == "value_int") return make_integer_constant(kInt64, {}, {a.i()});
    if (a.name() == "value_ints")
      return make_integer_constant(kInt64, {a.ints_size()}, {a.ints().begin(), a.ints().end()});
  }
  fail(node, "has no value tinyaot reads (value, value_float(s) or value_int(s))");
}

void visit_constant(Importer& im, const Node& node) {
  im.define(node, node.output(), constant_value(attribute_constant(node)));
}

// Identity of anything, and Cast that keeps an activation's or a view's
// values (to their own type), are the input itself.
void visit_identity(Importer& im, const Node& node) {
  im.define(node, node.output(), im.input(node, 0));
}

void visit_cast(Importer& im, const Node& node) {
  const Value& x = im.input(node, 0);
  const int64_t to = node.attr_int("to", 0);
  const bool keeps = (x.kind == ValueKind::kActivation && to == x.type) ||
                     ((x.kind == ValueKind::kDequantized || x.kind == ValueKind::kPending ||
                       x.kind == ValueKind::kFloatInput) &&
                      to == kFloat);
  if (!keeps)
    fail(node, std::string("casts '") + node.proto->input(0) + "' to " +
                   element_type_name(static_cast<int32_t>(to)) +
                   ", which changes its values; tinyaot keeps quantized tensors in their type");
  im.define(node, node.output(), x);
}

void visit_shape(Importer& im, const Node& node) {
  const Value& x = im.input(node, 0);
  if (x.kind == ValueKind::kPending)
    fail(node, "reads the shape of a float result, which tinyaot does not compute");
  int64_t rank = static_cast<int64_t>(x.shape.size());
  int64_t start = node.attr_int("start", 0), end = node.attr_int("end", rank);
  if (start < 0) start += rank;
  if (end < 0) end += rank;
  start = std::clamp<int64_t>(start, 0, rank);
  end = std::clamp<int64_t>(end, start, rank);
  std::vector<int64_t> dims(x.shape.begin() + start, x.shape.begin() + end);
  im.define(
      node, node.output(),
      constant_value(make_integer_constant(kInt64, {static_cast<int64_t>(dims.size())}, dims)));
}

Constant constant_of_shape(Importer& im, const Node& node) {
  const std::vector<int64_t> dims = im.constant_input(node, 0, "shape").integers();
  if (checked_elements(dims) < 0) fail(node, "makes a constant of a bad or huge shape");
  const int64_t n = checked_elements(dims);
  const onnx::AttributeProto* a = node.attribute("value");
  Constant fill = a ? read_constant(a->t(), node.where + ": attribute 'value'")
                    : make_real_constant({1}, {0.0});
  if (fill.elements() != 1) fail(node, "attribute 'value' must hold one element");
  Constant out;
  out.type = fill.type;
  out.dims = dims;
  if (is_real_type(fill.type))
    out.reals.assign(static_cast<size_t>(n), fill.reals[0]);
  else
    out.ints.assign(static_cast<size_t>(n), fill.ints[0]);
  return out;
}

Constant gather(Importer& im, const Node& node) {
  const Constant& data = im.constant_input(node, 0, "data");
  const Constant& indices = im.constant_input(node, 1, "indices");
  const int32_t axis = resolve_axis(node, node.attr_int("axis", 0), data.dims.size());
  const int64_t extent = data.dims[static_cast<size_t>(axis)];
  int64_t outer = 1, inner = 1;
  for (int32_t d = 0; d < axis; ++d) outer *= data.dims[static_cast<size_t>(d)];
  for (size_t d = static_cast<size_t>(axis) + 1; d < data.dims.size(); ++d) inner *= data.dims[d];
  Constant out;
  out.type = data.type;
  out.dims.assign(data.dims.begin(), data.dims.begin() + axis);
  out.dims.insert(out.dims.end(), indices.dims.begin(), indices.dims.end());
  out.dims.insert(out.dims.end(), data.dims.begin() + axis + 1, data.dims.end());
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t index : indices.integers()) {
      if (index < -extent || index >= extent)
        fail(node,
             "index " + std::to_string(index) + " is outside an axis of " + std::to_string(extent));
      const int64_t at = index < 0 ? index + extent : index;
      for (int64_t i = 0; i < inner; ++i) {
        const size_t from = static_cast<size_t>((o * extent + at) * inner + i);
        if (is_real_type(data.type))
          out.reals.push_back(data.reals[from]);
        else
          out.ints.push_back(data.ints[from]);
      }
    }
  return out;
}

// Mul, Div, Add, Sub of constants with numpy broadcasting, in the inputs'
// type (reals as double, then rounded to float as the graph's float math).
Constant binary(const Importer& im, const Node& node) {
  const Constant& a = im.constant_input(node, 0, "A");
  const Constant& b = im.constant_input(node, 1, "B");
  if (is_real_type(a.type) != is_real_type(b.type)) fail(node, "mixes real and integer constants");
  const std::vector<int64_t> dims = broadcast_shape(node, a.dims, b.dims);
  const int64_t n = checked_elements(dims);
  const std::string& op = node.op_type();
  auto index_in = [&](const std::vector<int64_t>& own, int64_t flat) {
    int64_t index = 0, stride = 1;
    for (size_t d = dims.size(); d-- > 0;) {
      const int64_t coordinate = flat % dims[d];
      flat /= dims[d];
      const size_t k = d + own.size() - dims.size();
      if (d + own.size() < dims.size()) continue;
      if (own[k] != 1) index += coordinate * stride;
      stride *= own[k];
    }
    return static_cast<size_t>(index);
  };
  Constant out;
  out.type = a.type;
  out.dims = dims;
  for (int64_t i = 0; i < n; ++i) {
    const size_t ia = index_in(a.dims, i), ib = index_in(b.dims, i);
    if (is_real_type(a.type)) {
      const double x = a.reals[ia], y = b.reals[ib];
      const double r = op == "Mul" ? x * y : op == "Div" ? x / y : op == "Add" ? x + y : x - y;
      out.reals.push_back(a.type == kFloat ? static_cast<double>(static_cast<float>(r)) : r);
    } else {
      const int64_t x = a.ints[ia], y = b.ints[ib];
      if (op == "Div" && y == 0) fail(node, "divides by zero");
      const int64_t r = op == "Mul" ? x * y : op == "Div" ? x / y : op == "Add" ? x + y : x - y;
      out.ints.push_back(r);
    }
  }
  return out;
}

}  // namespace

int32_t resolve_axis(const Node& node, int64_t axis, size_t rank) {
  const int64_t r = static_cast<int64_t>(rank);
  if (axis < -r || axis >= r)
    fail(node,
         "axis " + std::to_string(axis) + " is outside a rank " + std::to_string(rank) + " tensor");
  return static_cast<int32_t>(axis < 0 ? axis + r : axis);
}

std::vector<int64_t> broadcast_shape(const Node& node, const std::vector<int64_t>& a,
                                     const std::vector<int64_t>& b) {
  const size_t rank = std::max(a.size(), b.size());
  std::vector<int64_t> out(rank);
  for (size_t i = 0; i < rank; ++i) {
    const int64_t da = i + a.size() >= rank ? a[i + a.size() - rank] : 1;
    const int64_t db = i + b.size() >= rank ? b[i + b.size() - rank] : 1;
    if (da != db && da != 1 && db != 1)
      fail(node, "shapes " + dims_text(a) + " and " + dims_text(b) + " do not broadcast");
    out[i] = da == 1 ? db : da;
  }
  return out;
}

bool fold_constant_node(Importer& im, const Node& node) {
  const std::string& op = node.op_type();
  if (!node.proto->domain().empty() && node.proto->domain() != "ai.onnx") return false;
  Constant result;
  if (op == "Identity") {
    result = im.constant_input(node, 0, "input");
  } else if (op == "Cast") {
    result = cast_constant(im.constant_input(node, 0, "input"),
                           static_cast<int32_t>(node.attr_int("to", 0)), node.where);
  } else if (op == "ConstantOfShape") {
    result = constant_of_shape(im, node);
  } else if (op == "Gather") {
    result = gather(im, node);
  } else if (op == "Mul" || op == "Div" || op == "Add" || op == "Sub") {
    result = binary(im, node);
  } else {
    return false;
  }
  im.define(node, node.output(), constant_value(std::move(result)));
  return true;
}

void add_constant_handlers(HandlerTable& table) {
  table["Constant"] = {visit_constant, nullptr};
  table["Identity"] = {visit_identity, nullptr};
  table["Cast"] = {visit_cast, nullptr};
  table["Shape"] = {visit_shape, nullptr};
  // Only ever folded (their inputs must be constants).
  auto constants_only = [](Importer&, const Node& node) {
    fail(node,
         "computes on a tensor that is not a constant; tinyaot folds this operator only "
         "on constants");
  };
  table["ConstantOfShape"] = {constants_only, nullptr};
  table["Gather"] = {constants_only, nullptr};
  table["Div"] = {constants_only, nullptr};
}

}  // namespace tinyaot::onnx_import
