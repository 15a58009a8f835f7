#include "tools/modelgen/onnx_builder.h"

#include <cstring>
#include <stdexcept>

#include "onnx/shape_inference/implementation.h"

namespace tinyaot::modelgen {
namespace {

void set_type(onnx::ValueInfoProto& info, int32_t elem_type, const std::vector<int64_t>& shape,
              bool with_shape) {
  onnx::TypeProto_Tensor* tensor = info.mutable_type()->mutable_tensor_type();
  tensor->set_elem_type(elem_type);
  if (!with_shape) return;
  onnx::TensorShapeProto* dims = tensor->mutable_shape();
  for (int64_t d : shape) dims->add_dim()->set_dim_value(d);
}

template <typename T>
void append(std::string& raw, T value) {
  char bytes[sizeof(T)];
  std::memcpy(bytes, &value, sizeof(T));
  raw.append(bytes, sizeof(T));
}

}  // namespace

OnnxBuilder::OnnxBuilder(int64_t opset) {
  model_.set_ir_version(7);
  model_.set_producer_name("tinyaot modelgen");
  onnx::OperatorSetIdProto* id = model_.add_opset_import();
  id->set_domain("");
  id->set_version(opset);
  model_.mutable_graph()->set_name("modelgen");
}

void OnnxBuilder::use_microsoft_domain() {
  onnx::OperatorSetIdProto* id = model_.add_opset_import();
  id->set_domain("com.microsoft");
  id->set_version(1);
}

void OnnxBuilder::add_input(const std::string& name, int32_t elem_type,
                            const std::vector<int64_t>& shape) {
  onnx::ValueInfoProto* info = model_.mutable_graph()->add_input();
  info->set_name(name);
  set_type(*info, elem_type, shape, true);
}

void OnnxBuilder::add_output(const std::string& name, int32_t elem_type,
                             const std::vector<int64_t>& shape) {
  onnx::ValueInfoProto* info = model_.mutable_graph()->add_output();
  info->set_name(name);
  set_type(*info, elem_type, shape, !shape.empty());
}

void OnnxBuilder::add_initializer(const std::string& name, int32_t elem_type,
                                  const std::vector<int64_t>& dims,
                                  const std::vector<double>& values) {
  onnx::TensorProto* t = model_.mutable_graph()->add_initializer();
  t->set_name(name);
  t->set_data_type(elem_type);
  for (int64_t d : dims) t->add_dims(d);
  std::string raw;
  for (double v : values) {
    switch (elem_type) {
      case onnx::TensorProto_DataType_FLOAT:
        append(raw, static_cast<float>(v));
        break;
      case onnx::TensorProto_DataType_INT8:
        append(raw, static_cast<int8_t>(v));
        break;
      case onnx::TensorProto_DataType_UINT8:
        append(raw, static_cast<uint8_t>(v));
        break;
      case onnx::TensorProto_DataType_INT32:
        append(raw, static_cast<int32_t>(v));
        break;
      case onnx::TensorProto_DataType_INT64:
        append(raw, static_cast<int64_t>(v));
        break;
      default:
        throw std::runtime_error("modelgen: unsupported initializer type");
    }
  }
  t->set_raw_data(raw);
}

onnx::NodeProto& OnnxBuilder::add_node(const std::string& op_type,
                                       const std::vector<std::string>& inputs,
                                       const std::vector<std::string>& outputs,
                                       const std::string& domain) {
  onnx::NodeProto* node = model_.mutable_graph()->add_node();
  node->set_op_type(op_type);
  node->set_name(fresh(op_type));
  if (!domain.empty()) node->set_domain(domain);
  for (const std::string& in : inputs) node->add_input(in);
  for (const std::string& out : outputs) node->add_output(out);
  return *node;
}

void OnnxBuilder::set_int(onnx::NodeProto& node, const std::string& name, int64_t value) {
  onnx::AttributeProto* a = node.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto_AttributeType_INT);
  a->set_i(value);
}

void OnnxBuilder::set_ints(onnx::NodeProto& node, const std::string& name,
                           const std::vector<int64_t>& values) {
  onnx::AttributeProto* a = node.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto_AttributeType_INTS);
  for (int64_t v : values) a->add_ints(v);
}

