// The window arithmetic of ONNX's Conv, ConvTranspose, MaxPool and
// AveragePool (auto_pad, pads, strides, dilations, ceil_mode).
#include <algorithm>

#include "compiler/import/onnx_ops.h"

namespace tinyaot::onnx_import {

SpatialWindow spatial_window(const Node& node, const std::vector<int64_t>& in,
                             const std::vector<int64_t>& kernel, bool ceil_mode) {
  const size_t n = in.size();
  SpatialWindow w;
  w.kernel = node.attr_ints("kernel_shape");
  if (w.kernel.empty()) w.kernel = kernel;
  if (w.kernel.size() != n) fail(node, "kernel_shape must have " + std::to_string(n) + " entries");
  if (!kernel.empty() && w.kernel != kernel)
    fail(node,
         "kernel_shape " + dims_text(w.kernel) + " differs from the weights' " + dims_text(kernel));
  w.strides = node.attr_ints("strides");
  if (w.strides.empty()) w.strides.assign(n, 1);
  w.dilations = node.attr_ints("dilations");
  if (w.dilations.empty()) w.dilations.assign(n, 1);
  if (w.strides.size() != n || w.dilations.size() != n)
    fail(node, "strides and dilations must have " + std::to_string(n) + " entries");
  for (size_t i = 0; i < n; ++i)
    if (w.kernel[i] < 1 || w.strides[i] < 1 || w.dilations[i] < 1 || w.kernel[i] > INT32_MAX ||
        w.strides[i] > INT32_MAX || w.dilations[i] > INT32_MAX)
      fail(node, "kernel, strides and dilations must be positive");
  const std::string auto_pad = node.attr_string("auto_pad", "NOTSET");
  std::vector<int64_t> pads = node.attr_ints("pads");
  if (pads.empty()) pads.assign(2 * n, 0);
  if (pads.size() != 2 * n) fail(node, "pads must have " + std::to_string(2 * n) + " entries");
  w.pad_begin.assign(pads.begin(), pads.begin() + static_cast<std::ptrdiff_t>(n));
  w.pad_end.assign(pads.begin() + static_cast<std::ptrdiff_t>(n), pads.end());
  w.out.assign(n, 0);
  for (size_t i = 0; i < n; ++i) {
    const int64_t extent = (w.kernel[i] - 1) * w.dilations[i] + 1;
    if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
      w.out[i] = (in[i] + w.strides[i] - 1) / w.strides[i];
      const int64_t total = std::max<int64_t>(0, (w.out[i] - 1) * w.strides[i] + extent - in[i]);
      w.pad_begin[i] = auto_pad == "SAME_UPPER" ? total / 2 : total - total / 2;
      w.pad_end[i] = total - w.pad_begin[i];
      continue;
    }
    if (auto_pad == "VALID") {
      w.pad_begin[i] = w.pad_end[i] = 0;
    } else if (auto_pad != "NOTSET") {
      fail(node, "auto_pad '" + auto_pad + "' is not one of NOTSET, SAME_UPPER, SAME_LOWER, VALID");
    }
    if (w.pad_begin[i] < 0 || w.pad_end[i] < 0 || w.pad_begin[i] > INT32_MAX ||
        w.pad_end[i] > INT32_MAX)
      fail(node, "pads must be between 0 and 2^31");
    const int64_t span = in[i] + w.pad_begin[i] + w.pad_end[i] - extent;
    if (span < 0) fail(node, "the window does not fit the padded input");
    w.out[i] = (ceil_mode ? (span + w.strides[i] - 1) / w.strides[i] : span / w.strides[i]) + 1;
    // TFLite's kernels take the floor: pad the end until it gives the same.
    w.pad_end[i] =
        std::max(w.pad_end[i], (w.out[i] - 1) * w.strides[i] + extent - in[i] - w.pad_begin[i]);
  }
  return w;
}

Attributes window_attributes(const SpatialWindow& w) {
  Attributes a;
  a.stride_h = static_cast<int32_t>(w.strides[0]);
  a.stride_w = static_cast<int32_t>(w.strides[1]);
  a.dilation_h = static_cast<int32_t>(w.dilations[0]);
  a.dilation_w = static_cast<int32_t>(w.dilations[1]);
  a.filter_h = static_cast<int32_t>(w.kernel[0]);
  a.filter_w = static_cast<int32_t>(w.kernel[1]);
  a.explicit_padding = true;
  a.pad_top = static_cast<int32_t>(w.pad_begin[0]);
  a.pad_bottom = static_cast<int32_t>(w.pad_end[0]);
  a.pad_left = static_cast<int32_t>(w.pad_begin[1]);
  a.pad_right = static_cast<int32_t>(w.pad_end[1]);
  return a;
}

}  // namespace tinyaot::onnx_import
