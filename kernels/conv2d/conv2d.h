// CONV_2D, int8, NHWC: for each output pixel and channel o,
//   out = clamp(requant(sum over taps inside the input of
//               (in + input_offset) * w[o][ky][kx][c] + bias[o]) + output_offset).
// Taps outside the input are skipped, as TFLite's reference kernel does
// (the same as padding with the input zero point).
#pragma once

#include <stdint.h>

#include "tinyaot/kernel_abi.h"

namespace tinyaot {

struct Conv2dParams {
  int32_t batches;
  int32_t input_h, input_w, input_depth;
  int32_t filter_h, filter_w;
  // Channels each filter reads; less than input_depth for a grouped
  // convolution (input_depth / filter_depth groups).
  int32_t filter_depth;
  int32_t output_h, output_w, output_depth;
  int32_t stride_h, stride_w;
  int32_t dilation_h, dilation_w;
  // Padding before the input; the padding after it is implied by the
  // output size (taps past the input are skipped).
  int32_t pad_top, pad_left;
  int32_t input_offset;  // -input zero point
  int32_t output_offset;
  int32_t act_min, act_max;
};

// The parameter struct as every conv variant's signature names it (part
// of the ABI fingerprint): written once, joined to each signature string.
#define TINYAOT_CONV2D_PARAMS_SIGNATURE                                                      \
  "params=Conv2dParams{batches,input_h,input_w,input_depth,filter_h,filter_w,filter_depth,"  \
  "output_h,output_w,output_depth,stride_h,stride_w,dilation_h,dilation_w,pad_top,pad_left," \
  "input_offset,output_offset,act_min,act_max}"

// Operands: input s8 [batches, input_h, input_w, input_depth], filter s8
// [output_depth, filter_h, filter_w, filter_depth], ChannelQuant[output_depth]
// -> output s8 [batches, output_h, output_w, output_depth].
extern const KernelDescriptor kernel_conv2d_s8_ref;

// int16x8 (kernels/common/int16x8.h): input s16, filter s8,
// ChannelQuant[output_depth] (the int32 bias, or 0), optionally an int64
// bias s64[output_depth] -> output s16; offsets 0, an int16 range.
extern const KernelDescriptor kernel_conv2d_s16_ref;
// The same operands, for DSP and for MVE cores (conv2d_s16_windows.h).
extern const KernelDescriptor kernel_conv2d_s16_dsp;
extern const KernelDescriptor kernel_conv2d_s16_mve;

// Shape-case variants (cases in conv2d_cases.h), same operands as the
// reference except where noted:
//   conv2d_s8_1x1: pointwise, stride 1, no padding; no scratch.
//   conv2d_s8_im2col: ungrouped; scratch of two int8 columns; weights
//     interleaved by channel pair, the offset folded into the bias.
//   conv2d_s8_im2col_mve: ungrouped; scratch of one int8 column; weights
//     in the MVE layout (gemm_mve_layout.h); its ChannelQuant bias already
//     holds + input_offset * sum(filter[o]).
extern const KernelDescriptor kernel_conv2d_s8_1x1;
extern const KernelDescriptor kernel_conv2d_s8_im2col;
extern const KernelDescriptor kernel_conv2d_s8_im2col_mve;
//   conv2d_s8_window: ungrouped, any window; no scratch; weights interleaved
//     by channel pair, the offset folded into the bias, a fourth operand
//     holding input_depth copies of the input zero point.
extern const KernelDescriptor kernel_conv2d_s8_window;
//   conv2d_s8_1x1_mve: 1x1, any stride, no padding, windows inside; no
//     scratch; its ChannelQuant bias already holds + input_offset *
//     sum(filter[o]).
extern const KernelDescriptor kernel_conv2d_s8_1x1_mve;
//   conv2d_s8_window_mve: ungrouped, any window; no scratch; weights in
//     groups of four channels by 16-byte blocks (window_mve_layout.h), the
//     offset folded into the bias.
extern const KernelDescriptor kernel_conv2d_s8_window_mve;

}  // namespace tinyaot
