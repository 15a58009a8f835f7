// Checks shared by the convolution kernels' validate functions
// (freestanding): a window whose index arithmetic stays inside int32.
#pragma once

#include <stdint.h>

#include "kernels/common/quant.h"
#include "kernels/common/validate.h"
#include "tinyaot/load_time.h"

namespace tinyaot {

// One spatial axis of a convolution window. Taps are computed as
// out * stride - pad + tap * dilation; with pad >= 0 and the largest such
// sum within int32, no intermediate overflows.
TINYAOT_LOAD_TIME inline bool is_window_axis(int32_t input, int32_t filter, int32_t output,
                                             int32_t stride, int32_t dilation, int32_t pad) {
  if (input < 1 || filter < 1 || output < 1 || stride < 1 || dilation < 1 || pad < 0) return false;
  int64_t reach, taps;
  if (!checked_mul(int64_t{output} - 1, stride, &reach) ||
      !checked_mul(int64_t{filter} - 1, dilation, &taps))
    return false;
  return reach + taps <= INT32_MAX;
}

// How far one axis's index arithmetic reaches, in that axis's steps: every
// coordinate a kernel forms on it (a window's origin out * stride - pad,
// out up to output: some loops step one window past the last; a tap,
// origin + k * dilation; an input position) and every step it takes
// (stride, dilation) lies within [-reach, reach].
inline int64_t window_reach(int32_t input, int32_t filter, int32_t output, int32_t stride,
                            int32_t dilation, int32_t pad) {
  const int64_t windows = int64_t{output} * stride + (int64_t{filter} - 1) * dilation;
  int64_t reach = windows > input ? windows : input;
  reach = reach > pad ? reach : pad;
  return reach > dilation ? reach : dilation;
}

// The NHWC window of a convolution: both axes (is_window_axis), and the
// input plane their index arithmetic spans, reach_h + 1 rows of reach_w + 1
// pixels of `depth` bytes, within int32 bytes. Then every byte offset a
// kernel forms from an image's first byte, (y * input_w + x) * depth + c
// for y, x within the axes' reach (input_w <= reach_w) and c < depth, fits
// int32: a window's origin, a tap, a step of a stride or a dilation
// between rows or columns, the origin one window past the last, in the
// DSP and MVE kernels (which step by such products in 32 bits) as in the
// reference. Padding makes the plane a little larger than the input; only
// an input within a few percent of 2 GiB is refused for it.
template <typename Params>
TINYAOT_LOAD_TIME inline bool is_window_2d(const Params& p, int32_t depth) {
  if (!is_window_axis(p.input_h, p.filter_h, p.output_h, p.stride_h, p.dilation_h, p.pad_top) ||
      !is_window_axis(p.input_w, p.filter_w, p.output_w, p.stride_w, p.dilation_w, p.pad_left) ||
      depth < 1)
    return false;
  const int64_t reach_h =
      window_reach(p.input_h, p.filter_h, p.output_h, p.stride_h, p.dilation_h, p.pad_top);
  const int64_t reach_w =
      window_reach(p.input_w, p.filter_w, p.output_w, p.stride_w, p.dilation_w, p.pad_left);
  int64_t row, plane;
  return checked_mul(reach_w + 1, depth, &row) && checked_mul(reach_h + 1, row, &plane);
}

}  // namespace tinyaot
