// The window arithmetic both pooling kernels share (freestanding): the
// check their validate functions run and the clipping of one window axis.
#pragma once

#include <stdint.h>

#include "kernels/common/int16x8.h"
#include "kernels/common/validate.h"
#include "kernels/pooling/pooling.h"
#include "tinyaot/load_time.h"

namespace tinyaot {

// One spatial axis: every window must hold at least one input cell (TFLite
// Micro fails an average over no cell) and origin + filter must stay inside
// int32. Windows move forward with the output index, so checking the first
// and the last one covers all.
TINYAOT_LOAD_TIME inline bool is_pool_axis(int32_t input, int32_t filter, int32_t output,
                                           int32_t stride, int32_t pad) {
  if (input < 1 || filter < 1 || output < 1 || stride < 1 || pad < 0) return false;
  int64_t reach;
  if (!checked_mul(int64_t{output} - 1, stride, &reach)) return false;
  if (reach + filter > INT32_MAX) return false;
  const int64_t last_origin = reach - pad;
  return pad < filter && last_origin < input;
}

// Operand sizes and window axes of a pooling operation on int8 or int16
// values.
TINYAOT_LOAD_TIME inline Status validate_pool2d_of(const Pool2dParams& p, Activations a,
                                                   const OperandView* inputs, uint32_t num_inputs,
                                                   const OperandView* outputs,
                                                   uint32_t num_outputs) {
  if (num_inputs != 1 || num_outputs != 1) return Status::kBadParams;
  if (p.batches < 1 || p.channels < 1) return Status::kBadParams;
  if (!is_pool_axis(p.input_h, p.filter_h, p.output_h, p.stride_h, p.pad_top) ||
      !is_pool_axis(p.input_w, p.filter_w, p.output_w, p.stride_w, p.pad_left))
    return Status::kBadParams;
  const int32_t input_dims[] = {p.batches, p.input_h, p.input_w, p.channels};
  const int32_t output_dims[] = {p.batches, p.output_h, p.output_w, p.channels};
  const int64_t input_size = checked_elements(input_dims, 4);
  const int64_t output_size = checked_elements(output_dims, 4);
  if (input_size < 0 || output_size < 0) return Status::kBadParams;
  const int64_t width = activation_bytes(a);
  if (inputs[0].bytes != input_size * width || outputs[0].bytes != output_size * width)
    return Status::kBadParams;
  const bool in_range = a == Activations::kInt16 ? is_int16_activation_range(p.act_min, p.act_max)
                                                 : is_activation_range(p.act_min, p.act_max);
  return in_range ? Status::kOk : Status::kBadParams;
}

TINYAOT_LOAD_TIME inline Status validate_pool2d(const void* raw, const OperandView* inputs,
                                                uint32_t num_inputs, const OperandView* outputs,
                                                uint32_t num_outputs) {
  return validate_pool2d_of(*static_cast<const Pool2dParams*>(raw), Activations::kInt8, inputs,
                            num_inputs, outputs, num_outputs);
}

// The most cells a window can hold inside the input: the filter clipped to
// the input on each axis. Every window's count is at most this.
inline int64_t pool_window_cells(const Pool2dParams& p) {
  const int64_t rows = p.filter_h < p.input_h ? p.filter_h : p.input_h;
  const int64_t cols = p.filter_w < p.input_w ? p.filter_w : p.input_w;
  return rows * cols;
}

// A window of more than 2^23 cells (2^15 of int16 values) could overflow
// the int32 sum of an average and its rounding; no real model comes near.
constexpr int64_t kMaxAverageWindowCells = int64_t{1} << 23;
constexpr int64_t kMaxInt16AverageWindowCells = int64_t{1} << 15;

// validate_pool2d, and the average's window bound.
TINYAOT_LOAD_TIME inline Status validate_avg_pool2d(const void* raw, const OperandView* inputs,
                                                    uint32_t num_inputs, const OperandView* outputs,
                                                    uint32_t num_outputs) {
  const Status status = validate_pool2d(raw, inputs, num_inputs, outputs, num_outputs);
  if (status != Status::kOk) return status;
  return pool_window_cells(*static_cast<const Pool2dParams*>(raw)) <= kMaxAverageWindowCells
             ? Status::kOk
             : Status::kBadParams;
}

TINYAOT_LOAD_TIME inline Status validate_pool2d_s16(const void* raw, const OperandView* inputs,
                                                    uint32_t num_inputs, const OperandView* outputs,
                                                    uint32_t num_outputs) {
  return validate_pool2d_of(*static_cast<const Pool2dParams*>(raw), Activations::kInt16, inputs,
                            num_inputs, outputs, num_outputs);
}

TINYAOT_LOAD_TIME inline Status validate_avg_pool2d_s16(const void* raw, const OperandView* inputs,
                                                        uint32_t num_inputs,
                                                        const OperandView* outputs,
                                                        uint32_t num_outputs) {
  const Status status = validate_pool2d_s16(raw, inputs, num_inputs, outputs, num_outputs);
  if (status != Status::kOk) return status;
  return pool_window_cells(*static_cast<const Pool2dParams*>(raw)) <= kMaxInt16AverageWindowCells
             ? Status::kOk
             : Status::kBadParams;
}

// The part of a window axis inside the input: [*begin, *end) in input
// coordinates. Never empty once validate_pool2d has passed.
inline void clip_window(int32_t origin, int32_t filter, int32_t input, int32_t* begin,
                        int32_t* end) {
  *begin = origin < 0 ? 0 : origin;
  *end = origin + filter < input ? origin + filter : input;
}

}  // namespace tinyaot
