// QOperator graphs: onnxruntime's QLinear operators (QLinearConv and
// QLinearMatMul of the default domain, the com.microsoft ones it writes for
// the rest) carry each operand's scale and zero point as inputs. They map
// onto the same emitters as the QDQ regions.
#include "compiler/import/onnx_ops.h"

namespace tinyaot::onnx_import {
namespace {

const char* const kMs = "com.microsoft:";

// Operand `data` read through the scale and zero point at the next two
// inputs (per-axis along `axis` for weights).
Operand operand_at(Importer& im, const Node& node, size_t data, int64_t axis = 1) {
  const Value& v = im.input(node, data);
  const int32_t type = v.kind == ValueKind::kConstant ? v.constant.type : v.type;
  const QuantParams q = im.quant_params(node, data + 1, data + 2, axis, v.shape.size(), type);
  return im.quantized_operand(node, data, q);
}

OutputSpec output_at(Importer& im, const Node& node, size_t scale, size_t rank) {
  OutputSpec out;
  out.name = node.output();
  out.quant = im.quant_params(node, scale, scale + 1, 1, rank, kUint8);
  if (out.quant.per_axis()) fail(node, "its output is quantized per axis");
  if (out.quant.type != kInt8 && out.quant.type != kUint8)
    fail(node, "its output must be int8 or uint8");
  return out;
}

// A raw int32 bias (QLinearConv's B, QGemm's C): its scale is implied.
Operand raw_operand(Importer& im, const Node& node, size_t i) {
  if (!node.has_input(i)) return {};
  const Value& v = im.input(node, i);
  if (v.kind != ValueKind::kConstant) fail(node, "bias must be a constant");
  return {&v, {}, node.proto->input(static_cast<int>(i))};
}

// The bias of a QLinear operator is int32 in units of input x weight
// scale: give it that reading so it is taken as it is.
Operand implied_bias(Importer& im, const Node& node, size_t i, const Operand& x, const Operand& w) {
  Operand b = raw_operand(im, node, i);
  if (!b.present()) return b;
  if (b.value->constant.type != kInt32) fail(node, "bias must be int32");
  for (float s : w.quant.scales) b.quant.scales.push_back(x.quant.scale() * s);
  b.quant.zero_points.assign(b.quant.scales.size(), 0);
  b.quant.type = kInt32;
  if (b.quant.scales.size() > 1) b.quant.axis = 0;
  return b;
}

void visit_qlinear_conv(Importer& im, const Node& node) {
  const Operand x = operand_at(im, node, 0);
  const Operand w = operand_at(im, node, 3, 0);
  const Operand b = implied_bias(im, node, 8, x, w);
  emit_conv(im, node, {x, w, b}, output_at(im, node, 6, 4));
}

void visit_qlinear_matmul(Importer& im, const Node& node) {
  const Operand a = operand_at(im, node, 0);
  const Operand b = operand_at(im, node, 3, -1);
  emit_matmul(im, node, {a, b}, output_at(im, node, 6, a.value->shape.size()));
}

void visit_qgemm(Importer& im, const Node& node) {
  if (!node.has_input(7))
    fail(node, "has no y_scale: its output is float, and tinyaot runs integer programs");
  const Operand a = operand_at(im, node, 0);
  const bool trans_b = node.attr_int("transB", 0) != 0;
  const Operand b = operand_at(im, node, 3, trans_b ? 0 : 1);
  const Operand c = implied_bias(im, node, 6, a, b);
  emit_gemm(im, node, {a, b, c}, output_at(im, node, 7, 2));
}

void visit_qlinear_binary(Importer& im, const Node& node) {
  const Operand a = operand_at(im, node, 0);
  const Operand b = operand_at(im, node, 3);
  const size_t rank = std::max(a.value->shape.size(), b.value->shape.size());
  emit_binary(im, node, {a, b}, output_at(im, node, 6, rank));
}

// X, x_scale, x_zero_point, y_scale, y_zero_point.
void visit_qlinear_unary(Importer& im, const Node& node) {
  if (node.attr_int("channels_last", 0) != 0) fail(node, "channels_last 1 is not supported");
  const Operand x = operand_at(im, node, 0);
  const OutputSpec out = output_at(im, node, 3, x.value->shape.size());
  const std::string& op = node.op_type();
  if (op == "QLinearAveragePool") {
    emit_average_pool(im, node, {x}, out);
  } else if (op == "QLinearGlobalAveragePool") {
    emit_global_average_pool(im, node, {x}, out);
  } else if (op == "QLinearSoftmax") {
    emit_softmax(im, node, {x}, out);
  } else {
    emit_unary(im, node, {x}, out);
  }
}

// Y_scale, Y_zero_point, then (X, x_scale, x_zero_point) per input.
void visit_qlinear_concat(Importer& im, const Node& node) {
  if (node.num_inputs() < 5 || (node.num_inputs() - 2) % 3 != 0)
    fail(node, "needs Y_scale, Y_zero_point and three inputs per tensor");
  std::vector<Operand> in;
  for (size_t i = 2; i < node.num_inputs(); i += 3) in.push_back(operand_at(im, node, i));
  emit_concat(im, node, in, output_at(im, node, 0, in[0].value->shape.size()));
}

}  // namespace

void add_qoperator_handlers(HandlerTable& table) {
  table["QLinearConv"] = {visit_qlinear_conv, nullptr};
  table["QLinearMatMul"] = {visit_qlinear_matmul, nullptr};
  table[std::string(kMs) + "QGemm"] = {visit_qgemm, nullptr};
  for (const char* op : {"QLinearAdd", "QLinearMul"})
    table[std::string(kMs) + op] = {visit_qlinear_binary, nullptr};
  for (const char* op : {"QLinearAveragePool", "QLinearGlobalAveragePool", "QLinearSigmoid",
                         "QLinearLeakyRelu", "QLinearSoftmax"})
    table[std::string(kMs) + op] = {visit_qlinear_unary, nullptr};
  table[std::string(kMs) + "QLinearConcat"] = {visit_qlinear_concat, nullptr};
}

}  // namespace tinyaot::onnx_import
