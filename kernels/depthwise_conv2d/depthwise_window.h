// The taps of one output pixel of DEPTHWISE_CONV_2D that land inside the
// input: along each axis a contiguous run, so together a rectangle,
// computed once per pixel (per row of pixels for the vertical run) so no
// tap is bounds-checked in the loops (freestanding, header-only).
#pragma once

#include <stdint.h>

#include "kernels/common/window_taps.h"
#include "kernels/depthwise_conv2d/depthwise_conv2d.h"

namespace tinyaot {

// One pixel's valid taps: `rows` x `cols` of them from tap (first row,
// first col); `input` is where the first of them starts (channel 0), the
// image itself when the window is empty (no tap reads it then).
struct DepthwiseWindow {
  const int8_t* input;
  int32_t first_tap;  // ky_first * filter_w + kx_first
  int32_t rows, cols;
};

// The window of an output pixel from its two axes' runs.
inline DepthwiseWindow window_of(const DepthwiseConv2dParams& p, const int8_t* image,
                                 const TapRange& y, const TapRange& x) {
  DepthwiseWindow win;
  win.input = image;
  win.first_tap = 0;
  win.rows = y.count;
  win.cols = x.count;
  if (win.rows == 0 || win.cols == 0) {
    win.rows = win.cols = 0;
    return win;
  }
  win.input += (y.origin * p.input_w + x.origin) * p.input_depth;
  win.first_tap = y.first * p.filter_w + x.first;
  return win;
}

inline DepthwiseWindow depthwise_window(const DepthwiseConv2dParams& p, const int8_t* image,
                                        const TapRange& y, int32_t ox) {
  return window_of(p, image, y,
                   tap_range(ox * p.stride_w - p.pad_left, p.input_w, p.filter_w, p.dilation_w));
}

}  // namespace tinyaot
