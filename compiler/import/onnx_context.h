// The ONNX importer's state while it walks the graph: the values by name,
// the IR graph it builds, and the helpers every operator's conversion uses
// (operands, quantization parameters, layouts, emitting IR operations).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "compiler/import/onnx_values.h"
#include "compiler/ir/graph.h"
#include "onnx/onnx_pb.h"

namespace tinyaot::onnx_import {

// The node being converted.
struct Node {
  const onnx::NodeProto* proto = nullptr;
  int32_t index = 0;
  int64_t opset = 0;  // of the node's domain
  std::string where;  // "node 3 'conv1' (Conv)", for errors

  const std::string& op_type() const { return proto->op_type(); }
  size_t num_inputs() const { return static_cast<size_t>(proto->input_size()); }
  // Input i is given (ONNX writes "" for an omitted optional input).
  bool has_input(size_t i) const;
  const std::string& output(size_t i = 0) const;

  const onnx::AttributeProto* attribute(const std::string& name) const;
  int64_t attr_int(const std::string& name, int64_t fallback) const;
  float attr_float(const std::string& name, float fallback) const;
  std::string attr_string(const std::string& name, const std::string& fallback) const;
  std::vector<int64_t> attr_ints(const std::string& name) const;  // empty when absent
};

[[noreturn]] void fail(const Node& node, const std::string& what);

class Importer {
 public:
  explicit Importer(bool nhwc_io) : nhwc_io_(nhwc_io) {}

  Graph& graph() { return graph_; }
  bool nhwc_io() const { return nhwc_io_; }

  // ---- values ----
  bool has_value(const std::string& name) const { return values_.count(name) != 0; }
  const Value& value(const std::string& name) const;
  Value& mutable_value(const std::string& name);
  const Value& input(const Node& node, size_t i) const;  // fails naming the node when absent
  void define(const Node& node, const std::string& name, Value value);
  void define_graph_value(const std::string& name, Value value) {
    values_[name] = std::move(value);
  }
  const Constant& constant_input(const Node& node, size_t i, const char* role) const;

  // ---- quantization ----
  // The parameters of a QuantizeLinear / DequantizeLinear / QLinear
  // operand: scale (float) and zero point (int8, uint8 or int32; an absent
  // one is a 0 of `type_without_zero_point`), per tensor or along `axis` of
  // a value of `rank`.
  QuantParams quant_params(const Node& node, size_t scale_input, size_t zero_point_input,
                           int64_t axis, size_t rank, int32_t type_without_zero_point) const;
  // Operand i of an arithmetic operator in a QDQ region: a
  // DequantizeLinear's reals, a plain constant, or absent.
  Operand real_operand(const Node& node, size_t i) const;
  // An activation or integer constant read through `quant` (a QLinear
  // operator's operand); binds the quantization of an int8 graph input.
  Operand quantized_operand(const Node& node, size_t i, const QuantParams& quant);

  // ---- IR ----
  int32_t add_tensor(const std::string& name, DType dtype, std::vector<int32_t> shape,
                     const QuantParams* quant = nullptr);
  int32_t add_constant_tensor(const std::string& name, DType dtype, std::vector<int32_t> shape,
                              std::vector<uint8_t> bytes, const Quantization& quant = {});
  int32_t add_int32_constant(const std::string& name, const std::vector<int32_t>& values);
  Operation& emit(const Node& node, OpType type, std::vector<int32_t> inputs,
                  std::vector<int32_t> outputs);
  // Emits `type` writing the operator's result (IR shape `shape`) with the
  // spec's quantization and clamp; returns the result's IR tensor. Where
  // the operator's kernel does not clamp its output, a LOOKUP_TABLE clamps
  // it afterwards.
  int32_t emit_result(const Node& node, OpType type, std::vector<int32_t> inputs,
                      const std::vector<int32_t>& shape, const OutputSpec& out,
                      const Attributes& attrs = {});
  // A LOOKUP_TABLE from `input` (read as `in`) to a new tensor (name, shape,
  // `out`'s quantization) applying `function` then `out`'s clamp.
  int32_t emit_lookup_table(const Node& node, int32_t input, const std::vector<int32_t>& shape,
                            const OutputSpec& out, const Attributes& function);
  // `tensor` requantized to `quant` (itself when they read the same).
  int32_t requantized(const Node& node, int32_t tensor, const QuantParams& quant);

  // ---- layouts ----
  // The IR tensor holding activation `v` laid out by `layout` (v's ONNX
  // rank): v's own tensor, a reshape of it when only size-1 axes move, else
  // a TRANSPOSE (emitted once per value and layout).
  int32_t tensor_in(const Node& node, const Value& v, const Layout& layout);
  // `v` as an ONNX shape of higher rank with leading 1s (broadcasting).
  Value with_rank(const Node& node, const Value& v, size_t rank);
  // Defines `name` as an activation.
  void define_activation(const Node& node, const std::string& name, int32_t tensor,
                         std::vector<int64_t> shape, Layout layout, int32_t type = kInt8);
  // The activation of an operand's value (the source of a dequantized view).
  const Value& activation_of(const Node& node, const Value& v) const;

  // Every node of the graph, by index; their "node 3 'conv1' (Conv)", for
  // messages that name a node other than the one being converted.
  std::vector<Node> nodes;
  std::vector<std::string> node_where;
  // Shapes ONNX's shape inference (or the model) gives values (-1: a
  // symbolic dim); define() refuses a value whose shape differs.
  std::map<std::string, std::vector<int64_t>> expected_shapes;

 private:
  bool nhwc_io_;
  Graph graph_;
  std::map<std::string, Value> values_;
  std::map<std::string, int32_t> layout_copies_;       // "tensor|layout" -> IR tensor
  std::map<std::string, int32_t> requantized_copies_;  // "tensor|scale|zero point" -> IR tensor
};

// The quantization of an IR tensor in the IR's terms.
Quantization to_ir_quant(const QuantParams& quant, int32_t ir_axis);
QuantParams from_ir_quant(const Quantization& quant);

// Text for messages: "0.0235", "[1, 3, ?, 8]".
std::string real_text(double value);
std::string dims_text(const std::vector<int64_t>& dims);

}  // namespace tinyaot::onnx_import
