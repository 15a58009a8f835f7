// Compiler-side helpers shared by the lowerings in kernels/*/ (host only).
#pragma once

#include <string>
#include <vector>

#include "compiler/lower/lowering.h"
#include "kernels/common/quant.h"
#include "kernels/common/quantize_multiplier.h"

namespace tinyaot {

// Fails with "operation N (OP): <what>" unless `condition` holds.
void require(bool condition, const Operation& op, const std::string& what);

// Tensor `index` of the operation's inputs; fails when it is absent.
const Tensor& input_tensor(const Graph& graph, const Operation& op, size_t index);
const Tensor& output_tensor(const Graph& graph, const Operation& op, size_t index = 0);
bool has_input(const Operation& op, size_t index);

// Constant int32 / int8 contents of a tensor (fails when not constant).
std::vector<int32_t> constant_i32(const Tensor& tensor, const Operation& op);
std::vector<int8_t> constant_i8(const Tensor& tensor, const Operation& op);

// How TFLite Micro forms input_scale * filter_scale. Per-channel code
// (PopulateConvolutionQuantizationParams: conv, depthwise, transpose conv,
// per-channel fully connected) multiplies in double; the per-tensor fully
// connected path (GetQuantizedConvolutionMultipler) multiplies the two
// floats in float and only then widens, which changes some multipliers.
enum class ScaleProduct { kDouble, kFloatWhenPerTensor };

// Per output channel bias + multiplier + shift for a weighted operator:
// effective scale = input_scale * filter_scale[c] / output_scale, the
// division in double as TFLite computes it. `bias` may be empty (no bias).
// In rounding mode onnx: onnxruntime's float32 multiplier instead
// (onnx_weighted_multiplier), `product` unused.
std::vector<ChannelQuant> channel_quant(float input_scale, const Quantization& filter,
                                        float output_scale, const std::vector<int32_t>& bias,
                                        int32_t channels, Rounding rounding,
                                        ScaleProduct product = ScaleProduct::kDouble);

}  // namespace tinyaot
