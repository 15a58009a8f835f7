// Shape cases of DEPTHWISE_CONV_2D's variants and the operand checks they
// share (freestanding, header-only). Each case predicate is written once:
// the compiler's variant chooser asks it and the variant's validate refuses
// params outside it.
#pragma once

#include <stdint.h>

#include "kernels/common/int16x8.h"
#include "kernels/common/quant.h"
#include "kernels/common/validate.h"
#include "kernels/conv2d/window_checks.h"
#include "kernels/depthwise_conv2d/depthwise_conv2d.h"
#include "kernels/depthwise_conv2d/depthwise_mve_layout.h"
#include "kernels/depthwise_conv2d/depthwise_window.h"
#include "tinyaot/load_time.h"

namespace tinyaot {

// Operand sizes and value ranges every variant needs, the weights taking
// `weight_bytes` bytes each; the reference kernel's validate is exactly
// this with 1.
TINYAOT_LOAD_TIME inline Status validate_depthwise_conv2d_operands(
    const DepthwiseConv2dParams& p, const OperandView* inputs, uint32_t num_inputs,
    const OperandView* outputs, uint32_t num_outputs, int32_t weight_bytes = 1,
    Activations a = Activations::kInt8) {
  if (num_inputs < 3 || num_outputs != 1) return Status::kBadParams;
  if (p.batches < 1 || p.input_depth < 1 || p.depth_multiplier < 1) return Status::kBadParams;
  if (!is_window_2d(p, p.input_depth)) return Status::kBadParams;
  int64_t output_depth;
  if (!checked_mul(p.input_depth, p.depth_multiplier, &output_depth)) return Status::kBadParams;
  const int32_t depth = static_cast<int32_t>(output_depth);
  const int32_t input_dims[] = {p.batches, p.input_h, p.input_w, p.input_depth};
  const int32_t filter_dims[] = {p.filter_h, p.filter_w, depth, weight_bytes};
  const int32_t output_dims[] = {p.batches, p.output_h, p.output_w, depth};
  const int64_t input_size = checked_elements(input_dims, 4);
  const int64_t filter_size = checked_elements(filter_dims, 4);
  const int64_t output_size = checked_elements(output_dims, 4);
  if (input_size < 0 || filter_size < 0 || output_size < 0) return Status::kBadParams;
  const int64_t width = activation_bytes(a);
  if (inputs[0].bytes != input_size * width || inputs[1].bytes != filter_size ||
      !is_channel_quant_operand(inputs[2], output_depth) || outputs[0].bytes != output_size * width)
    return Status::kBadParams;
  if (!is_weighted_activation_setup(p, a, inputs, num_inputs, output_depth))
    return Status::kBadParams;
  return Status::kOk;
}

// The fast variants' output step takes precomputed rescales only
// (has_fast_rescale): their validate refuses any other channel with this,
// after the family's checks.
TINYAOT_LOAD_TIME inline Status validate_fast_depthwise_quant(const DepthwiseConv2dParams& p,
                                                              const OperandView* inputs) {
  const int64_t channels = int64_t{p.input_depth} * p.depth_multiplier;
  return is_fast_channel_quant_operand(inputs[2], channels) ? Status::kOk : Status::kBadParams;
}

// The common MobileNet block: one 3x3 filter per channel, adjacent taps.
TINYAOT_LOAD_TIME inline bool is_depthwise_3x3_case(const DepthwiseConv2dParams& p) {
  return p.filter_h == 3 && p.filter_w == 3 && p.depth_multiplier == 1 && p.dilation_h == 1 &&
         p.dilation_w == 1;
}

// Whether every window of an axis (depthwise_window.h) holds 2 or 3 taps.
TINYAOT_LOAD_TIME inline bool axis_windows_2_or_3(int32_t outputs, int32_t stride, int32_t pad,
                                                  int32_t size, int32_t filter, int32_t dilation) {
  for (int32_t i = 0; i < outputs; ++i) {
    const int32_t taps = tap_range(i * stride - pad, size, filter, dilation).count;
    if (taps < 2 || taps > 3) return false;
  }
  return true;
}

// The DSP variants' 3x3 case: a 3x3 filter, multiplier 1, and windows of
// 2 or 3 taps each way (kws's and vww's depthwise layers), which
// depthwise_conv2d_s8_dsp_3x3 serves with only those loops. Each output
// row and column is checked once: O(output_h + output_w).
TINYAOT_LOAD_TIME inline bool is_depthwise_dsp_3x3_case(const DepthwiseConv2dParams& p) {
  return p.filter_h == 3 && p.filter_w == 3 && p.depth_multiplier == 1 &&
         axis_windows_2_or_3(p.output_h, p.stride_h, p.pad_top, p.input_h, 3, p.dilation_h) &&
         axis_windows_2_or_3(p.output_w, p.stride_w, p.pad_left, p.input_w, 3, p.dilation_w);
}

// The DSP variants' weight layout, in the order their loops read it, at
// the model's size (int8). Output channel o = c * depth_multiplier + m.
// Three kinds of blocks, one after the other:
//  - channel groups: for each m, the input channels in groups of four
//    (c = 4g .. 4g+3): per tap one word, the weights of output channels
//    c * M + m in channel order, the order of the input word's bytes;
//  - multiplier groups: for each input channel past the last group of
//    four, its multipliers in groups of four, per tap one word (o0..o3);
//  - singles: those channels' last depth_multiplier % 4 outputs, one byte
//    per tap.
// Each block holds its taps [filter_h][filter_w] in order. The kernel
// widens one group's block at a time (depthwise_dsp_widen) into the int16
// pairs SXTAB16 gives the input in, (w0, w2) and (w1, w3), on its stack.
constexpr int32_t kDepthwiseDspGroup = 4;

// The most taps a group block may have: the kernel widens a block into a
// stack buffer of 8 bytes a tap (392 bytes); larger filters take the
// scalar variant (is_depthwise_dsp_case).
constexpr int32_t kDepthwiseDspMaxTaps = 49;

// The general DSP variant's case: a filter of at most kDepthwiseDspMaxTaps
// taps, any stride, padding, dilation and multiplier.
TINYAOT_LOAD_TIME inline bool is_depthwise_dsp_case(const DepthwiseConv2dParams& p) {
  return int64_t{p.filter_h} * p.filter_w <= kDepthwiseDspMaxTaps;
}

struct DepthwiseDspLayout {
  int32_t taps;
  int32_t multiplier;
  int32_t groups;         // channel groups per multiplier
  int32_t rest;           // input channels past the last group
  int32_t mult_groups;    // multiplier groups per rest channel
  int32_t singles;        // single outputs per rest channel
  int32_t group_bytes;    // one group's block: a word per tap
  int32_t channel_end;    // byte offset of the first multiplier group
  int32_t singles_start;  // byte offset of the first single
};

inline DepthwiseDspLayout depthwise_dsp_layout(const DepthwiseConv2dParams& p) {
  DepthwiseDspLayout l;
  l.taps = p.filter_h * p.filter_w;
  l.multiplier = p.depth_multiplier;
  l.groups = p.input_depth / kDepthwiseDspGroup;
  l.rest = p.input_depth % kDepthwiseDspGroup;
  l.mult_groups = p.depth_multiplier / kDepthwiseDspGroup;
  l.singles = p.depth_multiplier % kDepthwiseDspGroup;
  l.group_bytes = l.taps * kDepthwiseDspGroup;
  l.channel_end = l.multiplier * l.groups * l.group_bytes;
  l.singles_start = l.channel_end + l.rest * l.mult_groups * l.group_bytes;
  return l;
}

// Byte offset of output channel o's weight at `tap` in that layout.
inline int32_t depthwise_dsp_weight_offset(const DepthwiseDspLayout& l, int32_t o, int32_t tap) {
  const int32_t c = o / l.multiplier, m = o % l.multiplier;
  const int32_t grouped = l.groups * kDepthwiseDspGroup;
  if (c < grouped) {
    const int32_t block = m * l.groups + c / kDepthwiseDspGroup;
    return block * l.group_bytes + tap * kDepthwiseDspGroup + c % kDepthwiseDspGroup;
  }
  const int32_t r = c - grouped;
  if (m < l.mult_groups * kDepthwiseDspGroup) {
    const int32_t block = r * l.mult_groups + m / kDepthwiseDspGroup;
    return l.channel_end + block * l.group_bytes + tap * kDepthwiseDspGroup +
           m % kDepthwiseDspGroup;
  }
  const int32_t single = r * l.singles + m - l.mult_groups * kDepthwiseDspGroup;
  return l.singles_start + single * l.taps + tap;
}

// Model-order int8 weights [filter_h][filter_w][output_depth] into that
// layout (`ordered`: the model's bytes).
inline void order_depthwise_dsp_weights(const DepthwiseConv2dParams& p, const int8_t* model,
                                        int8_t* ordered) {
  const DepthwiseDspLayout l = depthwise_dsp_layout(p);
  const int32_t depth = p.input_depth * p.depth_multiplier;
  for (int32_t tap = 0; tap < l.taps; ++tap)
    for (int32_t o = 0; o < depth; ++o)
      ordered[depthwise_dsp_weight_offset(l, o, tap)] = model[tap * depth + o];
}

// Whether `kernel` takes the DSP layout.
inline bool takes_depthwise_dsp_layout(const KernelDescriptor* kernel) {
  return kernel == &kernel_depthwise_conv2d_s8_dsp || kernel == &kernel_depthwise_conv2d_s8_dsp_3x3;
}

// Whether `kernel` takes the input offset folded into its biases
// (fold_depthwise_input_offset).
inline bool depthwise_variant_folds_input_offset(const KernelDescriptor* kernel) {
  return kernel == &kernel_depthwise_conv2d_s8_mve;
}

// Bytes per weight of `kernel`'s weight operand: every layout holds the
// model's bytes.
inline int32_t depthwise_weight_bytes(const KernelDescriptor*) { return 1; }

// The weights in `kernel`'s layout (`ordered`: depthwise_weight_bytes
// times the model's bytes); false when it takes the model's order.
inline bool order_depthwise_weights(const KernelDescriptor* kernel, const DepthwiseConv2dParams& p,
                                    const int8_t* model, int8_t* ordered) {
  if (takes_depthwise_dsp_layout(kernel)) {
    order_depthwise_dsp_weights(p, model, ordered);
    return true;
  }
  if (kernel == &kernel_depthwise_conv2d_s8_mve) {
    order_depthwise_mve_weights(p, model, ordered);
    return true;
  }
  return false;
}

}  // namespace tinyaot
