// Builds int8 and int16x8 TensorFlow Lite flatbuffers (schema version 3, "TFL3") with
// the object API of tinyaot's schema subset. Tests and examples use it to
// make models without TensorFlow. The builder only records what it is told:
// the layer helpers (layers.h) apply the converter's conventions.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tflite_schema_generated.h"

namespace tinyaot::modelgen {

// Affine quantization: one (scale, zero point) per tensor, or one per slice
// along `axis`.
struct Quant {
  std::vector<float> scales;
  std::vector<int64_t> zero_points;
  int32_t axis = 0;

  static Quant per_tensor(float scale, int64_t zero_point);
  // Symmetric per-channel quantization (all zero points 0), as the
  // converter writes weights and biases.
  static Quant per_channel(std::vector<float> scales, int32_t axis);
};

class ModelBuilder {
 public:
  ModelBuilder();

  // A tensor without data (an activation). Returns its index.
  int32_t add_tensor(const std::string& name, tflite::TensorType type, std::vector<int32_t> shape,
                     std::optional<Quant> quant = std::nullopt);
  int32_t add_int8(const std::string& name, std::vector<int32_t> shape, float scale,
                   int32_t zero_point);
  // An int16 activation: symmetric (zero point 0), as TFLite requires.
  int32_t add_int16(const std::string& name, std::vector<int32_t> shape, float scale);
  int32_t add_float32(const std::string& name, std::vector<int32_t> shape);

  // A constant: `bytes` must be exactly the tensor's size; it lands in its
  // own buffer, 16-byte aligned in the file.
  int32_t add_constant(const std::string& name, tflite::TensorType type, std::vector<int32_t> shape,
                       std::vector<uint8_t> bytes, std::optional<Quant> quant = std::nullopt);
  int32_t add_int8_constant(const std::string& name, std::vector<int32_t> shape,
                            const std::vector<int8_t>& values, const Quant& quant);
  int32_t add_int32_constant(const std::string& name, std::vector<int32_t> shape,
                             const std::vector<int32_t>& values,
                             std::optional<Quant> quant = std::nullopt);
  int32_t add_int64_constant(const std::string& name, std::vector<int32_t> shape,
                             const std::vector<int64_t>& values,
                             std::optional<Quant> quant = std::nullopt);
  // An int32 bias [n] with zero points 0 and one scale (in_scale * w_scale)
  // or one per channel (in_scale * w_scale[c]): the converter's layout.
  int32_t add_bias(const std::string& name, const std::vector<int32_t>& values,
                   const std::vector<float>& scales);
  // The same bias as int64, the converter's layout beside int16 activations.
  int32_t add_bias64(const std::string& name, const std::vector<int64_t>& values,
                     const std::vector<float>& scales);

  // Appends an operator (execution order is call order). `inputs` may hold
  // -1 for an omitted optional input.
  void add_operator(tflite::BuiltinOperator code, int32_t version, std::vector<int32_t> inputs,
                    std::vector<int32_t> outputs,
                    tflite::BuiltinOptionsUnion options = tflite::BuiltinOptionsUnion());

  // The last operator's `intermediates` (tensors TFLite's LSTM reads the
  // quantization of; TFLite Micro's ignores them).
  void set_intermediates(std::vector<int32_t> intermediates);

  // Marks a tensor without data as state (TFLite's is_variable): it keeps
  // its value from one inference to the next.
  void set_variable(int32_t tensor);

  void set_inputs(std::vector<int32_t> inputs);
  void set_outputs(std::vector<int32_t> outputs);

  const std::vector<int32_t>& shape(int32_t tensor) const;
  tflite::TensorType type(int32_t tensor) const;
  const tflite::QuantizationParametersT* quant(int32_t tensor) const;
  int32_t num_tensors() const;

  // Serializes the model. The builder stays usable (finish again after more
  // changes if needed).
  std::vector<uint8_t> finish(const std::string& description = "tinyaot modelgen") const;

 private:
  tflite::SubGraphT& graph();
  const tflite::SubGraphT& graph() const;
  const tflite::TensorT& tensor(int32_t index) const;

  tflite::ModelT model_;
  std::map<std::pair<int32_t, int32_t>, uint32_t> opcode_index_;  // (code, version) -> index
};

// Bytes of one element of `type` (int8, int16, int32, int64, float32).
size_t element_bytes(tflite::TensorType type);
int64_t num_elements(const std::vector<int32_t>& shape);

}  // namespace tinyaot::modelgen