void OnnxBuilder::set_float(onnx::NodeProto& node, const std::string& name, float value) {
  onnx::AttributeProto* a = node.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto_AttributeType_FLOAT);
  a->set_f(value);
}

void OnnxBuilder::set_string(onnx::NodeProto& node, const std::string& name,
                             const std::string& value) {
  onnx::AttributeProto* a = node.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto_AttributeType_STRING);
  a->set_s(value);
}

std::string OnnxBuilder::fresh(const std::string& stem) {
  return stem + "_" + std::to_string(counter_++);
}

std::pair<std::string, std::string> OnnxBuilder::add_quant(const std::string& prefix,
                                                           const std::vector<float>& scales,
                                                           const std::vector<int64_t>& zero_points,
                                                           int32_t type) {
  const std::string scale = fresh(prefix + "_scale"), zero_point = fresh(prefix + "_zero_point");
  const std::vector<int64_t> dims =
      scales.size() == 1 ? std::vector<int64_t>{} : std::vector<int64_t>{int64_t(scales.size())};
  add_initializer(scale, onnx::TensorProto_DataType_FLOAT, dims,
                  std::vector<double>(scales.begin(), scales.end()));
  add_initializer(zero_point, type, dims,
                  std::vector<double>(zero_points.begin(), zero_points.end()));
  return {scale, zero_point};
}

std::string OnnxBuilder::quantize(const std::string& x, float scale, int64_t zero_point,
                                  int32_t type) {
  const auto [s, z] = add_quant(x, {scale}, {zero_point}, type);
  const std::string out = fresh(x + "_q");
  add_node("QuantizeLinear", {x, s, z}, {out});
  return out;
}

std::string OnnxBuilder::dequantize(const std::string& q, float scale, int64_t zero_point,
                                    int32_t type) {
  const auto [s, z] = add_quant(q, {scale}, {zero_point}, type);
  const std::string out = fresh(q + "_dq");
  add_node("DequantizeLinear", {q, s, z}, {out});
  return out;
}

std::string OnnxBuilder::qdq(const std::string& x, float scale, int64_t zero_point, int32_t type) {
  return dequantize(quantize(x, scale, zero_point, type), scale, zero_point, type);
}

std::string OnnxBuilder::dequantized_constant(const std::string& name, int32_t type,
                                              const std::vector<int64_t>& dims,
                                              const std::vector<int64_t>& values,
                                              const std::vector<float>& scales,
                                              const std::vector<int64_t>& zero_points,
                                              int64_t axis) {
  add_initializer(name, type, dims, std::vector<double>(values.begin(), values.end()));
  const auto [s, z] = add_quant(name, scales, zero_points, type);
  const std::string out = fresh(name + "_dq");
  onnx::NodeProto& node = add_node("DequantizeLinear", {name, s, z}, {out});
  if (scales.size() > 1) set_int(node, "axis", axis);
  return out;
}

std::vector<uint8_t> OnnxBuilder::finish() const {
  // ONNX's checker wants every graph output's shape: the ones not given are
  // taken from ONNX's shape inference (operators it knows only).
  onnx::ModelProto model = model_;
  onnx::ModelProto inferred = model_;
  try {
    onnx::shape_inference::InferShapes(inferred);
  } catch (const std::exception&) {
    // A model meant to be malformed: its outputs stay as they are.
  }
  // Inference writes a graph output's shape into the output itself, and
  // an intermediate's into value_info (an output may be either).
  auto take_shape = [](onnx::ValueInfoProto& output,
                       const google::protobuf::RepeatedPtrField<onnx::ValueInfoProto>& infos) {
    for (const onnx::ValueInfoProto& info : infos)
      if (info.name() == output.name() && info.type().tensor_type().has_shape())
        *output.mutable_type()->mutable_tensor_type()->mutable_shape() =
            info.type().tensor_type().shape();
  };
  for (onnx::ValueInfoProto& output : *model.mutable_graph()->mutable_output()) {
    if (output.type().tensor_type().has_shape()) continue;
    take_shape(output, inferred.graph().output());
    if (!output.type().tensor_type().has_shape()) take_shape(output, inferred.graph().value_info());
  }
  std::string bytes;
  if (!model.SerializeToString(&bytes)) throw std::runtime_error("modelgen: cannot serialize");
  return std::vector<uint8_t>(bytes.begin(), bytes.end());
}

}  // namespace tinyaot::modelgen
