// Lowering of TRANSPOSE_CONV: reads the static output shape, derives the
// leading padding the way TFLite does (as for a convolution whose input is
// this operator's output), and folds bias and per-channel rescale into
// ChannelQuant constants.
#include <algorithm>

#include "kernels/common/lower_helpers.h"
#include "kernels/common/padding.h"
#include "kernels/transpose_conv/transpose_conv.h"

namespace tinyaot {

LoweredOp lower_transpose_conv(const Graph& graph, const Operation& op, const Target& target) {
  // TFLite's operand order: output_shape, weights, input, optional bias.
  const Tensor& shape_tensor = input_tensor(graph, op, 0);
  const Tensor& filter = input_tensor(graph, op, 1);
  const Tensor& input = input_tensor(graph, op, 2);
  const Tensor& output = output_tensor(graph, op);
  require(input.dtype == DType::kInt8 && output.dtype == DType::kInt8, op,
          "only int8 input and output are supported");
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

  std::vector<int32_t> bias;
  if (has_input(op, 3)) {
    bias = constant_i32(input_tensor(graph, op, 3), op);
    require(static_cast<int32_t>(bias.size()) == out_channels, op,
            "bias size differs from the output channels");
  }

  Window2d window;
  window.filter_h = filter.shape[1];
  window.filter_w = filter.shape[2];
  window.stride_h = op.attrs.stride_h;
  window.stride_w = op.attrs.stride_w;
  const Padding2d padding =
      compute_padding(op.attrs.padding, output.shape[1], output.shape[2], window);
  // TFLite's rule degenerates when the output is smaller than the filter
  // under VALID; no converter emits that, so refuse rather than guess.
  require(padding.out_h > 0 && padding.out_w > 0, op,
          "output smaller than the filter for VALID padding");

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
  require(transpose_conv_s8_ref_scratch_bytes(params) != UINT32_MAX, op,
          "output too large for an int32 accumulator buffer");

  LoweredOp lowered = make_lowered(KernelId::transpose_conv_s8_ref, params);
  lowered.inputs = {LoweredOperand::of_tensor(op.inputs[2]),
                    LoweredOperand::of_tensor(op.inputs[1]),
                    LoweredOperand::of_values(channel_quant(input.quant.scale(), filter.quant,
                                                            output.quant.scale(), bias,
                                                            out_channels, target.rounding))};
  lowered.outputs = {op.outputs[0]};
  return lowered;
}

}  // namespace tinyaot
