// Lowering of QUANTIZE and DEQUANTIZE. A float32 input quantizes with the
// float kernel; an int8 input is a requantize, lowered to a lookup table by
// the activation family.
#include <cmath>

#include "kernels/common/lower_helpers.h"
#include "kernels/common/variant_choice.h"
#include "kernels/lowerings.h"
#include "kernels/quantize/quantize.h"

namespace tinyaot {
namespace {

// The int8 side's parameters; the float side only needs to match in size.
QuantizeParams float_conversion_params(const Tensor& float_side, const Tensor& int8_side,
                                       const Operation& op) {
  require(float_side.dtype == DType::kFloat32, op, "the float side must be float32");
  require(int8_side.dtype == DType::kInt8, op, "the quantized side must be int8");
  require(int8_side.quant.scales.size() == 1, op,
          "the int8 side must be quantized per tensor (one scale)");
  const float scale = int8_side.quant.scale();
  require(scale > 0.0f && std::isfinite(scale), op, "the int8 scale must be positive");
  require(int8_side.quant.zero_point() >= -128 && int8_side.quant.zero_point() <= 127, op,
          "the int8 zero point must lie in int8");
  require(float_side.num_elements() == int8_side.num_elements() && float_side.num_elements() >= 1 &&
              float_side.num_elements() <= INT32_MAX,
          op, "input and output must have the same, non-zero number of elements");
  QuantizeParams params{};
  params.size = static_cast<int32_t>(int8_side.num_elements());
  params.scale = scale;
  params.zero_point = int8_side.quant.zero_point();
  return params;
}

// Rough instructions an element without an FPU: the reference's soft-float
// division about 800, the estimate about 50. With an FPU the estimate
// variant runs the reference's chain itself, so taking it on every core
// (the ISA class does not say whether there is an FPU) costs nothing.
uint64_t reference_cost(const QuantizeParams& p) { return 800 * uint64_t(p.size); }
uint64_t estimate_cost(const QuantizeParams& p) { return 50 * uint64_t(p.size); }

const VariantCandidate<QuantizeParams> kQuantizeVariants[] = {
    {KernelId::quantize_f32_s8_ref, nullptr, reference_cost},
    {KernelId::quantize_f32_s8_estimate, nullptr, estimate_cost},
};

}  // namespace

LoweredOp lower_quantize(const Graph& graph, const Operation& op, const Target& target) {
  const Tensor& input = input_tensor(graph, op, 0);
  if (input.dtype == DType::kInt8) return lower_requantize(graph, op, target);
  const QuantizeParams params = float_conversion_params(input, output_tensor(graph, op), op);
  LoweredOp lowered = make_lowered(choose_variant(kQuantizeVariants, params, target), params);
  lowered.inputs = {LoweredOperand::of_tensor(op.inputs[0])};
  lowered.outputs = {op.outputs[0]};
  return lowered;
}

LoweredOp lower_dequantize(const Graph& graph, const Operation& op, const Target&) {
  const QuantizeParams params =
      float_conversion_params(output_tensor(graph, op), input_tensor(graph, op, 0), op);
  LoweredOp lowered = make_lowered(KernelId::dequantize_s8_f32_ref, params);
  lowered.inputs = {LoweredOperand::of_tensor(op.inputs[0])};
  lowered.outputs = {op.outputs[0]};
  return lowered;
}

}  // namespace tinyaot
