// Lowering of CONV_2D: resolves TFLite's padding (or the explicit padding a
// folded PAD left), checks the model's output shape against it and
// precomputes per-channel bias, multiplier and shift, then picks the
// cheapest variant the target's ISA class has for the shape.
#include "kernels/common/kernel_sums.h"
#include "kernels/common/lower_helpers.h"
#include "kernels/common/padding.h"
#include "kernels/common/variant_choice.h"
#include "kernels/conv2d/conv2d.h"
#include "kernels/conv2d/conv2d_cases.h"
#include "kernels/conv2d/gemm_blocks.h"

namespace tinyaot {
namespace {

// Rough cycle models (loads, multiply-accumulates, loop and requantization
// overhead); only their ordering matters.
struct ConvCounts {
  uint64_t pixels, outputs, taps, macs;
};

ConvCounts counts(const Conv2dParams& p) {
  ConvCounts c;
  c.pixels = uint64_t(p.batches) * uint64_t(p.output_h) * uint64_t(p.output_w);
  c.outputs = c.pixels * uint64_t(p.output_depth);
  c.taps = uint64_t(p.filter_h) * uint64_t(p.filter_w);
  c.macs = c.outputs * c.taps * uint64_t(p.filter_depth);
  return c;
}

// Two loads, an add and a multiply-accumulate per MAC; a bounds check per
// tap; a requantization per output.
uint64_t reference_cost(const Conv2dParams& p) {
  const ConvCounts c = counts(p);
  return 4 * c.macs + 4 * c.outputs * c.taps + 12 * c.outputs;
}

// The DSP variant's inner loop (two pixels per weight load, offset folded
// into the bias) without its window copy.
uint64_t pointwise_cost(const Conv2dParams& p) {
  const ConvCounts c = counts(p);
  return 3 * c.macs / 4 + 10 * c.outputs;
}

// The window copied into an int8 column per pixel, filter row by filter
// row in whole words (about an instruction a byte, 12 a row, 40 a pixel
// for the call and the edge checks; measured on M4: about 105 a pixel for
// a 3x3 window over three channels), nothing when every window is a run of
// the input read where it lies; then the 2x2 blocks over the whole column
// (one segment: few scalar tails even with one to three input channels).
uint64_t im2col_dsp_cost(const Conv2dParams& p) {
  const ConvCounts c = counts(p);
  const uint64_t copy =
      is_conv2d_run_window(p) && conv2d_windows_inside(p)
          ? 0
          : c.pixels * (uint64_t(conv2d_column_length(p)) + 12 * uint64_t(p.filter_h) + 40);
  return copy + 11 * c.macs / 8 + 10 * c.outputs;
}

// The 2x2 blocks over each tap's channels where they lie: 22 instructions
// per 16 MACs on a DSP core for whole chunks of four channels, about three
// per MAC for the rest, the pointer arithmetic of each tap once per channel
// pair and pixel pair, no copy (measured on M4: 2.0-2.5 instructions per
// MAC for a 3x3 window over 16-64 channels, 10.5 over 3 channels).
uint64_t window_cost(const Conv2dParams& p) {
  const ConvCounts c = counts(p);
  const uint64_t tail_macs = c.outputs * c.taps * uint64_t(p.filter_depth % 4);
  return 11 * (c.macs - tail_macs) / 8 + 3 * tail_macs + 5 * c.outputs * c.taps + 10 * c.outputs;
}

// The MVE matrix multiply (gemm_mve.h) per input row and group of four
// channels: ten instructions per 16 values (one input load, four weight
// loads, four VMLADAVA, LE), 15 for a predicated tail, about 35 for the
// group's output step and loop.
uint64_t mve_group_cost(uint64_t depth) {
  return 10 * (depth / 16) + (depth % 16 != 0 ? 15 : 0) + 35;
}

uint64_t mve_groups(const Conv2dParams& p) { return (uint64_t(p.output_depth) + 3) / 4; }

// Per pixel the window copied into one column (about an instruction a
// word, 12 a filter row, 40 a pixel and its call, as the DSP copy), then
// the matrix multiply. Measured on M55: resnet's 3x3 layers 0.19-0.33
// instructions a MAC, kws's 10x4 over one channel 0.60.
uint64_t im2col_mve_cost(const Conv2dParams& p) {
  const ConvCounts c = counts(p);
  const uint64_t column = uint64_t(conv2d_column_length(p));
  return c.pixels * (column / 4 + 12 * uint64_t(p.filter_h) + 40 +
                     mve_groups(p) * (mve_group_cost(column) + 10));
}

// The same matrix multiply over each input pixel where it lies, no copy:
// below the im2col variant's cost for any shape. Measured on M55: kws's
// 64->64 layers 0.28 instructions a MAC, vww's 0.19-0.64 (0.88 over 8
// channels).
uint64_t pointwise_mve_cost(const Conv2dParams& p) {
  const ConvCounts c = counts(p);
  return c.pixels * mve_groups(p) * mve_group_cost(uint64_t(p.input_depth));
}

// Output pixels whose window lies wholly inside the input.
uint64_t inner_pixels(const Conv2dParams& p) {
  const auto inside = [](int32_t input, int32_t filter, int32_t stride, int32_t dilation,
                         int32_t pad, int32_t output) {
    const int64_t last = int64_t{input} - 1 - (int64_t{filter} - 1) * dilation;
    int64_t count = 0;
    for (int64_t o = 0, origin = -pad; o < output; ++o, origin += stride)
      count += origin >= 0 && origin <= last;
    return uint64_t(count);
  };
  return uint64_t(p.batches) *
         inside(p.input_h, p.filter_h, p.stride_h, p.dilation_h, p.pad_top, p.output_h) *
         inside(p.input_w, p.filter_w, p.stride_w, p.dilation_w, p.pad_left, p.output_w);
}

// Per pixel and group of four channels: per 16-byte block of each window
// segment one input load, four weight loads and four VMLADAVA with the
// loop's LE (10), 8 to start each segment (2 where a segment is one
// block: no block loop), 40 for the group's sums and its vector output
// step; at an edge up to 8 more a block (a partly clipped row's predicated
// loads). Inner pixels in window pairs (rows of one segment, runs of two
// or more) 8 a block (16 for both windows), 3 a row, 30 for the group;
// not counted for a pointwise layer, where the pairs are unmeasured
// against conv2d_s8_1x1_mve. 135 a pixel (the calls, the window's place).
// Measured on M55 before the pairs within 15 %: resnet's 3x3 layers
// 0.25-0.37 instructions a MAC, its first layer 1.14, kws's first (10x4
// over one channel, half its windows at an edge) 1.23, vww's first 1.40;
// with them resnet's op 2 0.27.
uint64_t window_mve_cost(const Conv2dParams& p) {
  const ConvCounts c = counts(p);
  const WindowMveShape s = window_mve_shape(p);
  const uint64_t segments = uint64_t(p.filter_h) * uint64_t(s.per_row);
  const uint64_t blocks = segments * uint64_t(s.blocks);
  const uint64_t inner = inner_pixels(p);
  const uint64_t edges = c.pixels - inner;
  const uint64_t start = s.blocks == 1 ? 2 : 8;
  const uint64_t single = 10 * blocks + start * segments + 40;
  const bool pairs =
      s.per_row == 1 && 2 * s.groups <= kWindowMveChunkGroups && !is_conv2d_pointwise_case(p);
  const uint64_t sums =
      pairs ? inner * (8 * blocks + 3 * segments + 30) + edges * single : c.pixels * single;
  return uint64_t(s.groups) * (sums + edges * 8 * blocks) + 135 * c.pixels;
}

// int16x8: the reference as the int8 one; the fast variants a dot
// product per window row (a tap when the taps are not side by side) and
// per block of channels, at the instructions per MAC of the FULLY_CONNECTED
// ones (fully_connected_lower.cpp): 6 per four on DSP, 3 per eight on MVE.
uint64_t s16_window_cost(const Conv2dParams& p, uint64_t per_block, uint64_t block) {
  const ConvCounts c = counts(p);
  const bool side_by_side = p.dilation_w == 1 && p.filter_depth == p.input_depth;
  const uint64_t runs =
      c.outputs * uint64_t(p.filter_h) * (side_by_side ? 1 : uint64_t(p.filter_w));
  return c.macs / block * per_block + 8 * runs + 20 * c.outputs;
}

uint64_t s16_dsp_cost(const Conv2dParams& p) { return s16_window_cost(p, 6, 4); }
uint64_t s16_mve_cost(const Conv2dParams& p) { return s16_window_cost(p, 3, 8); }

const VariantCandidate<Conv2dParams> kS16Variants[] = {
    {KernelId::conv2d_s16_ref, nullptr, reference_cost},
    {KernelId::conv2d_s16_dsp, nullptr, s16_dsp_cost},
    {KernelId::conv2d_s16_mve, nullptr, s16_mve_cost},
};

const VariantCandidate<Conv2dParams> kVariants[] = {
    {KernelId::conv2d_s8_ref, nullptr, reference_cost},
    {KernelId::conv2d_s8_1x1, is_conv2d_1x1_case, pointwise_cost},
    {KernelId::conv2d_s8_im2col, is_conv2d_im2col_case, im2col_dsp_cost},
    {KernelId::conv2d_s8_im2col_mve, is_conv2d_im2col_case, im2col_mve_cost},
    {KernelId::conv2d_s8_window, is_conv2d_im2col_case, window_cost},
    {KernelId::conv2d_s8_1x1_mve, is_conv2d_pointwise_case, pointwise_mve_cost},
    {KernelId::conv2d_s8_window_mve, is_conv2d_window_mve_case, window_mve_cost},
};

}  // namespace

LoweredOp lower_conv2d(const Graph& graph, const Operation& op, const Target& target) {
  const Tensor& input = input_tensor(graph, op, 0);
  const Tensor& filter = input_tensor(graph, op, 1);
  const Tensor& output = output_tensor(graph, op);
  const bool int16 = is_int16x8(graph, op, target);
  require(input.shape.size() == 4 && output.shape.size() == 4, op,
          "input and output must be 4-D NHWC");
  require(filter.is_constant() && filter.dtype == DType::kInt8, op,
          "weights must be a constant int8 tensor");
  require(filter.shape.size() == 4, op, "weights must be 4-D [out_channels, kh, kw, in_channels]");
  constant_i8(filter, op);  // checks the constant holds as many bytes as its shape
  const int32_t channels = filter.shape[0];
  const int32_t filter_depth = filter.shape[3];
  const int32_t input_depth = input.shape[3];
  require(channels >= 1 && filter_depth >= 1 && input_depth % filter_depth == 0, op,
          "input channels must be a multiple of the weights' input channels");
  require(channels % (input_depth / filter_depth) == 0, op,
          "output channels must be a multiple of the number of groups");
  require(output.shape[0] == input.shape[0] && output.shape[3] == channels, op,
          "output shape must be [batches, h, w, out_channels]");

  const Quantization& weights_quant = filter.quant;
  // As TFLite Micro: per-channel scales count output channels (dimension
  // 0); the tensor's quantized_dimension is not read.
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

  Conv2dParams params{};
  params.batches = input.shape[0];
  params.input_h = input.shape[1];
  params.input_w = input.shape[2];
  params.input_depth = input_depth;
  params.filter_h = window.filter_h;
  params.filter_w = window.filter_w;
  params.filter_depth = filter_depth;
  params.output_h = padding.out_h;
  params.output_w = padding.out_w;
  params.output_depth = channels;
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
  const KernelDescriptor* descriptor = find_kernel(static_cast<uint32_t>(kernel));
  const int32_t row_length = static_cast<int32_t>(conv2d_column_length(params));
  const std::vector<int8_t> model_weights = constant_i8(filter, op);
  if (conv2d_variant_folds_input_offset(descriptor))
    fold_input_offset(quant.data(), channels, model_weights.data(), row_length,
                      params.input_offset);
  LoweredOperand weights = LoweredOperand::of_tensor(op.inputs[1]);
  if (conv2d_variant_orders_weights(descriptor, params)) {
    std::vector<int8_t> ordered(static_cast<size_t>(conv2d_weight_bytes(descriptor, params)));
    order_conv2d_weights(descriptor, params, model_weights.data(), ordered.data());
    weights = LoweredOperand::of_values(ordered);
  }
  LoweredOp lowered = make_lowered(kernel, params);
  lowered.inputs = {LoweredOperand::of_tensor(op.inputs[0]), weights,
                    LoweredOperand::of_values(quant)};
  if (conv2d_variant_takes_pad_row(descriptor))
    lowered.inputs.push_back(LoweredOperand::of_values(std::vector<int8_t>(
        static_cast<size_t>(input_depth), static_cast<int8_t>(-params.input_offset))));
  lowered.outputs = {op.outputs[0]};
  return lowered;
}

}  // namespace tinyaot
