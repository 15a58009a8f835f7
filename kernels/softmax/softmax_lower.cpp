// Lowering of SOFTMAX: TFLite's PreprocessSoftmaxScaling and
// CalculateInputRadius on the host, then the 256 exponentials the kernel
// reads (see softmax.h).
#include "kernels/softmax/softmax_lower.h"

#include <algorithm>
#include <cmath>

#include "kernels/common/fixed_point.h"
#include "kernels/common/lower_helpers.h"
#include "kernels/softmax/softmax.h"

namespace tinyaot {
namespace {

// Integer bits of the rescaled differences (TFLite's kScaledDiffIntegerBits).
constexpr int kDiffIntegerBits = 5;

// TFLite's MultiplyByQuantizedMultiplierGreaterThanOne: double rounding
// shifts left then takes the rounding doubling high product; single rounding
// is the plain single-rounding multiply. Exact here because |diff| is within
// the input radius.
int32_t rescale_difference(int32_t diff, const QuantizedMultiplier& q, Rounding rounding) {
  if (rounding == Rounding::kSingle) return requantize_single(diff, q.multiplier, q.shift);
  const int64_t shifted = static_cast<int64_t>(diff) * (int64_t{1} << q.shift);
  return saturating_rounding_doubling_high_mul(static_cast<int32_t>(shifted), q.multiplier);
}

}  // namespace

std::vector<int32_t> softmax_exp_table(double beta, double input_scale, Rounding rounding,
                                       const Operation& op) {
  // PreprocessSoftmaxScaling: beta * scale in Q5.26, capped where the
  // multiply would overflow (single rounding caps its shift at 30).
  const double max_real_multiplier =
      rounding == Rounding::kSingle ? (int64_t{1} << 30) - 1.0 : (int64_t{1} << 31) - 1.0;
  const double real = std::min<double>(
      beta * input_scale * static_cast<double>(1 << (31 - kDiffIntegerBits)), max_real_multiplier);
  require(real > 1.0, op, "beta * input scale is too small for TFLite's integer softmax");
  const QuantizedMultiplier q = quantize_multiplier(real, rounding);
  require(q.shift >= 0 && q.shift <= 31, op, "internal: softmax input shift out of range");

  // CalculateInputRadius: the largest |difference| whose rescaled value
  // fits Q5.26; TFLite skips differences below its negation.
  const double radius = std::floor(1.0 * ((1 << kDiffIntegerBits) - 1) *
                                   static_cast<double>(int64_t{1} << (31 - kDiffIntegerBits)) /
                                   static_cast<double>(int64_t{1} << q.shift));
  const int32_t diff_min = -static_cast<int32_t>(radius);

  std::vector<int32_t> table(kSoftmaxExpTableSize, 0);
  for (int32_t d = 0; d < kSoftmaxExpTableSize; ++d) {
    if (-d < diff_min) continue;
    table[static_cast<size_t>(d)] =
        fixed_point::exp_on_negative_values(rescale_difference(-d, q, rounding), kDiffIntegerBits);
  }
  return table;
}

LoweredOp lower_softmax(const Graph& graph, const Operation& op, const Target& target) {
  const Tensor& input = input_tensor(graph, op, 0);
  const Tensor& output = output_tensor(graph, op);
  require(input.dtype == DType::kInt8 && output.dtype == DType::kInt8, op,
          "only int8 input and output are supported");
  require(!input.shape.empty(), op, "input must have at least one dimension");
  require(input.shape == output.shape, op, "output shape must equal the input's");
  // TFLite Micro's int8 softmax only produces this output quantization.
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
  while (table.size() > 1 && table.back() < kSoftmaxNegligibleExp) table.pop_back();
  LoweredOp lowered = make_lowered(KernelId::softmax_s8_ref, params);
  lowered.inputs = {LoweredOperand::of_tensor(op.inputs[0]), LoweredOperand::of_values(table)};
  lowered.outputs = {op.outputs[0]};
  return lowered;
}

}  // namespace tinyaot
