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
#include "kernels/pooling/onnx_average.h"
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
__attribute__((noinline)) void average_pool(const Pool2dParams& p, const int8_t* input,
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
  average_pool<Lanes, kBlockWords>(p, static_cast<const int8_t*>(args.inputs[0].data),
                                   static_cast<int8_t*>(args.outputs[0].data),
                                   TfliteAverageStep<kSmallCounts>(p));
  return Status::kOk;
}

Status run_sum16(const KernelArgs& args) {
  return run_average<Sum16Lanes, kSum16BlockWords, true>(args);
}

Status run_sum32(const KernelArgs& args) {
  return run_average<Sum32Lanes, kSum32BlockWords, false>(args);
}

TINYAOT_LOAD_TIME Status validate_onnx_sum16(const void* raw, const OperandView* inputs,
                                             uint32_t num_inputs, const OperandView* outputs,
                                             uint32_t num_outputs) {
  const Status status = validate_avg_pool2d_onnx(raw, inputs, num_inputs, outputs, num_outputs);
  if (status != Status::kOk) return status;
  return is_avg_pool2d_onnx_sum_case(*static_cast<const AvgPool2dOnnxParams*>(raw))
             ? Status::kOk
             : Status::kBadParams;
}

Status run_onnx_sum16(const KernelArgs& args) {
  const auto& onnx = *static_cast<const AvgPool2dOnnxParams*>(args.params);
  average_pool<Sum16Lanes, kSum16BlockWords>(
      onnx.pool, static_cast<const int8_t*>(args.inputs[0].data),
      static_cast<int8_t*>(args.outputs[0].data), OnnxAverageStep(onnx, onnx.pool.channels));
  return Status::kOk;
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

namespace tinyaot {

// onnxruntime's QLinearAveragePool from sum16's window sums (onnx_average.h).
const KernelDescriptor kernel_avg_pool2d_s8_onnx_sum16 = {
    "avg_pool2d_s8_onnx_sum16",
    "avg_pool2d_onnx",
    1,
    sizeof(AvgPool2dOnnxParams),
    1,
    1,
    1,
    IsaClass::kScalar,
    TINYAOT_AVG_POOL2D_ONNX_SIGNATURE
    "; case=window_cells<=" TINYAOT_POOL_TEXT(TINYAOT_POOL_SUM16_MAX_CELLS),
    run_onnx_sum16,
    validate_onnx_sum16,
    nullptr,
};

}  // namespace tinyaot
