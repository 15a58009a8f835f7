// Lowering of TRANSPOSE_CONV: reads the static output shape, derives the
// leading padding the way TFLite does (as for a convolution whose input is
// this operator's output), folds bias and per-channel rescale into
// ChannelQuant constants, then picks the cheapest variant the target's ISA
// class has (the MVE variant's weights laid out here).
#include <algorithm>

#include "kernels/common/lower_helpers.h"
#include "kernels/common/padding.h"
#include "kernels/common/variant_choice.h"
#include "kernels/transpose_conv/transpose_conv.h"
#include "kernels/transpose_conv/transpose_conv_mve_layout.h"

namespace tinyaot {
namespace {

// Rough cycle models; only their ordering matters. The reference scatters
// every input pixel through every tap: two loads, an add and a
// multiply-accumulate per MAC, a read-modify-write of the accumulator per
// tap and output channel, then zeroes and requantizes the whole output.
uint64_t reference_cost(const TransposeConvParams& p) {
  const uint64_t pixels = uint64_t(p.batches) * uint64_t(p.input_h) * uint64_t(p.input_w);
  const uint64_t taps = uint64_t(p.filter_h) * uint64_t(p.filter_w);
  const uint64_t outputs =
      uint64_t(p.batches) * uint64_t(p.output_h) * uint64_t(p.output_w) * uint64_t(p.output_depth);
  const uint64_t pairs = pixels * taps * uint64_t(p.output_depth);
  return 4 * pairs * uint64_t(p.input_depth) + 6 * pairs + 17 * outputs;
}

// The gather per group of four channels: per tap that reaches a pixel (at
// most every input pixel's taps) ten instructions per 16 input channels,
// 15 for a predicated tail, 8 for the tap's offset sum and pointers; about
// 40 per pixel for the taps' ranges and the vector output step.
uint64_t mve_cost(const TransposeConvParams& p) {
  const uint64_t groups = (uint64_t(p.output_depth) + kMveRows - 1) / kMveRows;
  const uint64_t pixels = uint64_t(p.batches) * uint64_t(p.input_h) * uint64_t(p.input_w);
  const uint64_t taps = uint64_t(p.filter_h) * uint64_t(p.filter_w);
  const uint64_t outputs = uint64_t(p.batches) * uint64_t(p.output_h) * uint64_t(p.output_w);
  const uint64_t per_tap =
      10 * uint64_t(p.input_depth / kMveBlock) + (p.input_depth % kMveBlock != 0 ? 15 : 0) + 8;
  return groups * (pixels * taps * per_tap + 40 * outputs);
}

const VariantCandidate<TransposeConvParams> kVariants[] = {
    {KernelId::transpose_conv_s8_ref, nullptr, reference_cost},
    {KernelId::transpose_conv_s8_mve, is_transpose_conv_mve_case, mve_cost},
};

}  // namespace

LoweredOp lower_transpose_conv(const Graph& graph, const Operation& op, const Target& target) {
  // TFLite's operand order: output_shape, weights, input, optional bias.
  const Tensor& shape_tensor = input_tensor(graph, op, 0);
  const Tensor& filter = input_tensor(graph, op, 1);
  const Tensor& input = input_tensor(graph, op, 2);
  const Tensor& output = output_tensor(graph, op);
  require(
      (input.dtype == DType::kInt8 || input.dtype == DType::kInt16) && output.dtype == input.dtype,
      op, "input and output must be both int8 or both int16");
  require(filter.is_constant() && filter.dtype == DType::kInt8, op,
          "weights must be constant int8");
  require(input.shape.size() == 4 && filter.shape.size() == 4 && output.shape.size() == 4, op,
          "input, weights and output must be 4-D");
  for (const Tensor* t : {&input, &filter, &output})
    require(std::all_of(t->shape.begin(), t->shape.end(), [](int32_t d) { return d > 0; }), op,
            "every dimension must be positive");
  const std::vector<int32_t> output_shape = constant_i32(shape_tensor, op);
  require(output_shape == output.shape, op,
          "output_shape operand differs from the output tensor's shape");

  const int32_t out_channels = filter.shape[0];
  require(filter.shape[3] == input.shape[3], op, "weights' depth differs from the input depth");
  require(output.shape[3] == out_channels, op, "output depth differs from the weights' count");
  require(output.shape[0] == input.shape[0], op, "batch of input and output differ");
  require(filter.quant.scales.size() == 1 ||
              static_cast<int32_t>(filter.quant.scales.size()) == out_channels,
          op, "weights need one scale or one per output channel");
  for (int64_t zp : filter.quant.zero_points)
    require(zp == 0, op, "weights must be symmetric (zero point 0)");

  const bool int16 = input.dtype == DType::kInt16;
  require(!int16 || target.rounding != Rounding::kOnnx, op,
          "rounding mode onnx has no int16 operators; compile with --rounding tflm");
  std::vector<int32_t> bias;
  if (has_input(op, 3) && !int16) {
    bias = constant_i32(input_tensor(graph, op, 3), op);
    require(static_cast<int32_t>(bias.size()) == out_channels, op,
            "bias size differs from the output channels");
  }

  Window2d window;
  window.filter_h = filter.shape[1];
  window.filter_w = filter.shape[2];
  window.stride_h = op.attrs.stride_h;
  window.stride_w = op.attrs.stride_w;
  // TFLite's padding is computed as a convolution's over the output; ONNX's
  // explicit pads (the importer's) are the amounts cut from the full
  // transposed output's top and left.
  Padding2d padding = compute_padding(op.attrs.padding, output.shape[1], output.shape[2], window);
  if (op.attrs.explicit_padding) {
    padding.top = op.attrs.pad_top;
    padding.left = op.attrs.pad_left;
  } else {
    // TFLite's rule degenerates when the output is smaller than the filter
    // under VALID; no converter emits that, so refuse rather than guess.
    require(padding.out_h > 0 && padding.out_w > 0, op,
            "output smaller than the filter for VALID padding");
  }

  TransposeConvParams params{};
  params.batches = input.shape[0];
  params.input_h = input.shape[1];
  params.input_w = input.shape[2];
  params.input_depth = input.shape[3];
  params.filter_h = filter.shape[1];
  params.filter_w = filter.shape[2];
  params.output_h = output.shape[1];
  params.output_w = output.shape[2];
  params.output_depth = out_channels;
  params.stride_h = op.attrs.stride_h;
  params.stride_w = op.attrs.stride_w;
  params.pad_top = padding.top;
  params.pad_left = padding.left;
  params.input_offset = -input.quant.zero_point();
  params.output_offset = output.quant.zero_point();
  params.act_min = op.act_min;
  params.act_max = op.act_max;
  require(transpose_conv_s8_ref_scratch_bytes(params) != UINT32_MAX &&
              (!int16 || transpose_conv_s16_ref_scratch_bytes(params) != UINT32_MAX),
          op, "output too large for an accumulator buffer");
  if (int16) {
    LoweredOp lowered = make_lowered(KernelId::transpose_conv_s16_ref, params);
    lowered.inputs = {LoweredOperand::of_tensor(op.inputs[2]),
                      LoweredOperand::of_tensor(op.inputs[1])};
    for (LoweredOperand& operand : int16x8_quant_operands(graph, op, 2, 3, target, out_channels))
      lowered.inputs.push_back(std::move(operand));
    lowered.outputs = {op.outputs[0]};
    return lowered;
  }

  const std::vector<ChannelQuant> quant = channel_quant(
      input.quant.scale(), filter.quant, output.quant.scale(), bias, out_channels, target.rounding);
  const KernelId kernel = choose_weighted_variant(kVariants, params, target, quant);
  LoweredOp lowered = make_lowered(kernel, params);
  lowered.inputs = {LoweredOperand::of_tensor(op.inputs[2]),
                    LoweredOperand::of_tensor(op.inputs[1]), LoweredOperand::of_values(quant)};
  if (kernel == KernelId::transpose_conv_s8_mve) {
    const std::vector<int8_t> model_weights = constant_i8(filter, op);
    std::vector<int8_t> ordered(static_cast<size_t>(transpose_conv_mve_weight_bytes(params)));
    order_transpose_conv_mve_weights(params, model_weights.data(), ordered.data());
    lowered.inputs[1] = LoweredOperand::of_values(ordered);
  }
  lowered.outputs = {op.outputs[0]};
  return lowered;
}

}  // namespace tinyaot
