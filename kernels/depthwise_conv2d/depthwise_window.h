// The taps of one output pixel of DEPTHWISE_CONV_2D that land inside the
// input: along each axis a contiguous run, so together a rectangle,
// computed once per pixel (per row of pixels for the vertical run) so no
// tap is bounds-checked in the loops (freestanding, header-only).
#pragma once

#include <stdint.h>

#include "kernels/depthwise_conv2d/depthwise_conv2d.h"

namespace tinyaot {

// ceil(n / d) in 32 bits (no 64-bit division, a library call on these cores).
inline uint32_t divide_up(uint32_t n, uint32_t d) { return n / d + (n % d != 0 ? 1 : 0); }

// The run of one axis.
struct TapRange {
  int32_t first, count;  // taps [first, first + count)
  int32_t origin;        // input coordinate of the first of them
};

// Taps k of an axis whose input coordinate origin + k * dilation lands
// inside [0, size). The loader's window checks keep origin at or above
// -INT32_MAX, so both distances fit uint32. Without dilation no division
// (a library call on Cortex-M0).
inline TapRange tap_range(int32_t origin, int32_t size, int32_t filter, int32_t dilation) {
  const uint32_t d = static_cast<uint32_t>(dilation);
  const uint32_t before = origin < 0 ? 0u - static_cast<uint32_t>(origin) : 0u;
  const uint32_t room = origin < size ? static_cast<uint32_t>(size) - static_cast<uint32_t>(origin)
                                      : 0u;  // input from origin to the end
  const uint32_t lo = d == 1 ? before : divide_up(before, d);
  const uint32_t hi = d == 1 ? room : divide_up(room, d);
  const uint32_t taps = static_cast<uint32_t>(filter);
  TapRange r;
  r.first = static_cast<int32_t>(lo < taps ? lo : taps);
  const int32_t last = static_cast<int32_t>(hi < taps ? hi : taps);
  r.count = last > r.first ? last - r.first : 0;
  r.origin = origin + r.first * dilation;
  return r;
}

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
