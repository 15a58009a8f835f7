// DEPTHWISE_CONV_2D, int8, NHWC: output channel o = c * depth_multiplier + m
// reads input channel c only:
//   out = clamp(requant(sum over taps inside the input of
//               (in[c] + input_offset) * w[ky][kx][o] + bias[o]) + output_offset).
// Taps outside the input are skipped, as TFLite's reference kernel does.
#pragma once

#include <stdint.h>

#include "tinyaot/kernel_abi.h"

namespace tinyaot {

struct DepthwiseConv2dParams {
  int32_t batches;
  int32_t input_h, input_w, input_depth;
  int32_t depth_multiplier;  // output_depth = input_depth * depth_multiplier
  int32_t filter_h, filter_w;
  int32_t output_h, output_w;
  int32_t stride_h, stride_w;
  int32_t dilation_h, dilation_w;
  // Padding before the input; the padding after it is implied by the
  // output size (taps past the input are skipped).
  int32_t pad_top, pad_left;
  int32_t input_offset;  // -input zero point
  int32_t output_offset;
  int32_t act_min, act_max;
};

// Operands: input s8 [batches, input_h, input_w, input_depth], filter s8
// [1, filter_h, filter_w, output_depth], ChannelQuant[output_depth]
// -> output s8 [batches, output_h, output_w, output_depth].
extern const KernelDescriptor kernel_depthwise_conv2d_s8_ref;

// int16x8 (kernels/common/int16x8.h): input s16, filter s8,
// ChannelQuant[output_depth] (the int32 bias, or 0), optionally an int64
// bias s64[output_depth] -> output s16; offsets 0, an int16 range.
extern const KernelDescriptor kernel_depthwise_conv2d_s16_ref;
// The same operands, depth multiplier 1: for any core, and for MVE cores
// (depthwise_conv2d_s16_channels.h).
extern const KernelDescriptor kernel_depthwise_conv2d_s16_scalar;
extern const KernelDescriptor kernel_depthwise_conv2d_s16_mve;

// 3x3 filter, depth multiplier 1, dilation 1, any stride and padding
// (is_depthwise_3x3_case); same operands, no scratch.
extern const KernelDescriptor kernel_depthwise_conv2d_s8_3x3;

// DSP cores: any filter, stride, padding, dilation and depth multiplier;
// no scratch; same operands but the weights, which the compiler widens to
// int16 and stores in the order its loops read them (the layout in
// depthwise_conv2d_cases.h, twice the model's bytes).
extern const KernelDescriptor kernel_depthwise_conv2d_s8_dsp;

// The same code and operands, built only for the 3x3 case
// (is_depthwise_dsp_3x3_case: 3x3 filter, multiplier 1, every window 2 or
// 3 taps each way), so that a library exported for such programs links
// none of the other loops.
extern const KernelDescriptor kernel_depthwise_conv2d_s8_dsp_3x3;

// Any core: any filter, stride, padding, dilation and depth multiplier;
// the reference's operands, no scratch.
extern const KernelDescriptor kernel_depthwise_conv2d_s8_scalar;

// MVE cores: up to 64 taps whose offsets fit 16 bits (is_depthwise_mve_case),
// any stride, padding, dilation and multiplier; no scratch; the weights in
// the order its loops read them (depthwise_mve_layout.h, the model's bytes)
// and the input offset folded into the bias.
extern const KernelDescriptor kernel_depthwise_conv2d_s8_mve;

}  // namespace tinyaot
