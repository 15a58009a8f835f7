// MAX_POOL_2D, channel-vectorized, bit-exact with max_pool2d_s8_ref: per
// output pixel the window clipped to the input once (pool_walk.h), then
// for each block of channels its cells walked with the block's maxima in
// registers, four channels per word (pool_lanes.h: SSUB8 + SEL on DSP
// cores, where the activation clamp is two more lane operations and the
// store one word). One to three channels past the last whole word are the
// last four channels' block; fewer than four channels in all, or an input
// a core cannot read in words (unaligned on M0), are taken one at a time.
#include <string.h>

#include "kernels/pooling/pool_lanes.h"
#include "kernels/pooling/pool_walk.h"
#include "kernels/pooling/pooling.h"

namespace tinyaot {
namespace {

#if defined(TINYAOT_POOL_DSP)
constexpr int kBlockWords = 4;
#else
constexpr int kBlockWords = 1;
#endif

struct Activation {
  int32_t min, max;
#if defined(TINYAOT_POOL_DSP)
  uint32_t min4, max4;  // the bounds in every byte
#endif
};

inline int8_t clamp_max(int32_t value, Activation act) {
  value = value < act.min ? act.min : value;
  value = value > act.max ? act.max : value;
  return static_cast<int8_t>(value);
}

// Channels [channel, channel + 4 * kWords) of one window. Out of line:
// inside the pixel loop GCC 12 spilled a maximum of the cell loop.
template <int kWords>
__attribute__((noinline)) void max_block(const PoolWindow& w, int32_t channels, int32_t channel,
                                         Activation act, int8_t* out) {
  MaxLanes lanes[kWords];
  CellWalk walk(w, channels, channel);
  do {
#pragma GCC unroll 4
    for (int k = 0; k < kWords; ++k) lanes[k].add(load_pool_word(walk.cell() + 4 * k));
  } while (walk.next());
#pragma GCC unroll 4
  for (int k = 0; k < kWords; ++k) {
#if defined(TINYAOT_POOL_DSP)
    const uint32_t word = lanes[k].clamped(act.min4, act.max4);
    memcpy(out + channel + 4 * k, &word, 4);
#else
    int32_t maxima[4];
    lanes[k].maxima(maxima);
    for (int j = 0; j < 4; ++j) out[channel + 4 * k + j] = clamp_max(maxima[j], act);
#endif
  }
}

inline void max_channel(const PoolWindow& w, int32_t channels, int32_t channel, Activation act,
                        int8_t* out) {
  int32_t largest = -128;
  CellWalk walk(w, channels, channel);
  do {
    const int32_t value = *walk.cell();
    largest = value > largest ? value : largest;
  } while (walk.next());
  out[channel] = clamp_max(largest, act);
}

__attribute__((noinline)) void max_pool(const Pool2dParams& p, const int8_t* input,
                                        int8_t* output) {
  const int32_t channels = p.channels;
  Activation act;
  act.min = p.act_min;
  act.max = p.act_max;
#if defined(TINYAOT_POOL_DSP)
  act.min4 = uint32_t(uint8_t(p.act_min)) * 0x01010101u;
  act.max4 = uint32_t(uint8_t(p.act_max)) * 0x01010101u;
#endif
  const bool words = pool_words_allowed(input, channels);
  for_each_pool_window(p, input, output, [&](const PoolWindow& w, int8_t* out) {
    for_each_channel_block<kBlockWords>(
        channels, words,
        [&](int32_t c, auto block_words) {
          max_block<decltype(block_words)::value>(w, channels, c, act, out);
        },
        [&](int32_t c) { max_channel(w, channels, c, act, out); });
  });
}

Status run(const KernelArgs& args) {
  const auto& p = *static_cast<const Pool2dParams*>(args.params);
  const auto* input = static_cast<const int8_t*>(args.inputs[0].data);
  auto* output = static_cast<int8_t*>(args.outputs[0].data);
  max_pool(p, input, output);
  return Status::kOk;
}

}  // namespace

const KernelDescriptor kernel_max_pool2d_s8_words = {
    "max_pool2d_s8_words",
    "max_pool2d",
    1,
    sizeof(Pool2dParams),
    1,
    1,
    1,
    IsaClass::kScalar,
    TINYAOT_POOL2D_SIGNATURE,
    run,
    validate_pool2d,
    nullptr,
};

}  // namespace tinyaot
