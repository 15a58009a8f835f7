#include "tools/modelgen/model_builder.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace tinyaot::modelgen {

Quant Quant::per_tensor(float scale, int64_t zero_point) {
  Quant q;
  q.scales = {scale};
  q.zero_points = {zero_point};
  return q;
}

Quant Quant::per_channel(std::vector<float> scales, int32_t axis) {
  Quant q;
  q.zero_points.assign(scales.size(), 0);
  q.scales = std::move(scales);
  q.axis = axis;
  return q;
}

size_t element_bytes(tflite::TensorType type) {
  switch (type) {
    case tflite::TensorType::INT8:
      return 1;
    case tflite::TensorType::INT16:
      return 2;
    case tflite::TensorType::INT32:
    case tflite::TensorType::FLOAT32:
      return 4;
    case tflite::TensorType::INT64:
      return 8;
    default:
      throw std::invalid_argument(
          "modelgen: only int8, int16, int32, int64 and float32 tensors are supported");
  }
}

int64_t num_elements(const std::vector<int32_t>& shape) {
  int64_t n = 1;
  for (int32_t d : shape) n *= d;
  return n;
}

ModelBuilder::ModelBuilder() {
  model_.version = 3;
  // Buffer 0 is the empty buffer every data-less tensor points at.
  model_.buffers.push_back(std::make_unique<tflite::BufferT>());
  model_.subgraphs.push_back(std::make_unique<tflite::SubGraphT>());
  graph().name = "main";
}

tflite::SubGraphT& ModelBuilder::graph() { return *model_.subgraphs[0]; }
const tflite::SubGraphT& ModelBuilder::graph() const { return *model_.subgraphs[0]; }

const tflite::TensorT& ModelBuilder::tensor(int32_t index) const {
  if (index < 0 || index >= num_tensors()) throw std::out_of_range("modelgen: no such tensor");
  return *graph().tensors[static_cast<size_t>(index)];
}

int32_t ModelBuilder::num_tensors() const { return static_cast<int32_t>(graph().tensors.size()); }

const std::vector<int32_t>& ModelBuilder::shape(int32_t index) const { return tensor(index).shape; }

tflite::TensorType ModelBuilder::type(int32_t index) const { return tensor(index).type; }

const tflite::QuantizationParametersT* ModelBuilder::quant(int32_t index) const {
  return tensor(index).quantization.get();
}

int32_t ModelBuilder::add_tensor(const std::string& name, tflite::TensorType type,
                                 std::vector<int32_t> shape, std::optional<Quant> quant) {
  auto t = std::make_unique<tflite::TensorT>();
  t->name = name;
  t->type = type;
  t->shape = std::move(shape);
  t->has_rank = true;
  if (quant) {
    auto q = std::make_unique<tflite::QuantizationParametersT>();
    q->scale = quant->scales;
    q->zero_point = quant->zero_points;
    q->quantized_dimension = quant->axis;
    t->quantization = std::move(q);
  }
  graph().tensors.push_back(std::move(t));
  return num_tensors() - 1;
}

int32_t ModelBuilder::add_int8(const std::string& name, std::vector<int32_t> shape, float scale,
                               int32_t zero_point) {
  return add_tensor(name, tflite::TensorType::INT8, std::move(shape),
                    Quant::per_tensor(scale, zero_point));
}

int32_t ModelBuilder::add_int16(const std::string& name, std::vector<int32_t> shape, float scale) {
  return add_tensor(name, tflite::TensorType::INT16, std::move(shape), Quant::per_tensor(scale, 0));
}

int32_t ModelBuilder::add_float32(const std::string& name, std::vector<int32_t> shape) {
  return add_tensor(name, tflite::TensorType::FLOAT32, std::move(shape));
}

int32_t ModelBuilder::add_constant(const std::string& name, tflite::TensorType type,
                                   std::vector<int32_t> shape, std::vector<uint8_t> bytes,
                                   std::optional<Quant> quant) {
  const int64_t expected = num_elements(shape) * static_cast<int64_t>(element_bytes(type));
  if (static_cast<int64_t>(bytes.size()) != expected)
    throw std::invalid_argument("modelgen: constant '" + name + "' has " +
                                std::to_string(bytes.size()) + " bytes, its shape needs " +
                                std::to_string(expected));
  const int32_t index = add_tensor(name, type, std::move(shape), std::move(quant));
  auto buffer = std::make_unique<tflite::BufferT>();
  buffer->data = std::move(bytes);
  model_.buffers.push_back(std::move(buffer));
  graph().tensors.back()->buffer = static_cast<uint32_t>(model_.buffers.size() - 1);
  return index;
}

