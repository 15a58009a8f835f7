// TFLite's window arithmetic for SAME / VALID / explicit padding (host only,
// used by the lowerings of windowed operators: conv, depthwise, pooling,
// transpose conv). One definition, so that every operator pads exactly as
// TFLite's ComputePaddingHeightWidth does: the odd extra row or column of a
// SAME padding goes to the bottom / right.
#pragma once

#include <cstdint>

#include "compiler/ir/graph.h"

namespace tinyaot {

// Filter extent, stride and dilation along the two spatial axes.
struct Window2d {
  int32_t filter_h = 1, filter_w = 1;
  int32_t stride_h = 1, stride_w = 1;
  int32_t dilation_h = 1, dilation_w = 1;
};

// Output size and the padding on each side of the input.
struct Padding2d {
  int32_t out_h = 0, out_w = 0;
  int32_t top = 0, bottom = 0, left = 0, right = 0;
};

struct AxisPadding {
  int32_t before = 0, after = 0;
};

// Extent of a dilated filter; int64 so that corrupt models cannot overflow.
inline int64_t dilated_filter_size(int32_t filter, int32_t dilation) {
  return (static_cast<int64_t>(filter) - 1) * dilation + 1;
}

// TFLite's ComputeOutSize; 0 when the stride is not positive or no window
// fits (the caller reports it).
inline int32_t windowed_output_size(Padding padding, int32_t in, int32_t filter, int32_t stride,
                                    int32_t dilation) {
  if (stride < 1 || dilation < 1 || filter < 1 || in < 1) return 0;
  const int64_t effective = dilated_filter_size(filter, dilation);
  const int64_t out = padding == Padding::kSame ? (int64_t{in} + stride - 1) / stride
                                                : (int64_t{in} + stride - effective) / stride;
  return out > 0 && out <= INT32_MAX ? static_cast<int32_t>(out) : 0;
}

// TFLite's ComputePaddingWithOffset: the padding that makes `out` windows
// span the input; the odd remainder goes after.
inline AxisPadding axis_padding(int32_t in, int32_t filter, int32_t stride, int32_t dilation,
                                int32_t out) {
  const int64_t total =
      (static_cast<int64_t>(out) - 1) * stride + dilated_filter_size(filter, dilation) - in;
  AxisPadding pad;
  if (total > 0 && total <= INT32_MAX) {
    pad.before = static_cast<int32_t>(total / 2);
    pad.after = static_cast<int32_t>(total - total / 2);
  }
  return pad;
}

// TFLite's ComputePaddingHeightWidth for a SAME or VALID operator.
inline Padding2d compute_padding(Padding padding, int32_t in_h, int32_t in_w,
                                 const Window2d& window) {
  Padding2d out;
  out.out_h =
      windowed_output_size(padding, in_h, window.filter_h, window.stride_h, window.dilation_h);
  out.out_w =
      windowed_output_size(padding, in_w, window.filter_w, window.stride_w, window.dilation_w);
  const AxisPadding h =
      axis_padding(in_h, window.filter_h, window.stride_h, window.dilation_h, out.out_h);
  const AxisPadding w =
      axis_padding(in_w, window.filter_w, window.stride_w, window.dilation_w, out.out_w);
  out.top = h.before;
  out.bottom = h.after;
  out.left = w.before;
  out.right = w.after;
  return out;
}

// Output size of a window over an input padded by `before` + `after`:
// floor((in + before + after - effective) / stride) + 1, or 0 when no window
// fits or an argument is out of range.
inline int32_t explicit_output_size(int32_t in, int32_t before, int32_t after, int32_t filter,
                                    int32_t stride, int32_t dilation) {
  if (stride < 1 || dilation < 1 || filter < 1 || in < 1 || before < 0 || after < 0) return 0;
  const int64_t span = int64_t{in} + before + after - dilated_filter_size(filter, dilation);
  if (span < 0) return 0;
  const int64_t out = span / stride + 1;
  return out <= INT32_MAX ? static_cast<int32_t>(out) : 0;
}

// The padding an operation uses: the explicit amounts a pass folded in
// (attrs.explicit_padding), otherwise TFLite's SAME / VALID rule.
inline Padding2d resolve_padding(const Attributes& attrs, int32_t in_h, int32_t in_w,
                                 const Window2d& window) {
  if (!attrs.explicit_padding) return compute_padding(attrs.padding, in_h, in_w, window);
  Padding2d out;
  out.top = attrs.pad_top;
  out.bottom = attrs.pad_bottom;
  out.left = attrs.pad_left;
  out.right = attrs.pad_right;
  out.out_h = explicit_output_size(in_h, out.top, out.bottom, window.filter_h, window.stride_h,
                                   window.dilation_h);
  out.out_w = explicit_output_size(in_w, out.left, out.right, window.filter_w, window.stride_w,
                                   window.dilation_w);
  return out;
}

}  // namespace tinyaot
