// UNIDIRECTIONAL_SEQUENCE_LSTM, int8 activations and weights, int16 cell
// state, bit-exact with TFLite Micro's integer LSTM (lstm_eval.h: its
// LstmStep for int8 input, int8 weights, int32 bias, int16 cell).
//
// Per time step and batch row, with the gates in TFLite Micro's order
// (forget, input, cell, output):
//   gate_g   = act_g(sat16(FC_in_g(x)) +sat sat16(FC_rec_g(h)))  Q0.15
//   c       <- sat16(rescale(f * c) +sat rescale(i * g)), clipped
//   h       <- rescale(o * tanh(c)) + hidden zero point          int8
//   output   = h
// where each FC is TFLite's integer fully connected to int16 at scale
// 2^-12 (its own multiplier, clamped to int16), act is sigmoid for the
// forget, input and output gates and tanh for the cell gate (the only
// activation a TFLite model can give it that TFLite Micro's kernel runs),
// and the rescales are TFLite's MUL. Batch rows never interact,
// so the kernel runs row by row: time-major or batch-major only changes
// where a row's input and output lie.
#pragma once

#include <stdint.h>

#include "tinyaot/kernel_abi.h"

namespace tinyaot {

// The four gates in the order TFLite Micro computes them; the weights,
// biases and multipliers of the operands below follow it.
enum LstmGate : int32_t {
  kLstmForgetGate = 0,
  kLstmInputGate = 1,
  kLstmCellGate = 2,
  kLstmOutputGate = 3,
  kLstmGateCount = 4,
};

// TFLite's multiplier and shift (positive = left) of one rescale.
struct LstmRescale {
  int32_t multiplier;
  int32_t shift;
};

struct LstmGateScales {
  LstmRescale input;      // input FC: input scale * weight scale / 2^-12
  LstmRescale recurrent;  // recurrent FC: hidden scale * weight scale / 2^-12
};

struct UnidirectionalLstmParams {
  int32_t time_steps;
  int32_t batches;
  int32_t input_depth;  // features of one input row
  int32_t units;        // state dimension: cells, hidden and output features
  int32_t time_major;   // 1: input [time, batch, depth]; 0: [batch, time, depth]
  int32_t hidden_zero_point;
  // 1 when the operator has a cell clip: the new cell state is clamped to
  // [-cell_clip, cell_clip] (TFLite clips whenever the float clip is
  // positive, even where it quantizes to 0).
  int32_t clip_cell;
  int32_t cell_clip;
  LstmGateScales gates[kLstmGateCount];
  LstmRescale forget_times_cell;  // 2^-15 * cell scale / cell scale
  LstmRescale input_times_cell;   // 2^-15 * 2^-15 / cell scale
  LstmRescale hidden;             // 2^-15 * 2^-15 / hidden scale
  // The input scaling of the int16 tanh of the cell state (sigmoid_s16.h),
  // from the cell state's power-of-two scale.
  int32_t cell_tanh_multiplier;
  int32_t cell_tanh_right_shift;
};

// Operands: input s8 [rows, input_depth] (rows = time_steps * batches),
// input weights s8 [4, units, input_depth], recurrent weights s8 [4,
// units, units], folded biases i32 [2, 4, units] -> output s8 [rows,
// units], hidden state s8 [batches, units], cell state s16 [batches,
// units]. The folded biases are, per gate and unit, the input FC's bias
// plus input_offset * sum(weights) and the recurrent FC's hidden_offset *
// sum(weights) (TFLite's zero points folded out of the products). The
// states are read (the last inference's) and then written; scratch holds
// one gate's two int32 sums and the four int16 gates of one row
// (lstm_scratch_bytes, lstm_checks.h).
// `layout`: how a variant stores each gate's weights (lstm_layout.h), ""
// for the model's order.
#define TINYAOT_UNIDIRECTIONAL_LSTM_SIGNATURE_IN(layout)                                   \
  "input:s8[rows,input_depth], input_weights:s8[4,units,input_depth]" layout               \
  ", recurrent_weights:s8[4,units,units]" layout                                           \
  ", folded_bias:i32[2,4,units] -> "                                                       \
  "output:s8[rows,units], hidden_state:s8[batches,units], cell_state:s16[batches,units]; " \
  "params=UnidirectionalLstmParams{time_steps,batches,input_depth,units,time_major,"       \
  "hidden_zero_point,clip_cell,cell_clip,gates[4]{input,recurrent},"                       \
  "forget_times_cell,input_times_cell,hidden,cell_tanh_multiplier,cell_tanh_right_shift}"
#define TINYAOT_UNIDIRECTIONAL_LSTM_SIGNATURE TINYAOT_UNIDIRECTIONAL_LSTM_SIGNATURE_IN("")
extern const KernelDescriptor kernel_unidirectional_lstm_s8_ref;
// The same with each gate's weights in the layout of the fully connected
// variant of the core (lstm_layout.h): DSP cores (M4, M7, M33) and MVE
// cores (M55).
extern const KernelDescriptor kernel_unidirectional_lstm_s8_dsp;
extern const KernelDescriptor kernel_unidirectional_lstm_s8_mve;

}  // namespace tinyaot
