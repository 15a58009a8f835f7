// The MVE walk of average pooling (freestanding): per output pixel the
// window clipped to the input once (pool_walk.h), then for each block of
// 16 channels its cells summed in two vectors of 16-bit lanes (two
// widening VLDRB.S16 and two VADD.I16 per cell; exact up to 256 cells,
// pool_cases.h), the last block of 1-15 channels tail-predicated (VCTP),
// and the sums handed to an output step:
//   step.set_count(count) per window;
//   step.finish<kTail>(sum_low, sum_high, low, high, w, c, n, out): the
//     outputs of channels [c, c + n), sums of channels c.. c + 7 in
//     sum_low and the next eight in sum_high, `low` and `high` their
//     lanes.
// Steps: TFLite's and onnxruntime's averages (pool2d_s8_mve.cpp), MEAN's
// requantization (mean_s8_planes.cpp).
#pragma once

#include <stdint.h>

#include "kernels/pooling/pool_walk.h"
#include "kernels/pooling/pooling.h"

#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1)
#include <arm_mve.h>

namespace tinyaot {
namespace pool_sum_mve {

constexpr int32_t kLanes = 16;

// The 16-bit lanes of a block of `n` channels (all eight past n = 16).
inline mve_pred16_t half_lanes(int32_t n) { return vctp16q(static_cast<uint32_t>(n < 0 ? 0 : n)); }

template <bool kTail, class Step>
inline void average_block(const PoolWindow& w, int32_t channels, int32_t c, int32_t n,
                          const Step& step, int8_t* out) {
  const mve_pred16_t low = half_lanes(kTail ? n : kLanes);
  const mve_pred16_t high = half_lanes(kTail ? n - 8 : kLanes);
  int16x8_t sum_low = vdupq_n_s16(0);
  int16x8_t sum_high = vdupq_n_s16(0);
  const int8_t* cell = w.first + c;
  for (int32_t r = 0; r < w.rows; ++r, cell += w.row_skip) {
    for (int32_t k = 0; k < w.cols; ++k, cell += channels) {
      sum_low = vaddq_s16(sum_low, kTail ? vldrbq_z_s16(cell, low) : vldrbq_s16(cell));
      sum_high = vaddq_s16(sum_high, kTail ? vldrbq_z_s16(cell + 8, high) : vldrbq_s16(cell + 8));
    }
  }
  step.template finish<kTail>(sum_low, sum_high, low, high, w, c, n, out);
}

// The walk, each block's sums handed to `step`.
template <class Step>
__attribute__((noinline)) inline void average_pool(const Pool2dParams& p, const int8_t* input,
                                                   int8_t* output, Step step) {
  const int32_t channels = p.channels;
  for_each_pool_window(p, input, output, [&](const PoolWindow& w, int8_t* out) {
    step.set_count(w.count);
    int32_t c = 0;
    for (; c + kLanes <= channels; c += kLanes)
      average_block<false>(w, channels, c, kLanes, step, out);
    if (c < channels) average_block<true>(w, channels, c, channels - c, step, out);
  });
}

}  // namespace pool_sum_mve
}  // namespace tinyaot

#endif
