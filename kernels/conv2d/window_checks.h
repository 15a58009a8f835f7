// Checks shared by the convolution kernels' validate functions
// (freestanding): a window whose index arithmetic stays inside int32.
#pragma once

#include <stdint.h>

#include "kernels/common/quant.h"
#include "kernels/common/validate.h"

namespace tinyaot {

// One spatial axis of a convolution window. Taps are computed as
// out * stride - pad + tap * dilation; with pad >= 0 and the largest such
// sum within int32, no intermediate overflows.
inline bool is_window_axis(int32_t input, int32_t filter, int32_t output, int32_t stride,
                           int32_t dilation, int32_t pad) {
  if (input < 1 || filter < 1 || output < 1 || stride < 1 || dilation < 1 || pad < 0) return false;
  int64_t reach, taps;
  if (!checked_mul(int64_t{output} - 1, stride, &reach) ||
      !checked_mul(int64_t{filter} - 1, dilation, &taps))
    return false;
  return reach + taps <= INT32_MAX;
}

}  // namespace tinyaot
