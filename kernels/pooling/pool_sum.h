// The walk of the channel-vectorized average pooling (freestanding): per
// output pixel the window clipped to the input once (pool_walk.h), then for
// each block of channels its cells walked with the block's sums in
// registers, four channels per word (pool_lanes.h), each sum handed to an
// output step: TFLite's rounded average (avg_pool2d_s8_sum.cpp),
// onnxruntime's chain (onnx_average.h), or MEAN's requantization over a
// plane (mean_s8_planes.cpp).
#pragma once

#include <stdint.h>

#include "kernels/pooling/pool_lanes.h"
#include "kernels/pooling/pool_walk.h"
#include "kernels/pooling/pooling.h"

namespace tinyaot {
namespace pool_sum {

// Words per block of channels: as many accumulators as the core's
// registers hold beside the walk's pointers and counters.
#if defined(TINYAOT_POOL_DSP)
constexpr int kSum16BlockWords = 4;
constexpr int kSum32BlockWords = 2;
#elif defined(__ARM_ARCH_6M__) || defined(__ARM_ARCH_8M_BASE__)
constexpr int kSum16BlockWords = 1;
constexpr int kSum32BlockWords = 1;
#else
constexpr int kSum16BlockWords = 2;
constexpr int kSum32BlockWords = 1;
#endif

// The sums of channels [channel, channel + 4 * kWords) over one window.
// Out of line: inside the pixel loop GCC 12 spilled accumulators and
// constants of the cell loop to the stack.
template <class Lanes, int kWords>
__attribute__((noinline)) inline void sum_block(const PoolWindow& w, int32_t channels,
                                                int32_t channel, int32_t sums[4 * kWords]) {
  Lanes lanes[kWords];
  CellWalk walk(w, channels, channel);
  do {
#pragma GCC unroll 4
    for (int k = 0; k < kWords; ++k) lanes[k].add(load_pool_word(walk.cell() + 4 * k));
  } while (walk.next());
#pragma GCC unroll 4
  for (int k = 0; k < kWords; ++k) lanes[k].sums(w.count, sums + 4 * k);
}

template <class Lanes, int kWords, class Step>
inline void average_block(const PoolWindow& w, int32_t channels, int32_t channel, const Step& step,
                          int8_t* out) {
  int32_t sums[4 * kWords];
  sum_block<Lanes, kWords>(w, channels, channel, sums);
#pragma GCC unroll 4
  for (int j = 0; j < 4 * kWords; ++j) out[channel + j] = step.output(sums[j], w, channel + j);
}

template <class Step>
inline void average_channel(const PoolWindow& w, int32_t channels, int32_t channel,
                            const Step& step, int8_t* out) {
  int32_t sum = 0;
  CellWalk walk(w, channels, channel);
  do {
    sum += *walk.cell();
  } while (walk.next());
  out[channel] = step.output(sum, w, channel);
}

// The walk, each window's sums handed to `step` (a parameter: TFLite's
// rounded average or onnxruntime's chain, onnx_average.h).
template <class Lanes, int kBlockWords, class Step>
__attribute__((noinline)) inline void average_pool(const Pool2dParams& p, const int8_t* input,
                                                   int8_t* output, Step step) {
  const int32_t channels = p.channels;
  const bool words = pool_words_allowed(input, channels);
  for_each_pool_window(p, input, output, [&](const PoolWindow& w, int8_t* out) {
    step.set_count(w.count);
    for_each_channel_block<kBlockWords>(
        channels, words,
        [&](int32_t c, auto block_words) {
          average_block<Lanes, decltype(block_words)::value>(w, channels, c, step, out);
        },
        [&](int32_t c) { average_channel(w, channels, c, step, out); });
  });
}

}  // namespace pool_sum
}  // namespace tinyaot
