#include "kernels/common/lower_helpers.h"

#include <cmath>
#include <cstring>

namespace tinyaot {

void require(bool condition, const Operation& op, const std::string& what) {
  if (!condition) throw CompileError(describe(op) + ": " + what);
}

bool has_input(const Operation& op, size_t index) {
  return index < op.inputs.size() && op.inputs[index] >= 0;
}

const Tensor& input_tensor(const Graph& graph, const Operation& op, size_t index) {
  require(has_input(op, index), op, "input " + std::to_string(index) + " is missing");
  return graph.tensors.at(static_cast<size_t>(op.inputs[index]));
}

const Tensor& output_tensor(const Graph& graph, const Operation& op, size_t index) {
  require(index < op.outputs.size() && op.outputs[index] >= 0, op,
          "output " + std::to_string(index) + " is missing");
  return graph.tensors.at(static_cast<size_t>(op.outputs[index]));
}

template <typename T>
static std::vector<T> constant_values(const Tensor& tensor, const Operation& op, DType dtype,
                                      const char* type_name) {
  require(tensor.is_constant(), op, "tensor '" + tensor.name + "' must be a constant");
  require(tensor.dtype == dtype, op, "tensor '" + tensor.name + "' must be " + type_name);
  const auto& bytes = *tensor.data;
  require(static_cast<int64_t>(bytes.size()) == tensor.bytes(), op,
          "constant '" + tensor.name + "' has " + std::to_string(bytes.size()) +
              " bytes, its shape needs " + std::to_string(tensor.bytes()));
  std::vector<T> values(bytes.size() / sizeof(T));
  if (!values.empty()) std::memcpy(values.data(), bytes.data(), values.size() * sizeof(T));
  return values;
}

std::vector<int32_t> constant_i32(const Tensor& tensor, const Operation& op) {
  return constant_values<int32_t>(tensor, op, DType::kInt32, "int32");
}

std::vector<int8_t> constant_i8(const Tensor& tensor, const Operation& op) {
  return constant_values<int8_t>(tensor, op, DType::kInt8, "int8");
}

std::vector<int16_t> constant_i16(const Tensor& tensor, const Operation& op) {
  return constant_values<int16_t>(tensor, op, DType::kInt16, "int16");
}

std::vector<int64_t> constant_i64(const Tensor& tensor, const Operation& op) {
  return constant_values<int64_t>(tensor, op, DType::kInt64, "int64");
}

int32_t moved_element_bytes(const Graph& graph, const Operation& op) {
  const DType in = input_tensor(graph, op, 0).dtype;
  require((in == DType::kInt8 || in == DType::kInt16) && output_tensor(graph, op).dtype == in, op,
          "input and output must be both int8 or both int16");
  return in == DType::kInt16 ? 2 : 1;
}

bool is_int16x8(const Graph& graph, const Operation& op, const Target& target) {
  const DType in = input_tensor(graph, op, 0).dtype;
  const DType out = output_tensor(graph, op).dtype;
  require((in == DType::kInt8 || in == DType::kInt16) && out == in, op,
          "input and output must be both int8 or both int16");
  if (in != DType::kInt16) return false;
  require(target.rounding != Rounding::kOnnx, op,
          "rounding mode onnx has no int16 operators; compile with --rounding tflm");
  return true;
}

ScaleLog2 checked_log2(float scale) {
  const float log2 = std::log(scale) * (1.0f / std::log(2.0f));
  const float rounded = std::round(log2);
  return {static_cast<int32_t>(rounded), std::fabs(log2 - rounded) < 1e-3f};
}

std::vector<LoweredOperand> int16x8_quant_operands(const Graph& graph, const Operation& op,
                                                   size_t activation_input, size_t bias_input,
                                                   const Target& target, int32_t channels,
                                                   ScaleProduct product) {
  const Tensor& input = input_tensor(graph, op, activation_input);
  const Tensor& filter = input_tensor(graph, op, 1);
  const Tensor& output = output_tensor(graph, op);
  std::vector<int32_t> narrow_bias;
  std::vector<int64_t> wide_bias;
  if (has_input(op, bias_input)) {
    const Tensor& bias = input_tensor(graph, op, bias_input);
    require(bias.dtype == DType::kInt32 || bias.dtype == DType::kInt64, op,
            "an int16x8 bias must be int32 or int64");
    if (bias.dtype == DType::kInt64)
      wide_bias = constant_i64(bias, op);
    else
      narrow_bias = constant_i32(bias, op);
    require(static_cast<int32_t>(wide_bias.size() + narrow_bias.size()) == channels, op,
            "bias size differs from the output channels");
  }
  const std::vector<ChannelQuant> quant =
      channel_quant(input.quant.scale(), filter.quant, output.quant.scale(), narrow_bias, channels,
                    target.rounding, product);
  std::vector<LoweredOperand> operands = {LoweredOperand::of_values(quant)};
  if (!wide_bias.empty()) {
    // The int64 rescale's shift (15 - shift) must stay positive: TFLite
    // requires shift < 8, an effective scale under 2^7.
    for (const ChannelQuant& q : quant)
      require(q.shift <= 7, op, "the output scale is too small for the input and weight scales");
    operands.push_back(LoweredOperand::of_values(wide_bias));
  }
  return operands;
}

std::vector<ChannelQuant> channel_quant(float input_scale, const Quantization& filter,
                                        float output_scale, const std::vector<int32_t>& bias,
                                        int32_t channels, Rounding rounding, ScaleProduct product) {
  std::vector<ChannelQuant> out(static_cast<size_t>(channels));
  const bool per_channel = filter.scales.size() > 1;
  if (rounding == Rounding::kOnnx) {
    for (int32_t c = 0; c < channels; ++c) {
      const float filter_scale =
          per_channel ? filter.scales[static_cast<size_t>(c)] : filter.scale();
      const float multiplier = onnx_weighted_multiplier(input_scale, filter_scale, output_scale);
      const std::optional<int32_t> bits = onnx_multiplier_bits(multiplier);
      if (!bits)
        throw CompileError("channel " + std::to_string(c) + ": input*filter/output scale " +
                           std::to_string(multiplier) + " is not a finite non-negative float32");
      out[static_cast<size_t>(c)] =
          ChannelQuant{bias.empty() ? 0 : bias[static_cast<size_t>(c)], *bits, -1};
    }
    return out;
  }
  const bool float_product = !per_channel && product == ScaleProduct::kFloatWhenPerTensor;
  for (int32_t c = 0; c < channels; ++c) {
    const float filter_scale = per_channel ? filter.scales[static_cast<size_t>(c)] : filter.scale();
    const double scale_product =
        float_product ? static_cast<double>(input_scale * filter_scale)
                      : static_cast<double>(input_scale) * static_cast<double>(filter_scale);
    const double effective = scale_product / static_cast<double>(output_scale);
    const QuantizedMultiplier q = quantize_multiplier(effective, rounding);
    // Kernels take shifts in [-31, 30] (the loader enforces it): a scale
    // ratio of 2^30 or more is no real model's, so refuse it here.
    if (q.shift > 30)
      throw CompileError("channel " + std::to_string(c) + ": input*filter/output scale " +
                         std::to_string(effective) + " is too large to requantize");
    out[static_cast<size_t>(c)] =
        make_channel_quant(bias.empty() ? 0 : bias[static_cast<size_t>(c)], q.multiplier, q.shift);
  }
  return out;
}

}  // namespace tinyaot
