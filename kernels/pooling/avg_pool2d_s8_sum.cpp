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
#include "kernels/pooling/pool_sum.h"
#include "kernels/pooling/pooling.h"
#include "tinyaot/load_time.h"

namespace tinyaot {
namespace {

// sum16's averages take the reciprocal for every count of its windows.
static_assert(kSum16MaxCells <= kReciprocalMaxCount, "sum16 windows past the reciprocal's range");

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
  pool_sum::average_pool<Lanes, kBlockWords>(p, static_cast<const int8_t*>(args.inputs[0].data),
                                             static_cast<int8_t*>(args.outputs[0].data),
                                             TfliteAverageStep<kSmallCounts>(p));
  return Status::kOk;
}

Status run_sum16(const KernelArgs& args) {
  return run_average<Sum16Lanes, pool_sum::kSum16BlockWords, true>(args);
}

Status run_sum32(const KernelArgs& args) {
  return run_average<Sum32Lanes, pool_sum::kSum32BlockWords, false>(args);
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
  pool_sum::average_pool<Sum16Lanes, pool_sum::kSum16BlockWords>(
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
