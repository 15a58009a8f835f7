// Lowering of SOFTMAX: TFLite's PreprocessSoftmaxScaling on the host,
// then the exponentials the kernel reads (softmax_table.h, softmax.h), and
// the variant; int16 SOFTMAX: its multiplier and TFLite's two int16 tables
// (softmax_int16.h).
#include "kernels/softmax/softmax_lower.h"

#include <algorithm>
#include <cmath>

#include "kernels/common/lower_helpers.h"
#include "kernels/common/variant_choice.h"
#include "kernels/softmax/softmax.h"
#include "kernels/softmax/softmax_int16.h"
#include "kernels/softmax/softmax_table.h"

namespace tinyaot {
namespace {

// Rough instructions per row and per value: both variants take the same
// fixed-point reciprocal once a row (about 80); the reference walks each
// value three times (maximum, sum, output) at about 25 instructions in
// all, the MVE variant 16 values a step for the maximum and four for the
// sum and the output, about 5 per value. Only the order matters.
uint64_t values(const SoftmaxParams& p) { return uint64_t(p.rows) * uint64_t(p.depth); }
uint64_t reference_cost(const SoftmaxParams& p) { return 80 * uint64_t(p.rows) + 25 * values(p); }
uint64_t mve_cost(const SoftmaxParams& p) { return 80 * uint64_t(p.rows) + 5 * values(p); }

const VariantCandidate<SoftmaxParams> kSoftmaxVariants[] = {
    {KernelId::softmax_s8_ref, nullptr, reference_cost},
    {KernelId::softmax_s8_mve, is_softmax_mve_case, mve_cost},
};

// TFLite's gen_lut for an int16 table of `func` over [input_min,
// input_max] into [-1, 1): 512 samples, each moved by half the error of
// linear interpolation at its segment's midpoint, and the end point. In
// float, as TFLite Micro's Prepare computes it.
std::vector<int16_t> int16_table(float (*func)(float), float input_min, float input_max) {
  constexpr int kSteps = kSoftmaxInt16TableSize - 1;
  const float step = (input_max - input_min) / kSteps;
  const float half_step = step / 2;
  const float output_scaling_inv = 65536.0f / 2.0f;
  auto clamp = [](float v) { return static_cast<int16_t>(std::clamp(v, -32768.0f, 32767.0f)); };
  std::vector<int16_t> table(kSoftmaxInt16TableSize);
  for (int i = 0; i < kSteps; ++i) {
    const float value = func(input_min + static_cast<float>(i) * step);
    const float midpoint = func(input_min + static_cast<float>(i) * step + half_step);
    const float next = func(input_min + static_cast<float>(i + 1) * step);
    const float sample = std::round(value * output_scaling_inv);
    const float interpolated = std::round((next * output_scaling_inv + sample) / 2);
    const float midpoint_error = interpolated - std::round(midpoint * output_scaling_inv);
    table[static_cast<size_t>(i)] = clamp(sample - std::round(midpoint_error / 2));
  }
  table[kSteps] = clamp(std::round(func(input_max) * output_scaling_inv));
  return table;
}

LoweredOp lower_softmax_int16(const Tensor& input, const Tensor& output, const Operation& op,
                              const Target& target) {
  require(output.dtype == DType::kInt16, op, "an int16 input needs an int16 output");
  require(input.quant.zero_point() == 0 && output.quant.zero_point() == 0, op,
          "int16 input and output must have zero point 0");
  require(std::abs(output.quant.scale() - 1.0f / 32768) <= 0.001f / 32768, op,
          "int16 output quantization must be scale 1/32768");
  require(input.quant.scale() > 0, op, "input scale must be positive");
  SoftmaxInt16Params params{};
  params.depth = input.shape.back();
  params.rows = static_cast<int32_t>(input.num_elements() / params.depth);
  require(params.depth <= kSoftmaxInt16MaxDepth, op, "the last dimension is too long");
  // [-65535, 0] of differences spans [-10, 0] of the exponential's table.
  const QuantizedMultiplier q =
      quantize_multiplier(static_cast<double>(input.quant.scale()) *
                              static_cast<double>(op.attrs.beta) / (10.0 / 65535.0),
                          target.rounding);
  params.input_multiplier = q.multiplier;
  params.input_shift = q.shift;
  const std::vector<int16_t> exp_table =
      int16_table([](float x) { return std::exp(x); }, -10.0f, 0.0f);
  const std::vector<int16_t> reciprocal_table =
      int16_table([](float x) { return 1.0f / (1.0f + x); }, 0.0f, 1.0f);
  LoweredOp lowered = make_lowered(KernelId::softmax_s16_ref, params);
  lowered.inputs = {LoweredOperand::of_tensor(op.inputs[0]), LoweredOperand::of_values(exp_table),
                    LoweredOperand::of_values(reciprocal_table)};
  lowered.outputs = {op.outputs[0]};
  return lowered;
}

}  // namespace

std::vector<int32_t> softmax_exp_table(double beta, double input_scale, Rounding rounding,
                                       const Operation& op) {
  // PreprocessSoftmaxScaling: beta * scale in Q5.26, capped where the
  // multiply would overflow (single rounding caps its shift at 30).
  const double max_real_multiplier =
      rounding == Rounding::kSingle ? (int64_t{1} << 30) - 1.0 : (int64_t{1} << 31) - 1.0;
  const double real = std::min<double>(
      beta * input_scale * static_cast<double>(1 << (31 - kSoftmaxDiffIntegerBits)),
      max_real_multiplier);
  require(real > 1.0, op, "beta * input scale is too small for TFLite's integer softmax");
  const QuantizedMultiplier q = quantize_multiplier(real, rounding);
  require(q.shift >= 0 && q.shift <= 31, op, "internal: softmax input shift out of range");

  std::vector<int32_t> table(kSoftmaxExpTableSize);
  fill_softmax_exp_table(q.multiplier, q.shift, rounding, table.data());
  return table;
}

LoweredOp lower_softmax(const Graph& graph, const Operation& op, const Target& target) {
  const Tensor& input = input_tensor(graph, op, 0);
  const Tensor& output = output_tensor(graph, op);
  require(!input.shape.empty(), op, "input must have at least one dimension");
  require(input.shape == output.shape, op, "output shape must equal the input's");
  require(input.shape.back() >= 1 && input.num_elements() >= 1 && input.num_elements() <= INT32_MAX,
          op, "input dimensions must be positive");
  if (input.dtype == DType::kInt16) return lower_softmax_int16(input, output, op, target);
  require(input.dtype == DType::kInt8 &&
              (output.dtype == DType::kInt8 || output.dtype == DType::kInt16),
          op, "only int8 input with int8 or int16 output, or int16 in and out, is supported");
  // TFLite Micro's softmax of int8 only produces these output quantizations.
  const bool int16_output = output.dtype == DType::kInt16;
  if (int16_output)
    require(output.quant.zero_point() == -32768 &&
                std::abs(output.quant.scale() - 1.0f / 65536) <= 0.001f / 65536,
            op, "int16 output quantization must be scale 1/65536, zero point -32768");
  else
    require(output.quant.zero_point() == -128 && output.quant.scale() == 1.0f / 256, op,
            "output quantization must be scale 1/256, zero point -128");
  require(input.quant.scale() > 0, op, "input scale must be positive");
  const int32_t depth = input.shape.back();
  require(depth >= 1 && input.num_elements() >= 1 && input.num_elements() <= INT32_MAX, op,
          "input dimensions must be positive");

  SoftmaxParams params{};
  params.depth = depth;
  params.rows = static_cast<int32_t>(input.num_elements() / depth);

  // Stored up to its last exponential that can change an output (the
  // table decreases): the kernel reads 0 past the end.
  std::vector<int32_t> table =
      softmax_exp_table(static_cast<double>(op.attrs.beta),
                        static_cast<double>(input.quant.scale()), target.rounding, op);
  table.resize(static_cast<size_t>(softmax_stored_entries(table.data())));
  LoweredOp lowered = int16_output
                          ? make_lowered(KernelId::softmax_s8_s16_ref, params)
                          : make_lowered(choose_variant(kSoftmaxVariants, params, target), params);
  lowered.inputs = {LoweredOperand::of_tensor(op.inputs[0]), LoweredOperand::of_values(table)};
  lowered.outputs = {op.outputs[0]};
  return lowered;
}

}  // namespace tinyaot
