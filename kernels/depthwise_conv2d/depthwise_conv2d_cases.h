// Shape cases of DEPTHWISE_CONV_2D's variants and the operand checks they
// share (freestanding, header-only). Each case predicate is written once:
// the compiler's variant chooser asks it and the variant's validate refuses
// params outside it.
#pragma once

#include <stdint.h>

#include "kernels/common/quant.h"
#include "kernels/common/validate.h"
#include "kernels/conv2d/window_checks.h"
#include "kernels/depthwise_conv2d/depthwise_conv2d.h"

namespace tinyaot {

// Operand sizes and value ranges every variant needs; the reference
// kernel's validate is exactly this.
inline Status validate_depthwise_conv2d_operands(const DepthwiseConv2dParams& p,
                                                 const OperandView* inputs, uint32_t num_inputs,
                                                 const OperandView* outputs, uint32_t num_outputs) {
  if (num_inputs != 3 || num_outputs != 1) return Status::kBadParams;
  if (p.batches < 1 || p.input_depth < 1 || p.depth_multiplier < 1) return Status::kBadParams;
  if (!is_window_axis(p.input_h, p.filter_h, p.output_h, p.stride_h, p.dilation_h, p.pad_top) ||
      !is_window_axis(p.input_w, p.filter_w, p.output_w, p.stride_w, p.dilation_w, p.pad_left))
    return Status::kBadParams;
  int64_t output_depth;
  if (!checked_mul(p.input_depth, p.depth_multiplier, &output_depth)) return Status::kBadParams;
  const int32_t depth = static_cast<int32_t>(output_depth);
  const int32_t input_dims[] = {p.batches, p.input_h, p.input_w, p.input_depth};
  const int32_t filter_dims[] = {p.filter_h, p.filter_w, depth};
  const int32_t output_dims[] = {p.batches, p.output_h, p.output_w, depth};
  const int64_t input_size = checked_elements(input_dims, 4);
  const int64_t filter_size = checked_elements(filter_dims, 3);
  const int64_t output_size = checked_elements(output_dims, 4);
  if (input_size < 0 || filter_size < 0 || output_size < 0) return Status::kBadParams;
  if (inputs[0].bytes != input_size || inputs[1].bytes != filter_size ||
      !is_channel_quant_operand(inputs[2], output_depth) || outputs[0].bytes != output_size)
    return Status::kBadParams;
  if (p.input_offset < -127 || p.input_offset > 128 || p.output_offset < -128 ||
      p.output_offset > 127 || !is_activation_range(p.act_min, p.act_max))
    return Status::kBadParams;
  return Status::kOk;
}

// The common MobileNet block: one 3x3 filter per channel, adjacent taps.
inline bool is_depthwise_3x3_case(const DepthwiseConv2dParams& p) {
  return p.filter_h == 3 && p.filter_w == 3 && p.depth_multiplier == 1 && p.dilation_h == 1 &&
         p.dilation_w == 1;
}

// Depth multiplier 1 (output channel c reads input channel c), any filter,
// stride, padding and dilation: the DSP variant's four-channel groups.
inline bool is_depthwise_dsp_case(const DepthwiseConv2dParams& p) {
  return p.depth_multiplier == 1;
}

// The DSP variant's weight layout, in the order its loop reads them: the
// channels in groups of four, each group's taps [filter_h][filter_w][4]
// one group after the other, then the channels past the last group as
// [filter_h][filter_w][input_depth % 4]. Same size as the model's
// [filter_h][filter_w][input_depth]; `tap` is ky * filter_w + kx.
constexpr int32_t kDepthwiseDspGroup = 4;

inline int32_t depthwise_dsp_weight_position(int32_t taps, int32_t depth, int32_t tap,
                                             int32_t channel) {
  const int32_t grouped = depth - depth % kDepthwiseDspGroup;
  if (channel < grouped) {
    const int32_t lane = channel % kDepthwiseDspGroup;
    return (channel - lane) * taps + tap * kDepthwiseDspGroup + lane;
  }
  return grouped * taps + tap * (depth - grouped) + channel - grouped;
}

// Model-order weights into that layout (`ordered` as large as `model`).
inline void order_depthwise_dsp_weights(const DepthwiseConv2dParams& p, const int8_t* model,
                                        int8_t* ordered) {
  const int32_t taps = p.filter_h * p.filter_w;
  const int32_t depth = p.input_depth;
  for (int32_t tap = 0; tap < taps; ++tap)
    for (int32_t c = 0; c < depth; ++c)
      ordered[depthwise_dsp_weight_position(taps, depth, tap, c)] = model[tap * depth + c];
}

// Variants that take their weights in the DSP layout above.
inline bool depthwise_variant_orders_weights(const KernelDescriptor* kernel) {
  return kernel == &kernel_depthwise_conv2d_s8_dsp;
}

}  // namespace tinyaot
