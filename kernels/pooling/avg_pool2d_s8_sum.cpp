// AVERAGE_POOL_2D, channel-vectorized, bit-exact with avg_pool2d_s8_ref:
// per output pixel the window clipped to the input once (pool_walk.h),
// then for each block of channels its cells walked with the block's sums
// in registers, four channels per word (pool_lanes.h), and each average
// divided by a reciprocal multiply (average_divider.h). One to three
// channels past the last whole word are the last four channels' block;
// fewer than four channels in all, or an input a core cannot read in words
// (unaligned on M0), are summed one channel at a time.
//   avg_pool2d_s8_sum16: windows of at most 256 cells, 16-bit sums (two
//     SXTAB16 or five ALU operations per word and cell).
//   avg_pool2d_s8_sum32: any window, a 32-bit sum per channel.
#include "kernels/pooling/average_divider.h"
#include "kernels/pooling/pool_cases.h"
#include "kernels/pooling/pool_lanes.h"
#include "kernels/pooling/pool_walk.h"
#include "kernels/pooling/pooling.h"
#include "tinyaot/load_time.h"

namespace tinyaot {
namespace {

// sum16's averages take the reciprocal for every count of its windows.
static_assert(kSum16MaxCells <= kReciprocalMaxCount, "sum16 windows past the reciprocal's range");

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

struct Activation {
  int32_t min, max;
};

// The output of one channel, clamped to the activation range. (With the
// range all of int8, as in every model we know, the clamp changes nothing;
// a loop without it would run a few instructions less per output, a
// second copy of the whole pooling loop, which costs more flash than it
// saves time: the outputs are few beside the cells summed.)
template <bool kSmallCounts>
inline int8_t finish_average(int32_t sum, const AverageDivider& divider, Activation act) {
  int32_t value = divider.average<kSmallCounts>(sum);
  value = value < act.min ? act.min : value;
  value = value > act.max ? act.max : value;
  return static_cast<int8_t>(value);
}

// The sums of channels [channel, channel + 4 * kWords) over one window.
// Out of line: inside the pixel loop GCC 12 spilled accumulators and
// constants of the cell loop to the stack.
template <class Lanes, int kWords>
__attribute__((noinline)) void sum_block(const PoolWindow& w, int32_t channels, int32_t channel,
                                         int32_t sums[4 * kWords]) {
  Lanes lanes[kWords];
  CellWalk walk(w, channels, channel);
  do {
#pragma GCC unroll 4
    for (int k = 0; k < kWords; ++k) lanes[k].add(load_pool_word(walk.cell() + 4 * k));
  } while (walk.next());
#pragma GCC unroll 4
  for (int k = 0; k < kWords; ++k) lanes[k].sums(w.count, sums + 4 * k);
}

template <class Lanes, int kWords, bool kSmallCounts>
inline void average_block(const PoolWindow& w, int32_t channels, int32_t channel,
                          const AverageDivider& divider, Activation act, int8_t* out) {
  int32_t sums[4 * kWords];
  sum_block<Lanes, kWords>(w, channels, channel, sums);
#pragma GCC unroll 4
  for (int j = 0; j < 4 * kWords; ++j)
    out[channel + j] = finish_average<kSmallCounts>(sums[j], divider, act);
}

template <bool kSmallCounts>
inline void average_channel(const PoolWindow& w, int32_t channels, int32_t channel,
                            const AverageDivider& divider, Activation act, int8_t* out) {
  int32_t sum = 0;
  CellWalk walk(w, channels, channel);
  do {
    sum += *walk.cell();
  } while (walk.next());
  out[channel] = finish_average<kSmallCounts>(sum, divider, act);
}

template <class Lanes, int kBlockWords, bool kSmallCounts>
__attribute__((noinline)) void average_pool(const Pool2dParams& p, const int8_t* input,
                                            int8_t* output) {
  const int32_t channels = p.channels;
  const Activation act{p.act_min, p.act_max};
  const bool words = pool_words_allowed(input, channels);
  AverageDivider divider;
  for_each_pool_window(p, input, output, [&](const PoolWindow& w, int8_t* out) {
    divider.set_count(w.count);
    for_each_channel_block<kBlockWords>(
        channels, words,
        [&](int32_t c, auto block_words) {
          average_block<Lanes, decltype(block_words)::value, kSmallCounts>(w, channels, c, divider,
                                                                           act, out);
        },
        [&](int32_t c) { average_channel<kSmallCounts>(w, channels, c, divider, act, out); });
  });
}

TINYAOT_LOAD_TIME Status validate_sum16(const void* raw, const OperandView* inputs,
                                        uint32_t num_inputs, const OperandView* outputs,
                                        uint32_t num_outputs) {
  const Status status = validate_pool2d(raw, inputs, num_inputs, outputs, num_outputs);
  if (status != Status::kOk) return status;
  return is_avg_pool2d_sum16_case(*static_cast<const Pool2dParams*>(raw)) ? Status::kOk
                                                                          : Status::kBadParams;
}

template <class Lanes, int kBlockWords, bool kSmallCounts>
Status run_average(const KernelArgs& args) {
  const auto& p = *static_cast<const Pool2dParams*>(args.params);
  const auto* input = static_cast<const int8_t*>(args.inputs[0].data);
  auto* output = static_cast<int8_t*>(args.outputs[0].data);
  average_pool<Lanes, kBlockWords, kSmallCounts>(p, input, output);
  return Status::kOk;
}

Status run_sum16(const KernelArgs& args) {
  return run_average<Sum16Lanes, kSum16BlockWords, true>(args);
}

Status run_sum32(const KernelArgs& args) {
  return run_average<Sum32Lanes, kSum32BlockWords, false>(args);
}

}  // namespace

const KernelDescriptor kernel_avg_pool2d_s8_sum16 = {
    "avg_pool2d_s8_sum16",
    "avg_pool2d",
    1,
    sizeof(Pool2dParams),
    1,
    1,
    1,
    IsaClass::kScalar,
    TINYAOT_POOL2D_SIGNATURE
    "; case=window_cells<=" TINYAOT_POOL_TEXT(TINYAOT_POOL_SUM16_MAX_CELLS),
    run_sum16,
    validate_sum16,
    nullptr,
};

// Windows of more than 2^23 cells are refused as by the reference (its
// int32 sum could overflow).
const KernelDescriptor kernel_avg_pool2d_s8_sum32 = {
    "avg_pool2d_s8_sum32",
    "avg_pool2d",
    1,
    sizeof(Pool2dParams),
    1,
    1,
    1,
    IsaClass::kScalar,
    TINYAOT_POOL2D_SIGNATURE,
    run_sum32,
    validate_avg_pool2d,
    nullptr,
};

}  // namespace tinyaot
