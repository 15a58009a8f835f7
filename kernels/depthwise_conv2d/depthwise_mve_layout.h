// The MVE depthwise variant's shape case, weight layout and folded input
// offset (freestanding, header-only): what the compiler stores and the
// kernel reads, written once for the lowering, the kernel and the sweeps.
//
// The kernel sums one output at a time with VMLADAVA.S16 over eight taps
// gathered by VLDRB.S16 (16-bit offsets from the window's first tap), so
// the weights of an output channel lie together, its taps in the model's
// order [filter_h][filter_w]. With a depth multiplier of 1 and a tap
// count one past a multiple of eight (3x3: 8 + 1), the last tap is summed
// four channels at a time in 32-bit lanes instead (one contiguous input
// load for four outputs where a ninth gather lane would take a whole
// VMLADAVA each); its weights come after the others, one per channel.
// Either way the operand holds exactly the model's bytes.
#pragma once

#include <stdint.h>

#include "kernels/common/quant.h"
#include "kernels/depthwise_conv2d/depthwise_conv2d.h"
#include "tinyaot/load_time.h"

namespace tinyaot {

constexpr int32_t kDepthwiseMveLanes = 8;      // taps per gather (int16 lanes)
constexpr int32_t kDepthwiseMveMaxChunks = 8;  // gathers per output at most

struct DepthwiseMveLayout {
  int32_t taps;         // filter_h * filter_w
  int32_t summed_taps;  // taps in the gathers: all, or all but the last
  bool last_apart;      // the last tap summed four channels at a time
  int32_t chunks;       // gathers per output: ceil(summed_taps / 8)
  int32_t depth;        // output channels
};

inline DepthwiseMveLayout depthwise_mve_layout(const DepthwiseConv2dParams& p) {
  DepthwiseMveLayout l;
  l.taps = p.filter_h * p.filter_w;
  l.last_apart = p.depth_multiplier == 1 && l.taps % kDepthwiseMveLanes == 1;
  l.summed_taps = l.last_apart ? l.taps - 1 : l.taps;
  l.chunks = (l.summed_taps + kDepthwiseMveLanes - 1) / kDepthwiseMveLanes;
  l.depth = p.input_depth * p.depth_multiplier;
  return l;
}

// Byte offset from the window's first tap to tap (ky, kx) of channel 0.
inline int64_t depthwise_mve_tap_offset(const DepthwiseConv2dParams& p, int32_t ky, int32_t kx) {
  return (int64_t{ky} * p.dilation_h * p.input_w + int64_t{kx} * p.dilation_w) * p.input_depth;
}

// The variant's case: at most 64 taps (eight gathers), every tap's offset
// within a 16-bit gather lane. Any stride, padding, dilation, multiplier.
TINYAOT_LOAD_TIME inline bool is_depthwise_mve_case(const DepthwiseConv2dParams& p) {
  if (p.filter_h < 1 || p.filter_w < 1 ||
      int64_t{p.filter_h} * p.filter_w > int64_t{kDepthwiseMveLanes} * kDepthwiseMveMaxChunks)
    return false;
  return depthwise_mve_tap_offset(p, p.filter_h - 1, p.filter_w - 1) <= UINT16_MAX;
}

// Model-order weights [filter_h][filter_w][output_depth] into the layout:
// [output_depth][summed_taps], then (last_apart) [output_depth] of the
// last tap. `ordered` holds as many bytes as the model.
inline void order_depthwise_mve_weights(const DepthwiseConv2dParams& p, const int8_t* model,
                                        int8_t* ordered) {
  const DepthwiseMveLayout l = depthwise_mve_layout(p);
  for (int32_t o = 0; o < l.depth; ++o)
    for (int32_t t = 0; t < l.summed_taps; ++t)
      ordered[o * l.summed_taps + t] = model[t * l.depth + o];
  if (l.last_apart)
    for (int32_t o = 0; o < l.depth; ++o)
      ordered[l.depth * l.summed_taps + o] = model[(l.taps - 1) * l.depth + o];
}

// quant[o].bias += input_offset * (sum of channel o's model weights),
// wrapping like the accumulator: the kernel then multiplies raw inputs,
// and a tap outside the input reads the zero point (-input_offset), whose
// product cancels its share (TFLite skips such taps).
inline void fold_depthwise_input_offset(const DepthwiseConv2dParams& p, const int8_t* model,
                                        ChannelQuant* quant) {
  const int32_t taps = p.filter_h * p.filter_w;
  const int32_t depth = p.input_depth * p.depth_multiplier;
  for (int32_t o = 0; o < depth; ++o) {
    uint32_t sum = 0;
    for (int32_t t = 0; t < taps; ++t) sum += static_cast<uint32_t>(int32_t{model[t * depth + o]});
    const uint32_t term = static_cast<uint32_t>(p.input_offset) * sum;
    quant[o].bias = static_cast<int32_t>(static_cast<uint32_t>(quant[o].bias) + term);
  }
}

}  // namespace tinyaot
