// Builds ONNX models (onnx::ModelProto) for tests: graph inputs, outputs,
// initializers and nodes, plus the QDQ pieces quantizers write
// (QuantizeLinear / DequantizeLinear with their scale and zero point
// initializers). No Python or onnxruntime needed.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "onnx/onnx_pb.h"

namespace tinyaot::modelgen {

class OnnxBuilder {
 public:
  explicit OnnxBuilder(int64_t opset = 13);

  // Also import onnxruntime's com.microsoft domain (QOperator graphs).
  void use_microsoft_domain();

  void add_input(const std::string& name, int32_t elem_type, const std::vector<int64_t>& shape);
  // `shape` empty: finish() takes the output's shape from ONNX's inference.
  void add_output(const std::string& name, int32_t elem_type,
                  const std::vector<int64_t>& shape = {});
  // Values converted to `elem_type` (float, int8, uint8, int32, int64).
  void add_initializer(const std::string& name, int32_t elem_type, const std::vector<int64_t>& dims,
                       const std::vector<double>& values);

  onnx::NodeProto& add_node(const std::string& op_type, const std::vector<std::string>& inputs,
                            const std::vector<std::string>& outputs,
                            const std::string& domain = "");
  static void set_int(onnx::NodeProto& node, const std::string& name, int64_t value);
  static void set_ints(onnx::NodeProto& node, const std::string& name,
                       const std::vector<int64_t>& values);
  static void set_float(onnx::NodeProto& node, const std::string& name, float value);
  static void set_string(onnx::NodeProto& node, const std::string& name, const std::string& value);

  // A scale initializer (one, or one per channel) and a zero point
  // initializer of `type` (int8, uint8 or int32); returns their names.
  std::pair<std::string, std::string> add_quant(const std::string& prefix,
                                                const std::vector<float>& scales,
                                                const std::vector<int64_t>& zero_points,
                                                int32_t type);
  // QuantizeLinear of `x` into `type`; returns the output's name.
  std::string quantize(const std::string& x, float scale, int64_t zero_point, int32_t type);
  // DequantizeLinear of `q`; returns the output's name.
  std::string dequantize(const std::string& q, float scale, int64_t zero_point, int32_t type);
  // Q then DQ of a float `x`: what a QDQ graph puts between float ops.
  std::string qdq(const std::string& x, float scale, int64_t zero_point, int32_t type);
  // A constant quantized tensor (int8/uint8/int32) through a
  // DequantizeLinear, per tensor (one scale) or along `axis`.
  std::string dequantized_constant(const std::string& name, int32_t type,
                                   const std::vector<int64_t>& dims,
                                   const std::vector<int64_t>& values,
                                   const std::vector<float>& scales,
                                   const std::vector<int64_t>& zero_points, int64_t axis = 0);

  onnx::ModelProto& model() { return model_; }
  std::vector<uint8_t> finish() const;

 private:
  std::string fresh(const std::string& stem);
  onnx::ModelProto model_;
  int counter_ = 0;
};

}  // namespace tinyaot::modelgen
