// Lowering of MEAN: resolves the constant axes as TFLite does (negative
// axes count from the end, duplicates collapse), simplifies the shape for
// the kernel and folds 1 / count into the output multiplier exactly as
// TFLite Micro's QuantizedMeanOrSum does at run time.
#include <algorithm>

#include "kernels/common/lower_helpers.h"
#include "kernels/common/variant_choice.h"
#include "kernels/lowerings.h"
#include "kernels/mean/mean.h"

namespace tinyaot {
namespace {

// floor(log2(n)) for n >= 1: TFLite's 63 - CountLeadingZeros(uint64).
int32_t floor_log2(int64_t n) {
  int32_t log = -1;
  for (; n > 0; n >>= 1) ++log;
  return log;
}

// TFLite Micro's rescaling of the output multiplier by 1 / count: shift the
// significand up by floor(log2(count)) (at most 32, and no further than a
// total shift of -31), divide by count, truncating.
QuantizedMultiplier fold_count(QuantizedMultiplier q, int64_t count) {
  int32_t shift = std::min(floor_log2(count), 32);
  shift = std::min(shift, 31 + q.shift);
  q.multiplier = static_cast<int32_t>((static_cast<int64_t>(q.multiplier) << shift) / count);
  q.shift -= shift;
  return q;
}

// Rough instructions per cell: the reference's odometer walk about 10, the
// planes' word sums about 1 (avg_pool2d_s8_sum16's), plus about 12 an
// output for the step.
uint64_t cells_of(const MeanParams& p) {
  uint64_t cells = 1;
  for (int32_t i = 0; i < p.rank; ++i) cells *= uint64_t(p.dims[i]);
  return cells;
}
uint64_t outputs_of(const MeanParams& p) { return cells_of(p) / uint64_t(p.count); }

uint64_t reference_cost(const MeanParams& p) { return 10 * cells_of(p) + 12 * outputs_of(p); }
uint64_t planes_cost(const MeanParams& p) { return cells_of(p) + 12 * outputs_of(p); }
// MVE: 16 channels a block, about 6 instructions per cell.
uint64_t planes_mve_cost(const MeanParams& p) { return cells_of(p) / 3 + 12 * outputs_of(p); }

const VariantCandidate<MeanParams> kMeanVariants[] = {
    {KernelId::mean_s8_ref, nullptr, reference_cost},
    {KernelId::mean_s8_planes, is_mean_planes_case, planes_cost},
    {KernelId::mean_s8_planes_mve, is_mean_planes_case, planes_mve_cost},
};

}  // namespace

LoweredOp lower_mean(const Graph& graph, const Operation& op, const Target& target) {
  const Tensor& input = input_tensor(graph, op, 0);
  const int32_t rank = static_cast<int32_t>(input.shape.size());
  std::vector<bool> reduced(static_cast<size_t>(rank), false);
  for (int32_t axis : constant_i32(input_tensor(graph, op, 1), op)) {
    const int32_t resolved = axis < 0 ? axis + rank : axis;
    require(resolved >= 0 && resolved < rank, op,
            "axis " + std::to_string(axis) + " is outside the input's rank");
    reduced[static_cast<size_t>(resolved)] = true;
  }
  return lower_mean_over(graph, op, target, reduced);
}

LoweredOp lower_mean_over(const Graph& graph, const Operation& op, const Target& target,
                          const std::vector<bool>& reduced) {
  const Tensor& input = input_tensor(graph, op, 0);
  const Tensor& output = output_tensor(graph, op);
  // int16 (zero points 0) takes the same arithmetic, QuantizedMeanOrSum<int16_t>.
  const bool int16 = is_int16x8(graph, op, target);
  const int32_t rank = static_cast<int32_t>(input.shape.size());
  require(rank >= 1 && rank <= 5, op, "input rank must be 1 to 5");
  for (int32_t d : input.shape) require(d >= 1, op, "input dimensions must be positive");

  // Merge runs of reduced / kept dimensions and drop 1s: neither changes
  // which cells an output averages nor the output layout.
  MeanParams params{};
  int64_t count = 1, kept = 1;
  bool previous_reduced = false;
  for (int32_t i = 0; i < rank; ++i) {
    const int32_t d = input.shape[static_cast<size_t>(i)];
    const bool r = reduced[static_cast<size_t>(i)];
    (r ? count : kept) *= d;
    if (d == 1) continue;
    if (params.rank > 0 && r == previous_reduced) {
      params.dims[params.rank - 1] *= d;
    } else {
      params.dims[params.rank] = d;
      if (r) params.reduced_mask |= 1u << params.rank;
      ++params.rank;
    }
    previous_reduced = r;
  }
  if (params.rank == 0) params.dims[params.rank++] = 1;
  require(count <= INT32_MAX && kept <= INT32_MAX, op, "input is too large");
  require(output.num_elements() == kept, op,
          "output has " + std::to_string(output.num_elements()) + " elements, the axes keep " +
              std::to_string(kept));
  params.count = static_cast<int32_t>(count);

  // TFLite Micro rescales even when input and output share their
  // quantization (the multiplier is then 2^30 with shift 1 before folding).
  require(input.quant.scale() > 0 && output.quant.scale() > 0, op,
          "input and output scales must be positive");
  params.input_zero_point = input.quant.zero_point();
  params.output_zero_point = output.quant.zero_point();
  if (target.rounding == Rounding::kOnnx) {
    // QLinearGlobalAveragePool: the integer sum minus zero point x count,
    // times onnxruntime's float32 multiplier (onnx_requantize.h).
    const std::optional<int32_t> bits = onnx_multiplier_bits(
        onnx_average_multiplier(input.quant.scale(), output.quant.scale(), count));
    require(bits.has_value(), op, "input/output scale ratio is not a finite float32");
    params.multiplier = *bits;
    params.shift = -1;
  } else {
    const double real =
        static_cast<double>(input.quant.scale()) / static_cast<double>(output.quant.scale());
    const QuantizedMultiplier q = fold_count(quantize_multiplier(real, target.rounding), count);
    require(q.shift >= -31 && q.shift <= 30, op,
            "input/output scale ratio is out of the requantizable range");
    params.multiplier = q.multiplier;
    params.shift = q.shift;
  }

  return lower_single_input(
      int16 ? KernelId::mean_s16_ref : choose_variant(kMeanVariants, params, target), params, op);
}

}  // namespace tinyaot
