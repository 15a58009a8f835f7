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

// Constant int32 / int8 / int64 contents of a tensor (fails when not
// constant).
std::vector<int32_t> constant_i32(const Tensor& tensor, const Operation& op);
std::vector<int8_t> constant_i8(const Tensor& tensor, const Operation& op);
std::vector<int16_t> constant_i16(const Tensor& tensor, const Operation& op);
std::vector<int64_t> constant_i64(const Tensor& tensor, const Operation& op);

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

// Bytes of an element a data-movement operator moves from input 0 to
// output 0: 1 for int8, 2 for int16 (the byte-moving kernels take both as
// bytes); fails for any other type or when the two differ.
int32_t moved_element_bytes(const Graph& graph, const Operation& op);

// Whether a weighted operator (input 0, output 0) runs on int16x8
// activations; fails unless input and output are both int8 or both int16,
// and for int16x8 in rounding mode onnx, which has no int16 operators.
bool is_int16x8(const Graph& graph, const Operation& op, const Target& target);

// TFLite's CheckedLog2: log2 of a scale computed in float and rounded, and
// whether the scale is a power of two (within 1e-3 of the rounded log2).
struct ScaleLog2 {
  int32_t rounded;
  bool power_of_two;
};
ScaleLog2 checked_log2(float scale);

// The operands after the weights (input 1) of an int16x8 weighted operator
// (kernels/common/int16x8.h): ChannelQuant[channels] holding an int32 bias
// (input `bias_input`, if the model has one), or the bias of 0 and a
// following int64 bias operand. The activation is input `activation_input`.
std::vector<LoweredOperand> int16x8_quant_operands(const Graph& graph, const Operation& op,
                                                   size_t activation_input, size_t bias_input,
                                                   const Target& target, int32_t channels,
                                                   ScaleProduct product = ScaleProduct::kDouble);

// An operation whose variant reads input 0 alone (its constants are in
// `params`) and writes output 0.
template <typename Params>
LoweredOp lower_single_input(KernelId kernel, const Params& params, const Operation& op) {
  LoweredOp lowered = make_lowered(kernel, params);
  lowered.inputs = {LoweredOperand::of_tensor(op.inputs[0])};
  lowered.outputs = {op.outputs[0]};
  return lowered;
}

// The whole lowering of an int16x8 weighted operator once its parameters
// are known: input, weights as the model has them, the operands of
// int16x8_quant_operands (bias at input 2) -> output.
template <typename Params>
LoweredOp lower_int16x8_weighted(KernelId kernel, const Params& params, const Graph& graph,
                                 const Operation& op, const Target& target, int32_t channels,
                                 ScaleProduct product = ScaleProduct::kDouble) {
  LoweredOp lowered = make_lowered(kernel, params);
  lowered.inputs = {LoweredOperand::of_tensor(op.inputs[0]),
                    LoweredOperand::of_tensor(op.inputs[1])};
  for (LoweredOperand& operand : int16x8_quant_operands(graph, op, 0, 2, target, channels, product))
    lowered.inputs.push_back(std::move(operand));
  lowered.outputs = {op.outputs[0]};
  return lowered;
}

}  // namespace tinyaot
