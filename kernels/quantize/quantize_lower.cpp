// Lowering of QUANTIZE and DEQUANTIZE. A float32 input quantizes with the
// float kernel; int8 -> int8 is a requantize, lowered to a lookup table by
// the activation family; the other integer pairs TFLite Micro takes run
// the integer requantize (requantize_int.h).
#include <cmath>

#include "kernels/common/lower_helpers.h"
#include "kernels/common/variant_choice.h"
#include "kernels/lowerings.h"
#include "kernels/quantize/quantize.h"
#include "kernels/quantize/requantize_int.h"

namespace tinyaot {
namespace {

// The integer side's parameters (int8, or int16 with zero point 0); the
// float side only needs to match in size.
QuantizeParams float_conversion_params(const Tensor& float_side, const Tensor& integer_side,
                                       const Operation& op) {
  require(float_side.dtype == DType::kFloat32, op, "the float side must be float32");
  require(integer_side.dtype == DType::kInt8 || integer_side.dtype == DType::kInt16, op,
          "the quantized side must be int8 or int16");
  require(integer_side.quant.scales.size() == 1, op,
          "the quantized side must be quantized per tensor (one scale)");
  const float scale = integer_side.quant.scale();
  require(scale > 0.0f && std::isfinite(scale), op, "the quantized side's scale must be positive");
  const int32_t zero_point = integer_side.quant.zero_point();
  if (integer_side.dtype == DType::kInt8)
    require(zero_point >= -128 && zero_point <= 127, op, "the int8 zero point must lie in int8");
  else
    require(zero_point == 0, op, "the int16 zero point must be 0");
  require(float_side.num_elements() == integer_side.num_elements() &&
              float_side.num_elements() >= 1 && float_side.num_elements() <= INT32_MAX,
          op, "input and output must have the same, non-zero number of elements");
  QuantizeParams params{};
  params.size = static_cast<int32_t>(integer_side.num_elements());
  params.scale = scale;
  params.zero_point = zero_point;
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

int32_t element_bytes(DType dtype) {
  switch (dtype) {
    case DType::kInt8:
      return 1;
    case DType::kInt16:
      return 2;
    case DType::kInt32:
      return 4;
    default:
      return 0;
  }
}

// The pairs of integer types TFLite Micro's PrepareQuantizeReference
// requantizes (int8 -> int8 aside: a lookup table).
bool is_integer_requantize(DType input, DType output) {
  const int32_t in = element_bytes(input), out = element_bytes(output);
  if (in == 0 || out == 0) return false;
  if (in == 4) return out == 1 || out == 2;
  if (in == 1) return out == 2 || out == 4;
  return true;  // int16 -> int8, int16, int32
}

LoweredOp lower_integer_requantize(const Tensor& input, const Tensor& output, const Operation& op,
                                   const Target& target) {
  require(target.rounding != Rounding::kOnnx, op,
          "an integer QUANTIZE other than int8 -> int8 has TFLite's arithmetic only; compile "
          "with --rounding tflm");
  require(input.quant.scales.size() == 1 && output.quant.scales.size() == 1, op,
          "input and output must be quantized per tensor (one scale)");
  require(input.quant.scale() > 0.0f && std::isfinite(input.quant.scale()) &&
              output.quant.scale() > 0.0f && std::isfinite(output.quant.scale()),
          op, "the scales must be positive");
  require(input.num_elements() == output.num_elements() && input.num_elements() >= 1 &&
              input.num_elements() <= INT32_MAX,
          op, "input and output must have the same, non-zero number of elements");
  require(input.dtype != DType::kInt32 || input.quant.zero_point() == 0, op,
          "an int32 input must have zero point 0");
  RequantizeIntParams params{};
  params.size = static_cast<int32_t>(input.num_elements());
  params.input_bytes = element_bytes(input.dtype);
  params.output_bytes = element_bytes(output.dtype);
  params.input_zero_point = input.quant.zero_point();
  params.output_zero_point = output.quant.zero_point();
  // PrepareQuantizeReference: the quotient of the scales in double.
  const QuantizedMultiplier q = quantize_multiplier(
      static_cast<double>(input.quant.scale()) / static_cast<double>(output.quant.scale()),
      target.rounding);
  params.multiplier = q.multiplier;
  params.shift = q.shift;
  return make_lowered(KernelId::requantize_int_ref, params);
}

}  // namespace

LoweredOp lower_quantize(const Graph& graph, const Operation& op, const Target& target) {
  const Tensor& input = input_tensor(graph, op, 0);
  const Tensor& output = output_tensor(graph, op);
  if (input.dtype == DType::kInt8 && output.dtype == DType::kInt8)
    return lower_requantize(graph, op, target);
  LoweredOp lowered;
  if (is_integer_requantize(input.dtype, output.dtype)) {
    lowered = lower_integer_requantize(input, output, op, target);
  } else {
    const QuantizeParams params = float_conversion_params(input, output, op);
    lowered = output.dtype == DType::kInt16
                  ? make_lowered(KernelId::quantize_f32_s16_ref, params)
                  : make_lowered(choose_variant(kQuantizeVariants, params, target), params);
  }
  lowered.inputs = {LoweredOperand::of_tensor(op.inputs[0])};
  lowered.outputs = {op.outputs[0]};
  return lowered;
}

LoweredOp lower_dequantize(const Graph& graph, const Operation& op, const Target&) {
  const QuantizeParams params =
      float_conversion_params(output_tensor(graph, op), input_tensor(graph, op, 0), op);
  const bool int16_input = input_tensor(graph, op, 0).dtype == DType::kInt16;
  return lower_single_input(
      int16_input ? KernelId::dequantize_s16_f32_ref : KernelId::dequantize_s8_f32_ref, params, op);
}

}  // namespace tinyaot
