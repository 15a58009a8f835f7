// Lowering of SOFTMAX: TFLite's PreprocessSoftmaxScaling on the host,
// then the exponentials the kernel reads (softmax_table.h, softmax.h), and
// the variant.
#include "kernels/softmax/softmax_lower.h"

#include <algorithm>
#include <cmath>

#include "kernels/common/lower_helpers.h"
#include "kernels/common/variant_choice.h"
#include "kernels/softmax/softmax.h"
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
  require(input.dtype == DType::kInt8 &&
              (output.dtype == DType::kInt8 || output.dtype == DType::kInt16),
          op, "only int8 input with int8 or int16 output is supported");
  require(!input.shape.empty(), op, "input must have at least one dimension");
  require(input.shape == output.shape, op, "output shape must equal the input's");
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
