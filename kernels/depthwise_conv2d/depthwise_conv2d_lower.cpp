// Lowering of DEPTHWISE_CONV_2D: resolves TFLite's padding (or the explicit
// padding a folded PAD left), checks the model's output shape against it and
// precomputes per-channel bias, multiplier and shift, then picks the
// cheapest variant the target's ISA class has for the shape.
#include "kernels/common/lower_helpers.h"
#include "kernels/common/padding.h"
#include "kernels/common/variant_choice.h"
#include "kernels/depthwise_conv2d/depthwise_conv2d.h"
#include "kernels/depthwise_conv2d/depthwise_conv2d_cases.h"
#include "kernels/depthwise_conv2d/depthwise_conv2d_s16_channels.h"

namespace tinyaot {
namespace {

uint64_t outputs(const DepthwiseConv2dParams& p) {
  return uint64_t(p.batches) * uint64_t(p.output_h) * uint64_t(p.output_w) *
         uint64_t(p.input_depth) * uint64_t(p.depth_multiplier);
}

// Rough cycle models; only their ordering matters. The reference checks
// both bounds of every tap for every channel.
uint64_t reference_cost(const DepthwiseConv2dParams& p) {
  const uint64_t taps = uint64_t(p.filter_h) * uint64_t(p.filter_w);
  return outputs(p) * (8 * taps + 12);
}

// Bounds once per pixel; per tap a load pair, add and multiply-accumulate
// into a block of sums kept on the stack.
uint64_t filter_3x3_cost(const DepthwiseConv2dParams& p) { return outputs(p) * (4 * 9 + 10); }

// The same loop for any window: a little more per output than the 3x3
// variant, which knows its filter width.
uint64_t scalar_cost(const DepthwiseConv2dParams& p) {
  const uint64_t taps = uint64_t(p.filter_h) * uint64_t(p.filter_w);
  return outputs(p) * (4 * taps + 12);
}

// Window rectangle once per pixel; per tap and four outputs one input
// load, two SXTAB16, one LDRD of the weights (widened once per group on
// the stack) and four SMLAxy.
uint64_t dsp_cost(const DepthwiseConv2dParams& p) {
  const uint64_t taps = uint64_t(p.filter_h) * uint64_t(p.filter_w);
  return outputs(p) * (2 * taps + 10);
}

// Per output an eight-tap gather, weight load and VMLADAV per chunk, a
// share of the ninth tap and of the vector output step.
uint64_t mve_cost(const DepthwiseConv2dParams& p) {
  const uint64_t taps = uint64_t(p.filter_h) * uint64_t(p.filter_w);
  return outputs(p) * (taps + 6);
}

const VariantCandidate<DepthwiseConv2dParams> kVariants[] = {
    {KernelId::depthwise_conv2d_s8_ref, nullptr, reference_cost},
    {KernelId::depthwise_conv2d_s8_3x3, is_depthwise_3x3_case, filter_3x3_cost},
    {KernelId::depthwise_conv2d_s8_scalar, nullptr, scalar_cost},
    {KernelId::depthwise_conv2d_s8_dsp_3x3, is_depthwise_dsp_3x3_case, dsp_cost},  // first: ties
    {KernelId::depthwise_conv2d_s8_dsp, is_depthwise_dsp_case, dsp_cost},
    {KernelId::depthwise_conv2d_s8_mve, is_depthwise_mve_case, mve_cost},
};

// int16x8: the reference bounds-checks every tap and indexes both
// operands; the fast variants clip the window once per pixel and step
// pointers. Measured on a 3x3 layer of 32 channels with an int64 bias
// (QEMU, the output step included), instructions a MAC: reference 39,
// scalar 15.7 (M4), MVE 13.6 (M55).
uint64_t s16_depthwise_cost(const DepthwiseConv2dParams& p, uint64_t tenths_per_mac) {
  const uint64_t macs = uint64_t(p.batches) * uint64_t(p.output_h) * uint64_t(p.output_w) *
                        uint64_t(p.input_depth) * uint64_t(p.depth_multiplier) *
                        uint64_t(p.filter_h) * uint64_t(p.filter_w);
  return macs * tenths_per_mac / 10;
}

uint64_t s16_reference_cost(const DepthwiseConv2dParams& p) { return s16_depthwise_cost(p, 390); }
uint64_t s16_scalar_cost(const DepthwiseConv2dParams& p) { return s16_depthwise_cost(p, 157); }
uint64_t s16_mve_cost(const DepthwiseConv2dParams& p) { return s16_depthwise_cost(p, 136); }

bool is_s16_fast_case(const DepthwiseConv2dParams& p) { return is_depthwise_s16_fast_case(p); }

const VariantCandidate<DepthwiseConv2dParams> kS16Variants[] = {
    {KernelId::depthwise_conv2d_s16_ref, nullptr, s16_reference_cost},
    {KernelId::depthwise_conv2d_s16_scalar, is_s16_fast_case, s16_scalar_cost},
    {KernelId::depthwise_conv2d_s16_mve, is_s16_fast_case, s16_mve_cost},
};

}  // namespace

LoweredOp lower_depthwise_conv2d(const Graph& graph, const Operation& op, const Target& target) {
  const Tensor& input = input_tensor(graph, op, 0);
  const Tensor& filter = input_tensor(graph, op, 1);
  const Tensor& output = output_tensor(graph, op);
  const bool int16 = is_int16x8(graph, op, target);
  require(input.shape.size() == 4 && output.shape.size() == 4, op,
          "input and output must be 4-D NHWC");
  require(filter.is_constant() && filter.dtype == DType::kInt8, op,
          "weights must be a constant int8 tensor");
  require(filter.shape.size() == 4 && filter.shape[0] == 1, op,
          "weights must be 4-D [1, kh, kw, channels]");
  constant_i8(filter, op);  // checks the constant holds as many bytes as its shape
  const int32_t channels = filter.shape[3];
  const int32_t input_depth = input.shape[3];
  // The multiplier comes from the shapes, which are what the kernel indexes;
  // the depth_multiplier option only repeats them.
  require(input_depth >= 1 && channels >= 1 && channels % input_depth == 0, op,
          "weights' channels must be a multiple of the input channels");
  const int32_t depth_multiplier = channels / input_depth;
  require(output.shape[0] == input.shape[0] && output.shape[3] == channels, op,
          "output shape must be [batches, h, w, channels]");

  const Quantization& weights_quant = filter.quant;
  // As TFLite Micro: per-channel scales count the output channels
  // (dimension 3); the tensor's quantized_dimension is not read.
  require(weights_quant.scales.size() == 1 ||
              static_cast<int32_t>(weights_quant.scales.size()) == channels,
          op, "weights need one scale, or one per output channel");
  for (int64_t zero_point : weights_quant.zero_points)
    require(zero_point == 0, op, "weights must be symmetric (zero point 0)");
  std::vector<int32_t> bias;
  if (has_input(op, 2) && !int16) {
    bias = constant_i32(input_tensor(graph, op, 2), op);
    require(static_cast<int32_t>(bias.size()) == channels, op,
            "bias size differs from the output channels");
  }

  Window2d window;
  window.filter_h = filter.shape[1];
  window.filter_w = filter.shape[2];
  window.stride_h = op.attrs.stride_h;
  window.stride_w = op.attrs.stride_w;
  window.dilation_h = op.attrs.dilation_h;
  window.dilation_w = op.attrs.dilation_w;
  require(window.stride_h >= 1 && window.stride_w >= 1, op, "strides must be positive");
  require(window.dilation_h >= 1 && window.dilation_w >= 1, op, "dilations must be positive");
  const Padding2d padding = resolve_padding(op.attrs, input.shape[1], input.shape[2], window);
  require(padding.out_h >= 1 && padding.out_w >= 1, op, "the filter does not fit the input");
  require(padding.out_h == output.shape[1] && padding.out_w == output.shape[2], op,
          "output is " + std::to_string(output.shape[1]) + "x" + std::to_string(output.shape[2]) +
              ", the padding and strides give " + std::to_string(padding.out_h) + "x" +
              std::to_string(padding.out_w));

  DepthwiseConv2dParams params{};
  params.batches = input.shape[0];
  params.input_h = input.shape[1];
  params.input_w = input.shape[2];
  params.input_depth = input_depth;
  params.depth_multiplier = depth_multiplier;
  params.filter_h = window.filter_h;
  params.filter_w = window.filter_w;
  params.output_h = padding.out_h;
  params.output_w = padding.out_w;
  params.stride_h = window.stride_h;
  params.stride_w = window.stride_w;
  params.dilation_h = window.dilation_h;
  params.dilation_w = window.dilation_w;
  params.pad_top = padding.top;
  params.pad_left = padding.left;
  params.input_offset = -input.quant.zero_point();
  params.output_offset = output.quant.zero_point();
  params.act_min = op.act_min;
  params.act_max = op.act_max;

  if (int16)
    return lower_int16x8_weighted(choose_variant(kS16Variants, params, target), params, graph, op,
                                  target, channels);

  std::vector<ChannelQuant> quant = channel_quant(
      input.quant.scale(), weights_quant, output.quant.scale(), bias, channels, target.rounding);
  const KernelId kernel = choose_weighted_variant(kVariants, params, target, quant);
  LoweredOperand weights = LoweredOperand::of_tensor(op.inputs[1]);
  const KernelDescriptor* descriptor = find_kernel(static_cast<uint32_t>(kernel));
  const std::vector<int8_t> model = constant_i8(filter, op);
  if (depthwise_variant_folds_input_offset(descriptor))
    fold_depthwise_input_offset(params, model.data(), quant.data());
  std::vector<int8_t> ordered(model.size() * size_t(depthwise_weight_bytes(descriptor)));
  if (order_depthwise_weights(descriptor, params, model.data(), ordered.data()))
    weights = LoweredOperand::of_values(ordered);
  LoweredOp lowered = make_lowered(kernel, params);
  lowered.inputs = {LoweredOperand::of_tensor(op.inputs[0]), weights,
                    LoweredOperand::of_values(quant)};
  lowered.outputs = {op.outputs[0]};
  return lowered;
}

}  // namespace tinyaot
