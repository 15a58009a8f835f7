// What every UNIDIRECTIONAL_SEQUENCE_LSTM variant shares (freestanding,
// header-only): the checks of its validate and its scratch size, one
// definition so that no variant accepts what another refuses.
#pragma once

#include <stdint.h>

#include "kernels/common/validate.h"
#include "kernels/lstm/lstm.h"
#include "kernels/lstm/lstm_layout.h"
#include "tinyaot/load_time.h"

namespace tinyaot {

// One gate's two sums, int32, and the four gates of one batch row, int16
// (lstm_step.h).
inline uint32_t lstm_scratch_bytes(const void* raw) {
  const auto& p = *static_cast<const UnidirectionalLstmParams*>(raw);
  const uint32_t units = static_cast<uint32_t>(p.units);
  return 2u * units * sizeof(uint32_t) + kLstmGateCount * units * sizeof(int16_t);
}

TINYAOT_LOAD_TIME inline bool is_lstm_rescale(const LstmRescale& r) {
  return r.multiplier >= 0 && is_shift(r.shift);
}

TINYAOT_LOAD_TIME inline bool is_flag(int32_t value) { return value == 0 || value == 1; }

TINYAOT_LOAD_TIME inline Status validate_lstm_params(const UnidirectionalLstmParams& p) {
  if (p.time_steps < 1 || p.batches < 1 || p.input_depth < 1 || p.units < 1)
    return Status::kBadParams;
  if (!is_flag(p.time_major) || !is_flag(p.clip_cell)) return Status::kBadParams;
  if (p.cell_clip < 0 || p.cell_clip > 32767) return Status::kBadParams;
  if (p.hidden_zero_point < -128 || p.hidden_zero_point > 127) return Status::kBadParams;
  for (const LstmGateScales& gate : p.gates)
    if (!is_lstm_rescale(gate.input) || !is_lstm_rescale(gate.recurrent)) return Status::kBadParams;
  if (!is_lstm_rescale(p.forget_times_cell) || !is_lstm_rescale(p.input_times_cell) ||
      !is_lstm_rescale(p.hidden))
    return Status::kBadParams;
  // The tanh's input scaling, |x| * multiplier + rounding, stays in int32.
  if (p.cell_tanh_multiplier < 1 || p.cell_tanh_right_shift < 0 || p.cell_tanh_right_shift > 30)
    return Status::kBadParams;
  const int64_t rounding = (int64_t{1} << p.cell_tanh_right_shift) / 2;
  if (int64_t{32768} * p.cell_tanh_multiplier + rounding > INT32_MAX) return Status::kBadParams;
  return Status::kOk;
}

// Sizes: every product a variant forms as an index stays below 2^31; the
// weights as large as `layout` stores them.
TINYAOT_LOAD_TIME inline Status validate_lstm_layout(LstmWeightLayout layout, const void* raw,
                                                     const OperandView* inputs, uint32_t num_inputs,
                                                     const OperandView* outputs,
                                                     uint32_t num_outputs) {
  const auto& p = *static_cast<const UnidirectionalLstmParams*>(raw);
  if (num_inputs != 4 || num_outputs != 3) return Status::kBadParams;
  const Status params = validate_lstm_params(p);
  if (params != Status::kOk) return params;
  int64_t rows = 0, input_bytes = 0, output_bytes = 0, gate_input = 0, input_weights = 0,
          gate_recurrent = 0, recurrent_weights = 0, bias_count = 0, state = 0;
  if (!checked_mul(p.time_steps, p.batches, &rows) ||
      !checked_mul(rows, p.input_depth, &input_bytes) ||
      !checked_mul(rows, p.units, &output_bytes) ||
      !checked_mul(p.units, p.input_depth, &gate_input) ||
      !checked_mul(kLstmGateCount, lstm_gate_stride(layout, p.units, p.input_depth),
                   &input_weights) ||
      !checked_mul(p.units, p.units, &gate_recurrent) ||
      !checked_mul(kLstmGateCount, lstm_gate_stride(layout, p.units, p.units),
                   &recurrent_weights) ||
      !checked_mul(2 * kLstmGateCount * sizeof(int32_t), p.units, &bias_count) ||
      !checked_mul(p.batches, p.units * int64_t{2}, &state))
    return Status::kBadParams;
  if (inputs[0].bytes != input_bytes || inputs[1].bytes != input_weights ||
      inputs[2].bytes != recurrent_weights || inputs[3].bytes != bias_count)
    return Status::kBadParams;
  if (outputs[0].bytes != output_bytes || outputs[1].bytes != state / 2 ||
      outputs[2].bytes != state)
    return Status::kBadParams;
  return Status::kOk;
}

TINYAOT_LOAD_TIME inline Status validate_lstm_operands(const void* raw, const OperandView* inputs,
                                                       uint32_t num_inputs,
                                                       const OperandView* outputs,
                                                       uint32_t num_outputs) {
  return validate_lstm_layout(LstmWeightLayout::kModel, raw, inputs, num_inputs, outputs,
                              num_outputs);
}

// The DSP and MVE variants: their layouts, and 4-byte aligned weights (the
// DSP dot product loads aligned word pairs; the program's constants are
// 16-byte aligned).
template <LstmWeightLayout kLayout>
TINYAOT_LOAD_TIME Status validate_reordered_lstm_operands(const void* raw,
                                                          const OperandView* inputs,
                                                          uint32_t num_inputs,
                                                          const OperandView* outputs,
                                                          uint32_t num_outputs) {
  const Status status =
      validate_lstm_layout(kLayout, raw, inputs, num_inputs, outputs, num_outputs);
  if (status != Status::kOk) return status;
  return is_aligned_for<uint32_t>(inputs[1].constant) &&
                 is_aligned_for<uint32_t>(inputs[2].constant)
             ? Status::kOk
             : Status::kMisaligned;
}

}  // namespace tinyaot
