#include "compiler/import/onnx_importer.h"

#include <algorithm>
#include <climits>

#include "compiler/import/onnx_context.h"
#include "compiler/import/onnx_ops.h"
#include "compiler/lower/lowering.h"
#include "onnx/checker.h"
#include "onnx/defs/schema.h"
#include "onnx/shape_inference/implementation.h"

namespace tinyaot {
namespace onnx_import {
namespace {

constexpr int64_t kMinOpset = 10;
constexpr int64_t kMaxOpset = 19;
const char* const kMicrosoftDomain = "com.microsoft";

[[noreturn]] void fail_model(const std::string& message) { throw CompileError(message); }

bool is_default_domain(const std::string& domain) { return domain.empty() || domain == "ai.onnx"; }

std::string node_where(const onnx::NodeProto& proto, int32_t index) {
  std::string where = "node " + std::to_string(index);
  if (!proto.name().empty()) where += " '" + proto.name() + "'";
  const std::string op =
      is_default_domain(proto.domain()) ? proto.op_type() : proto.domain() + ":" + proto.op_type();
  return where + " (" + op + ")";
}

std::string supported_operators() {
  std::vector<std::string> names;
  for (const auto& entry : handlers()) names.push_back(entry.first);
  std::sort(names.begin(), names.end());
  std::string text;
  for (const std::string& name : names) text += (text.empty() ? "" : ", ") + name;
  return text;
}

// The opset of each domain the model imports; refuses a default-domain
// opset outside 10..19.
std::map<std::string, int64_t> read_opsets(const onnx::ModelProto& model) {
  std::map<std::string, int64_t> opsets;
  for (const onnx::OperatorSetIdProto& id : model.opset_import())
    opsets[is_default_domain(id.domain()) ? "" : id.domain()] = id.version();
  if (!opsets.count("")) fail_model("model: imports no opset of the default ONNX domain");
  const int64_t opset = opsets[""];
  if (opset < kMinOpset || opset > kMaxOpset)
    fail_model("model: opset " + std::to_string(opset) + "; tinyaot imports opsets " +
               std::to_string(kMinOpset) + " to " + std::to_string(kMaxOpset));
  return opsets;
}

// ONNX's own checks, where this build of ONNX knows the model's opset (a
// newer opset is checked by the importer's own checks alone).
void check_with_onnx(onnx::ModelProto& model, int64_t opset) {
  const auto& versions = onnx::OpSchemaRegistry::DomainToVersionRange::Instance().Map();
  const auto range = versions.find(onnx::ONNX_DOMAIN);
  if (range == versions.end() || opset > range->second.second) return;
  try {
    onnx::checker::check_model(model);
  } catch (const std::exception& e) {
    fail_model(std::string("model: the ONNX checker refuses it: ") + e.what());
  }
  try {
    onnx::shape_inference::InferShapes(model, onnx::OpSchemaRegistry::Instance(),
                                       onnx::ShapeInferenceOptions(true, 1, false));
  } catch (const std::exception& e) {
    fail_model(std::string("model: ONNX shape inference fails: ") + e.what());
  }
}

// Static dims of a value's type; -1 for a symbolic or unknown dim. Empty
// with `known` false when the type carries no shape.
std::vector<int64_t> declared_dims(const onnx::TypeProto& type, bool* known) {
  *known = type.has_tensor_type() && type.tensor_type().has_shape();
  std::vector<int64_t> dims;
  if (!*known) return dims;
  for (const onnx::TensorShapeProto_Dimension& d : type.tensor_type().shape().dim())
    dims.push_back(d.has_dim_value() ? d.dim_value() : -1);
  return dims;
}

void define_graph_input(Importer& im, const onnx::ValueInfoProto& input, bool nhwc_io) {
  const std::string where = "graph input '" + input.name() + "'";
  if (!input.type().has_tensor_type()) fail_model(where + " is not a tensor");
  const int32_t type = input.type().tensor_type().elem_type();
  if (type != kFloat && type != kInt8 && type != kUint8)
    fail_model(where + " has type " + element_type_name(type) +
               "; tinyaot takes float32 inputs (quantized by a QuantizeLinear), int8 or uint8");
  bool known = false;
  std::vector<int64_t> shape = declared_dims(input.type(), &known);
  if (!known) fail_model(where + " has no shape; tinyaot compiles static shapes");
  if (shape.size() > kMaxRank)
    fail_model(where + " has rank " + std::to_string(shape.size()) + "; at most " +
               std::to_string(kMaxRank) + " is supported");
  int64_t elements = 1;
  for (size_t i = 0; i < shape.size(); ++i) {
    // A symbolic batch is one inference at a time on a microcontroller.
    if (shape[i] < 0 && i == 0 && shape.size() > 1) shape[i] = 1;
    if (shape[i] < 1)
      fail_model(where + " has a symbolic or empty dimension " + std::to_string(i) +
                 "; tinyaot compiles static shapes (only a leading batch may be symbolic: it "
                 "becomes 1)");
    elements *= shape[i];
    if (elements > (int64_t{1} << 28)) fail_model(where + " is too large");
  }
  Value v;
  v.shape = shape;
  v.layout = nhwc_io && shape.size() == 4 ? nhwc_layout() : identity_layout(shape.size());
  const std::vector<int32_t> dims = ir_shape(shape, v.layout);
  if (type == kFloat) {
    v.kind = ValueKind::kFloatInput;
    v.tensor = im.add_tensor(input.name(), DType::kFloat32, dims);
  } else {
    v.kind = ValueKind::kActivation;
    v.type = type;
    v.quant_unset = true;
    v.tensor = im.add_tensor(input.name(), DType::kInt8, dims);
  }
  im.graph().inputs.push_back(v.tensor);
  im.define_graph_value(input.name(), std::move(v));
}

// A node standing for the graph's boundary, for the operations emitted
// there (transposes to the model's layout, DEQUANTIZE to float outputs).
struct OutputNode {
  onnx::NodeProto proto;
  Node node;
};

OutputNode output_node(const std::string& name, int32_t index) {
  OutputNode out;
  out.proto.set_name("graph output " + name);
  out.proto.set_op_type("Output");
  out.node.index = index;
  out.node.where = "graph output '" + name + "'";
  return out;
}

void define_graph_output(Importer& im, const onnx::ValueInfoProto& output, int32_t index) {
  const std::string& name = output.name();
  OutputNode boundary = output_node(name, index);
  boundary.node.proto = &boundary.proto;
  const Node& node = boundary.node;
  if (!im.has_value(name)) fail(node, "is not produced by any node");
  const Value& v = im.value(name);
  const Layout layout =
      im.nhwc_io() && v.shape.size() == 4 ? nhwc_layout() : identity_layout(v.shape.size());
  int32_t tensor = -1;
  switch (v.kind) {
    case ValueKind::kActivation:
      if (v.quant_unset) fail(node, "is a graph input passed through unread");
      tensor = im.tensor_in(node, v, layout);
      break;
    case ValueKind::kDequantized: {
      const Value& source = im.value(v.source);
      if (source.kind != ValueKind::kActivation) fail(node, "is a constant");
      const int32_t quantized = im.tensor_in(node, source, layout);
      tensor = im.add_tensor(name, DType::kFloat32,
                             im.graph().tensors[static_cast<size_t>(quantized)].shape);
      im.emit(node, OpType::kDequantize, {quantized}, {tensor});
      break;
    }
    case ValueKind::kPending:
      fail(node, "is the float result of " + im.node_where[static_cast<size_t>(v.node)] +
                     ", which no QuantizeLinear quantizes: tinyaot runs integer programs, so every "
                     "operator must sit in a quantized region (DequantizeLinear -> operator -> "
                     "QuantizeLinear); only a DequantizeLinear may give a float output");
    case ValueKind::kFloatInput:
      fail(node, "is a float32 graph input passed through; tinyaot runs integer programs");
    case ValueKind::kConstant:
      fail(node, "is a constant");
  }
  if (std::find(im.graph().outputs.begin(), im.graph().outputs.end(), tensor) !=
      im.graph().outputs.end())
    fail(node, "is the same tensor as another graph output");
  im.graph().tensors[static_cast<size_t>(tensor)].name = name;
  im.graph().outputs.push_back(tensor);
}

}  // namespace

const HandlerTable& handlers() {
  static const HandlerTable table = [] {
    HandlerTable t;
    add_constant_handlers(t);
    add_boundary_handlers(t);
    add_movement_handlers(t);
    add_weighted_handlers(t);
    add_arithmetic_handlers(t);
    add_qoperator_handlers(t);
    return t;
  }();
  return table;
}

void visit_pending(Importer& im, const Node& node) {
  if (node.proto->output_size() != 1) fail(node, "must have exactly one output");
  Value v;
  v.kind = ValueKind::kPending;
  v.node = node.index;
  im.define(node, node.output(), std::move(v));
}

namespace {

bool all_inputs_constant(const Importer& im, const Node& node) {
  for (size_t i = 0; i < node.num_inputs(); ++i)
    if (node.has_input(i) && (!im.has_value(node.proto->input(static_cast<int>(i))) ||
                              im.input(node, i).kind != ValueKind::kConstant))
      return false;
  return true;
}

void convert_nodes(Importer& im, const onnx::GraphProto& g,
                   const std::map<std::string, int64_t>& opsets) {
  std::vector<Node>& nodes = im.nodes;
  for (int32_t i = 0; i < g.node_size(); ++i) {
    const onnx::NodeProto& proto = g.node(i);
    Node node;
    node.proto = &proto;
    node.index = i;
    node.where = node_where(proto, i);
    const std::string domain = is_default_domain(proto.domain()) ? "" : proto.domain();
    const auto opset = opsets.find(domain);
    node.opset = opset == opsets.end() ? 1 : opset->second;
    nodes.push_back(node);
    im.node_where.push_back(node.where);
  }
  for (const Node& node : nodes) {
    const onnx::NodeProto& proto = *node.proto;
    const bool microsoft = proto.domain() == kMicrosoftDomain;
    if (!is_default_domain(proto.domain()) && !microsoft)
      fail(node, "is in domain '" + proto.domain() +
                     "', which tinyaot does not import (it imports the default ONNX domain and "
                     "onnxruntime's com.microsoft quantized operators)");
    const std::string key = microsoft ? proto.domain() + ":" + proto.op_type() : proto.op_type();
    const auto handler = handlers().find(key);
    if (handler == handlers().end())
      fail(node,
           "operator " + key + " is not supported; supported operators: " + supported_operators());
    if (all_inputs_constant(im, node) && fold_constant_node(im, node)) continue;
    if (handler->second.visit) {
      handler->second.visit(im, node);
    } else {
      visit_pending(im, node);
    }
  }
}

}  // namespace
}  // namespace onnx_import

Graph import_onnx(const uint8_t* data, size_t bytes, const OnnxImportOptions& options) {
  using namespace onnx_import;
  if (data == nullptr || bytes == 0) fail_model("model: the file is empty");
  if (bytes > static_cast<size_t>(INT_MAX)) fail_model("model: larger than 2 GB");
  onnx::ModelProto model;
  if (!model.ParseFromArray(data, static_cast<int>(bytes)))
    fail_model(
        "model: not a valid ONNX protobuf (truncated or corrupt: the protobuf parser "
        "stops at byte " +
        std::to_string(bytes) + " or before)");
  if (!model.has_graph() || model.graph().node_size() == 0)
    fail_model("model: the ONNX model has no graph or no nodes");
  const std::map<std::string, int64_t> opsets = read_opsets(model);
  check_with_onnx(model, opsets.at(""));
  const onnx::GraphProto& g = model.graph();
  if (g.sparse_initializer_size() > 0) fail_model("model: sparse initializers are not supported");

  Importer im(options.nhwc_io);
  for (const onnx::ValueInfoProto& info : g.value_info()) {
    bool known = false;
    std::vector<int64_t> dims = declared_dims(info.type(), &known);
    if (known) im.expected_shapes[info.name()] = dims;
  }
  for (const onnx::ValueInfoProto& info : g.output()) {
    bool known = false;
    std::vector<int64_t> dims = declared_dims(info.type(), &known);
    if (known) im.expected_shapes[info.name()] = dims;
  }
  for (const onnx::TensorProto& initializer : g.initializer()) {
    Value v;
    v.kind = ValueKind::kConstant;
    v.constant = read_constant(initializer, "initializer '" + initializer.name() + "'");
    v.shape = v.constant.dims;
    im.define_graph_value(initializer.name(), std::move(v));
  }
  for (const onnx::ValueInfoProto& input : g.input())
    if (!im.has_value(input.name())) define_graph_input(im, input, options.nhwc_io);
  convert_nodes(im, g, opsets);
  for (const onnx::ValueInfoProto& output : g.output())
    define_graph_output(im, output, static_cast<int32_t>(g.node_size()));
  for (int32_t input : im.graph().inputs) {
    const Tensor& t = im.graph().tensors[static_cast<size_t>(input)];
    if (t.dtype == DType::kInt8 && t.quant.empty())
      fail_model("graph input '" + t.name +
                 "' is never read through a DequantizeLinear or QLinear operator, so its "
                 "quantization is unknown");
  }
  if (im.graph().operations.empty()) fail_model("model: no operation is left to run");
  return std::move(im.graph());
}

}  // namespace tinyaot
