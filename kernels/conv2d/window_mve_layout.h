// The shape and weight layout of conv2d_s8_window_mve (freestanding,
// header-only, host and device): written once, so that the compiler
// stores the weights as the kernel reads them and the sweeps reorder
// their random weights the same way.
//
// In NHWC a window row's taps (filter_w * input_depth bytes) lie next to
// each other in the input, and in the OHWI weights: with dilation_w 1 a
// window is filter_h runs ("segments") of contiguous input; with a wider
// dilation each tap is one segment of input_depth bytes. Each segment is
// padded with zero weights to whole 16-byte blocks, and the output
// channels are taken four at a time ("groups", the last one padded with
// zero channels): per group, segment by segment, block by block, the
// block of its first channel, of its second, third and fourth. One pointer
// then walks a group, four loads a block at offsets 0, 16, 32 and 48, none
// predicated; a block's input bytes past the segment meet zero weights.
#pragma once

#include <stdint.h>

#include "kernels/conv2d/conv2d.h"
#include "tinyaot/load_time.h"

namespace tinyaot {

constexpr int32_t kWindowMveLanes = 16;    // int8 lanes of a vector: bytes of a block
constexpr int32_t kWindowMveChannels = 4;  // output channels of a group
// Groups whose sums a call keeps on the stack at once (64 channels):
// adjacent inner pixels go in runs whose sums fit, two windows together
// where a run holds two and a row is one segment (window pairs).
constexpr int32_t kWindowMveChunkGroups = 16;

struct WindowMveShape {
  int32_t length;       // bytes of a segment (filter_w * depth, or depth)
  int32_t per_row;      // segments of a window row (1, or filter_w)
  int32_t blocks;       // 16-byte blocks of a padded segment
  int32_t groups;       // groups of four output channels
  int64_t group_bytes;  // weights of a group: filter_h * per_row * blocks * 64
};

// For params with filter_depth == input_depth, every size positive and a
// column length that fits int32.
inline WindowMveShape window_mve_shape(const Conv2dParams& p) {
  WindowMveShape s;
  const bool runs = p.dilation_w == 1;
  s.length = runs ? p.filter_w * p.input_depth : p.input_depth;
  s.per_row = runs ? 1 : p.filter_w;
  s.blocks = static_cast<int32_t>((int64_t{s.length} + kWindowMveLanes - 1) / kWindowMveLanes);
  s.groups =
      static_cast<int32_t>((int64_t{p.output_depth} + kWindowMveChannels - 1) / kWindowMveChannels);
  s.group_bytes = int64_t{p.filter_h} * s.per_row * s.blocks * kWindowMveLanes * kWindowMveChannels;
  return s;
}

// Bytes of the laid-out weights.
inline int64_t window_mve_weight_bytes(const Conv2dParams& p) {
  const WindowMveShape s = window_mve_shape(p);
  return s.groups * s.group_bytes;
}

// The variant's case: an ungrouped convolution of any window, stride,
// dilation and padding (is_conv2d_im2col_case) whose laid-out weights fit a
// 32-bit operand size (the model's first, which bounds the padded layout's
// product below int64's range).
TINYAOT_LOAD_TIME inline bool is_conv2d_window_mve_case(const Conv2dParams& p) {
  if (p.filter_h < 1 || p.filter_w < 1 || p.input_depth < 1 || p.output_depth < 1) return false;
  const int64_t taps = int64_t{p.filter_h} * p.filter_w;
  if (p.filter_depth != p.input_depth || taps > INT32_MAX) return false;
  const int64_t column = taps * p.input_depth;
  if (column > INT32_MAX) return false;
  if (column * p.output_depth > int64_t{UINT32_MAX}) return false;
  return window_mve_weight_bytes(p) <= int64_t{UINT32_MAX};
}

// Model weights [output_depth][filter_h][filter_w][depth] into the layout
// (window_mve_weight_bytes(p) bytes at `out`).
inline void order_window_mve_weights(const Conv2dParams& p, const int8_t* model, int8_t* out) {
  const WindowMveShape s = window_mve_shape(p);
  const int64_t row = int64_t{p.filter_h} * p.filter_w * p.input_depth;
  const int32_t segments = p.filter_h * s.per_row;
  for (int32_t g = 0; g < s.groups; ++g)
    for (int32_t seg = 0; seg < segments; ++seg)
      for (int32_t b = 0; b < s.blocks; ++b)
        for (int32_t j = 0; j < kWindowMveChannels; ++j)
          for (int32_t i = 0; i < kWindowMveLanes; ++i) {
            const int32_t o = g * kWindowMveChannels + j;
            const int32_t k = b * kWindowMveLanes + i;
            *out++ = o < p.output_depth && k < s.length
                         ? model[o * row + int64_t{seg} * s.length + k]
                         : int8_t{0};
          }
}

}  // namespace tinyaot
