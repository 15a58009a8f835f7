// Lowering of AVERAGE_POOL_2D and MAX_POOL_2D: TFLite's SAME / VALID window
// arithmetic (or ONNX's explicit padding), with the output size checked
// against the model's.
#include <cmath>

#include "kernels/common/lower_helpers.h"
#include "kernels/common/padding.h"
#include "kernels/common/variant_choice.h"
#include "kernels/lowerings.h"
#include "kernels/pooling/onnx_average.h"
#include "kernels/pooling/pool_cases.h"
#include "kernels/pooling/pooling.h"

namespace tinyaot {
namespace {

Pool2dParams pool_params(const Graph& graph, const Operation& op, const Target& target) {
  const Tensor& input = input_tensor(graph, op, 0);
  const Tensor& output = output_tensor(graph, op);
  require(
      input.dtype == output.dtype && (input.dtype == DType::kInt8 || input.dtype == DType::kInt16),
      op, "input and output must be both int8 or both int16");
  require(input.dtype == DType::kInt8 || target.rounding != Rounding::kOnnx, op,
          "rounding mode onnx has no int16 operators; compile with --rounding tflm");
  require(input.shape.size() == 4 && output.shape.size() == 4, op,
          "input and output must be 4-D (NHWC)");
  // TFLite Micro pools the quantized values as they are: its Prepare
  // requires equal zero points and scales within 1e-6 of each other.
  require(std::fabs(input.quant.scale() - output.quant.scale()) <= 1e-6f &&
              input.quant.zero_point() == output.quant.zero_point(),
          op, "input and output quantization must be equal (scales within 1e-6)");
  Window2d window;
  window.filter_h = op.attrs.filter_h;
  window.filter_w = op.attrs.filter_w;
  window.stride_h = op.attrs.stride_h;
  window.stride_w = op.attrs.stride_w;
  require(
      window.filter_h >= 1 && window.filter_w >= 1 && window.stride_h >= 1 && window.stride_w >= 1,
      op, "filter and stride must be positive");
  // Explicit padding (ONNX's pads) skips the cells outside the input, as
  // SAME does: ONNX's MaxPool never picks its padding, and its AveragePool
  // (count_include_pad 0, the only kind imported) does not count it. No
  // pass folds a PAD into a pool: that would count the padded cells.
  const Padding2d padding = resolve_padding(op.attrs, input.shape[1], input.shape[2], window);
  require(padding.out_h > 0 && padding.out_w > 0, op, "the window does not fit the input");
  require(output.shape[0] == input.shape[0] && output.shape[3] == input.shape[3], op,
          "output batches and channels must equal the input's");
  require(output.shape[1] == padding.out_h && output.shape[2] == padding.out_w, op,
          "output is " + std::to_string(output.shape[1]) + "x" + std::to_string(output.shape[2]) +
              ", the window gives " + std::to_string(padding.out_h) + "x" +
              std::to_string(padding.out_w));

  Pool2dParams params{};
  params.batches = input.shape[0];
  params.input_h = input.shape[1];
  params.input_w = input.shape[2];
  params.channels = input.shape[3];
  params.output_h = padding.out_h;
  params.output_w = padding.out_w;
  params.filter_h = window.filter_h;
  params.filter_w = window.filter_w;
  params.stride_h = window.stride_h;
  params.stride_w = window.stride_w;
  params.pad_top = padding.top;
  params.pad_left = padding.left;
  params.act_min = op.act_min;
  params.act_max = op.act_max;
  return params;
}

// Rough instructions on a core with the DSP extension, per output pixel
// and channel: the reference reaches each cell with an index
// computation, a load and an add (or compare), about 8 per cell; the
// variants read four channels a word, about one instruction per cell and
// channel (twice that for 32-bit sums), and finish each average in about 8
// (the reciprocal and the clamp). Only the order matters.
uint64_t cell_visits(const Pool2dParams& p) {
  return uint64_t(p.batches) * uint64_t(p.output_h) * uint64_t(p.output_w) * uint64_t(p.channels) *
         uint64_t(pool_window_cells(p));
}

uint64_t outputs(const Pool2dParams& p) {
  return uint64_t(p.batches) * uint64_t(p.output_h) * uint64_t(p.output_w) * uint64_t(p.channels);
}

uint64_t reference_cost(const Pool2dParams& p) { return 8 * cell_visits(p) + 4 * outputs(p); }
uint64_t sum16_cost(const Pool2dParams& p) { return cell_visits(p) + 8 * outputs(p); }
uint64_t sum32_cost(const Pool2dParams& p) { return 2 * cell_visits(p) + 12 * outputs(p); }
uint64_t max_words_cost(const Pool2dParams& p) { return cell_visits(p) + 2 * outputs(p); }
// MVE: 16 channels a vector, about 6 instructions per cell (average; 4
// for max) and 32 per pixel to finish an average.
uint64_t mve_average_cost(const Pool2dParams& p) { return cell_visits(p) / 3 + 2 * outputs(p); }
uint64_t mve_max_cost(const Pool2dParams& p) { return cell_visits(p) / 4 + outputs(p) / 4; }

const VariantCandidate<Pool2dParams> kAveragePoolVariants[] = {
    {KernelId::avg_pool2d_s8_ref, nullptr, reference_cost},
    {KernelId::avg_pool2d_s8_sum16, is_avg_pool2d_sum16_case, sum16_cost},
    {KernelId::avg_pool2d_s8_sum32, nullptr, sum32_cost},
    {KernelId::avg_pool2d_s8_mve, is_avg_pool2d_sum16_case, mve_average_cost},
};

// onnxruntime's chain: the reference runs it per cell (soft-float calls
// without an FPU, about 10 FPU instructions with one); the variants sum as
// sum16 and avg_pool2d_s8_mve do and finish each output in about 16.
uint64_t onnx_reference_cost(const AvgPool2dOnnxParams& p) {
  return 12 * cell_visits(p.pool) + 20 * outputs(p.pool);
}
uint64_t onnx_sum16_cost(const AvgPool2dOnnxParams& p) {
  return cell_visits(p.pool) + 16 * outputs(p.pool);
}
uint64_t onnx_mve_cost(const AvgPool2dOnnxParams& p) {
  return cell_visits(p.pool) / 3 + 12 * outputs(p.pool);
}

const VariantCandidate<AvgPool2dOnnxParams> kOnnxAveragePoolVariants[] = {
    {KernelId::avg_pool2d_s8_onnx, nullptr, onnx_reference_cost},
    {KernelId::avg_pool2d_s8_onnx_sum16, is_avg_pool2d_onnx_sum_case, onnx_sum16_cost},
    {KernelId::avg_pool2d_s8_onnx_mve, is_avg_pool2d_onnx_sum_case, onnx_mve_cost},
};

const VariantCandidate<Pool2dParams> kMaxPoolVariants[] = {
    {KernelId::max_pool2d_s8_ref, nullptr, reference_cost},
    {KernelId::max_pool2d_s8_words, nullptr, max_words_cost},
    {KernelId::max_pool2d_s8_mve, nullptr, mve_max_cost},
};

// `int16_variant`: the reference int16 activations take.
template <size_t N>
LoweredOp lower_pool(const Graph& graph, const Operation& op, const Target& target,
                     const VariantCandidate<Pool2dParams> (&variants)[N], KernelId int16_variant) {
  const Pool2dParams params = pool_params(graph, op, target);
  const bool int16 = input_tensor(graph, op, 0).dtype == DType::kInt16;
  return lower_single_input(int16 ? int16_variant : choose_variant(variants, params, target),
                            params, op);
}

}  // namespace

LoweredOp lower_average_pool2d(const Graph& graph, const Operation& op, const Target& target) {
  if (target.rounding == Rounding::kOnnx) {
    // One window over the whole plane, no padding: ONNX's GlobalAveragePool
    // (its AveragePool always has explicit pads), which onnxruntime runs as
    // QLinearGlobalAveragePool: MEAN's arithmetic in mode onnx. Any other:
    // QLinearAveragePool's float32 chain.
    const Pool2dParams pool = pool_params(graph, op, target);
    if (!op.attrs.explicit_padding && pool.filter_h == pool.input_h &&
        pool.filter_w == pool.input_w && pool.output_h == 1 && pool.output_w == 1)
      return lower_mean_over(graph, op, target, {false, true, true, false});
    const Tensor& input = input_tensor(graph, op, 0);
    const std::optional<int32_t> scale_bits = onnx_multiplier_bits(input.quant.scale());
    require(scale_bits.has_value() && input.quant.scale() > 0.0f, op,
            "the input scale must be a positive float32");
    AvgPool2dOnnxParams params{pool, *scale_bits, input.quant.zero_point()};
    LoweredOp lowered =
        make_lowered(choose_variant(kOnnxAveragePoolVariants, params, target), params);
    lowered.inputs = {LoweredOperand::of_tensor(op.inputs[0])};
    lowered.outputs = {op.outputs[0]};
    return lowered;
  }
  return lower_pool(graph, op, target, kAveragePoolVariants, KernelId::avg_pool2d_s16_ref);
}

LoweredOp lower_max_pool2d(const Graph& graph, const Operation& op, const Target& target) {
  return lower_pool(graph, op, target, kMaxPoolVariants, KernelId::max_pool2d_s16_ref);
}

}  // namespace tinyaot