int32_t ModelBuilder::add_int8_constant(const std::string& name, std::vector<int32_t> shape,
                                        const std::vector<int8_t>& values, const Quant& quant) {
  std::vector<uint8_t> bytes(values.size());
  if (!values.empty()) std::memcpy(bytes.data(), values.data(), values.size());
  return add_constant(name, tflite::TensorType::INT8, std::move(shape), std::move(bytes), quant);
}

namespace {

// Flatbuffer data is little-endian whatever the host's byte order.
template <typename T>
std::vector<uint8_t> little_endian(const std::vector<T>& values) {
  std::vector<uint8_t> bytes(values.size() * sizeof(T));
  for (size_t i = 0; i < values.size(); ++i) {
    const auto v = static_cast<uint64_t>(values[i]);
    for (size_t b = 0; b < sizeof(T); ++b)
      bytes[i * sizeof(T) + b] = static_cast<uint8_t>(v >> (8 * b));
  }
  return bytes;
}

}  // namespace

int32_t ModelBuilder::add_int32_constant(const std::string& name, std::vector<int32_t> shape,
                                         const std::vector<int32_t>& values,
                                         std::optional<Quant> quant) {
  return add_constant(name, tflite::TensorType::INT32, std::move(shape), little_endian(values),
                      std::move(quant));
}

int32_t ModelBuilder::add_int64_constant(const std::string& name, std::vector<int32_t> shape,
                                         const std::vector<int64_t>& values,
                                         std::optional<Quant> quant) {
  return add_constant(name, tflite::TensorType::INT64, std::move(shape), little_endian(values),
                      std::move(quant));
}

int32_t ModelBuilder::add_bias(const std::string& name, const std::vector<int32_t>& values,
                               const std::vector<float>& scales) {
  return add_int32_constant(name, {static_cast<int32_t>(values.size())}, values,
                            Quant::per_channel(scales, 0));
}

int32_t ModelBuilder::add_bias64(const std::string& name, const std::vector<int64_t>& values,
                                 const std::vector<float>& scales) {
  return add_int64_constant(name, {static_cast<int32_t>(values.size())}, values,
                            Quant::per_channel(scales, 0));
}

void ModelBuilder::add_operator(tflite::BuiltinOperator code, int32_t version,
                                std::vector<int32_t> inputs, std::vector<int32_t> outputs,
                                tflite::BuiltinOptionsUnion options) {
  const auto key = std::make_pair(static_cast<int32_t>(code), version);
  auto found = opcode_index_.find(key);
  if (found == opcode_index_.end()) {
    auto opcode = std::make_unique<tflite::OperatorCodeT>();
    // Codes past 127 do not fit the old byte field, which then says 127.
    opcode->deprecated_builtin_code = static_cast<int8_t>(std::min<int32_t>(key.first, 127));
    opcode->builtin_code = code;
    opcode->version = version;
    model_.operator_codes.push_back(std::move(opcode));
    found =
        opcode_index_.emplace(key, static_cast<uint32_t>(model_.operator_codes.size() - 1)).first;
  }
  auto op = std::make_unique<tflite::OperatorT>();
  op->opcode_index = found->second;
  op->inputs = std::move(inputs);
  op->outputs = std::move(outputs);
  op->builtin_options = std::move(options);
  graph().operators.push_back(std::move(op));
}

void ModelBuilder::set_intermediates(std::vector<int32_t> intermediates) {
  if (graph().operators.empty())
    throw std::invalid_argument("modelgen: intermediates before any operator");
  graph().operators.back()->intermediates = std::move(intermediates);
}

void ModelBuilder::set_variable(int32_t tensor) {
  graph().tensors.at(static_cast<size_t>(tensor))->is_variable = true;
}

void ModelBuilder::set_inputs(std::vector<int32_t> inputs) { graph().inputs = std::move(inputs); }

void ModelBuilder::set_outputs(std::vector<int32_t> outputs) {
  graph().outputs = std::move(outputs);
}

std::vector<uint8_t> ModelBuilder::finish(const std::string& description) const {
  tflite::ModelT model(model_);
  model.description = description;
  flatbuffers::FlatBufferBuilder fbb;
  fbb.Finish(tflite::Model::Pack(fbb, &model), tflite::ModelIdentifier());
  return std::vector<uint8_t>(fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize());
}

}  // namespace tinyaot::modelgen
