#include "kernels/common/lower_helpers.h"

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
