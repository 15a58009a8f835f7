// What the fast int16x8 DEPTHWISE_CONV_2D variants share (freestanding,
// header-only): depth multiplier 1, per output pixel the window clipped to
// the input once (offsets are 0, so a tap past the input adds nothing and
// no tap is bounds-checked), then a block of channels at a time with its
// sums in registers, the taps outer, the channels inner (both the inputs
// and the weights of a tap lie side by side over the channels). The
// weights as the model has them; no scratch.
#pragma once

#include <stdint.h>

#include "kernels/common/int16x8.h"
#include "kernels/common/window_taps.h"
#include "kernels/depthwise_conv2d/depthwise_conv2d.h"
#include "kernels/depthwise_conv2d/depthwise_conv2d_cases.h"

// The operands of every int16x8 variant, the reference's included.
#define TINYAOT_DEPTHWISE_CONV2D_S16_SIGNATURE                                           \
  "input:s16[batches,input_h,input_w,input_depth], "                                     \
  "filter:s8[1,filter_h,filter_w,input_depth*depth_multiplier], "                        \
  "quant:ChannelQuant[input_depth*depth_multiplier], "                                   \
  "wide_bias:s64[input_depth*depth_multiplier]? "                                        \
  "-> output:s16[batches,output_h,output_w,input_depth*depth_multiplier]; "              \
  "params=DepthwiseConv2dParams{batches,input_h,input_w,input_depth,depth_multiplier,"   \
  "filter_h,filter_w,output_h,output_w,stride_h,stride_w,dilation_h,dilation_w,pad_top," \
  "pad_left,input_offset,output_offset,act_min,act_max}"

namespace tinyaot {

// The case of the fast variants: one output channel per input channel.
TINYAOT_LOAD_TIME inline bool is_depthwise_s16_fast_case(const DepthwiseConv2dParams& p) {
  return p.depth_multiplier == 1;
}

// An output pixel's taps in the input.
struct DepthwiseTaps {
  const int16_t* image;  // the batch's input
  TapRange rows, columns;
};

// Calls tap(input, weights) for each of the window's taps, with channel
// `first`'s input and weight there; the pointers step from tap to tap.
template <typename Tap>
inline void for_each_depthwise_s16_tap(const DepthwiseConv2dParams& p, const int8_t* filter,
                                       const DepthwiseTaps& w, int32_t first, Tap&& tap) {
  const int32_t input_step = p.dilation_w * p.input_depth;
  for (int32_t i = 0; i < w.rows.count; ++i) {
    const int32_t y = w.rows.origin + i * p.dilation_h;
    const int16_t* in = w.image + (y * p.input_w + w.columns.origin) * p.input_depth + first;
    const int8_t* weights =
        filter + ((w.rows.first + i) * p.filter_w + w.columns.first) * p.input_depth + first;
    for (int32_t k = 0; k < w.columns.count; ++k, in += input_step, weights += p.input_depth)
      tap(in, weights);
  }
}

// The sums of channels [first, first + Channels) over the window's taps,
// scalar: two loads and a multiply-accumulate a MAC.
template <typename Acc, int Channels>
inline void depthwise_s16_sums(const DepthwiseConv2dParams& p, const int8_t* filter,
                               const DepthwiseTaps& w, int32_t first, Acc* acc) {
  Acc sums[Channels] = {};
  for_each_depthwise_s16_tap(p, filter, w, first, [&](const int16_t* in, const int8_t* weights) {
    _Pragma("GCC unroll 8") for (int c = 0; c < Channels; ++c) sums[c] =
        accumulate(sums[c], in[c], weights[c]);
  });
  _Pragma("GCC unroll 8") for (int c = 0; c < Channels; ++c) acc[c] = sums[c];
}

// Calls block(taps, first, count) for each output pixel and each block of
// `Channels` channels (the last `count` may be fewer), with the pixel's
// output row.
template <int Channels, typename Block>
inline void for_each_depthwise_s16_block(const DepthwiseConv2dParams& p, const int16_t* input,
                                         int16_t* output, Block&& block) {
  for (int32_t b = 0; b < p.batches; ++b) {
    const int16_t* image = input + b * p.input_h * p.input_w * p.input_depth;
    for (int32_t oy = 0; oy < p.output_h; ++oy) {
      const TapRange rows =
          tap_range(oy * p.stride_h - p.pad_top, p.input_h, p.filter_h, p.dilation_h);
      for (int32_t ox = 0; ox < p.output_w; ++ox) {
        const DepthwiseTaps taps{
            image, rows,
            tap_range(ox * p.stride_w - p.pad_left, p.input_w, p.filter_w, p.dilation_w)};
        int16_t* out = output + ((b * p.output_h + oy) * p.output_w + ox) * p.input_depth;
        for (int32_t c = 0; c < p.input_depth; c += Channels) {
          const int32_t left = p.input_depth - c;
          block(taps, c, left < Channels ? left : Channels, out);
        }
      }
    }
  }
}

// The reference's checks.
TINYAOT_LOAD_TIME inline Status validate_depthwise_conv2d_s16(const void* raw,
                                                              const OperandView* inputs,
                                                              uint32_t num_inputs,
                                                              const OperandView* outputs,
                                                              uint32_t num_outputs) {
  const auto& p = *static_cast<const DepthwiseConv2dParams*>(raw);
  return validate_depthwise_conv2d_operands(p, inputs, num_inputs, outputs, num_outputs, 1,
                                            Activations::kInt16);
}

// The fast variants': the reference's, in their case.
TINYAOT_LOAD_TIME inline Status validate_depthwise_conv2d_s16_fast(const void* raw,
                                                                   const OperandView* inputs,
                                                                   uint32_t num_inputs,
                                                                   const OperandView* outputs,
                                                                   uint32_t num_outputs) {
  if (!is_depthwise_s16_fast_case(*static_cast<const DepthwiseConv2dParams*>(raw)))
    return Status::kBadParams;
  return validate_depthwise_conv2d_s16(raw, inputs, num_inputs, outputs, num_outputs);
}

}  // namespace tinyaot
