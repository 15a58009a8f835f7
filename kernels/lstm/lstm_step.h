// The arithmetic of one LSTM step on one batch row, shared by every
// UNIDIRECTIONAL_SEQUENCE_LSTM variant (freestanding, header-only). A
// variant supplies only the gate sums (the two fully connected layers of a
// gate, where the multiply-accumulates are); their requantization, the
// activations, the cell and hidden updates and the walk over time and
// batch live here once.
#pragma once

#include <stdint.h>

#if defined(__ARM_FEATURE_SAT) && __ARM_FEATURE_SAT
#include <arm_acle.h>
#endif

#include "kernels/common/quant.h"
#include "kernels/common/sigmoid_s16.h"
#include "kernels/lstm/lstm.h"
#include "kernels/lstm/lstm_layout.h"

namespace tinyaot {
namespace lstm {

// One SSAT where the core has it (GCC 12 compares and moves twice).
inline int16_t saturate_i16(int32_t x) {
#if defined(__ARM_FEATURE_SAT) && __ARM_FEATURE_SAT
  return static_cast<int16_t>(__ssat(x, 16));
#else
  return static_cast<int16_t>(clamp_i32(x, -32768, 32767));
#endif
}

// The sizes a gate product needs.
struct LstmStepShape {
  int32_t input_depth;
  int32_t units;
};

// What a gate product reads: the gate's weights and folded biases.
struct GateOperands {
  const int8_t* input_weights;      // [units, input_depth]
  const int8_t* recurrent_weights;  // [units, units]
  const int32_t* input_bias;        // [units], input offset folded in
  const int32_t* recurrent_bias;    // [units], hidden offset folded in
  LstmGateScales scales;
};

// A gate's sums, one per unit, without the biases (int32, wrapping).
struct GateSums {
  uint32_t* input;      // the input FC's
  uint32_t* recurrent;  // the recurrent FC's
};

// The reference gate sums: plain dot products.
inline void gate_sums_ref(const LstmStepShape& shape, const GateOperands& gate, const int8_t* input,
                          const int8_t* hidden, GateSums sums) {
  for (int32_t u = 0; u < shape.units; ++u) {
    const int8_t* wi = gate.input_weights + u * shape.input_depth;
    int32_t acc_in = 0;
    for (int32_t d = 0; d < shape.input_depth; ++d) acc_in = wrapping_add(acc_in, input[d] * wi[d]);
    const int8_t* wr = gate.recurrent_weights + u * shape.units;
    int32_t acc_rec = 0;
    for (int32_t d = 0; d < shape.units; ++d) acc_rec = wrapping_add(acc_rec, hidden[d] * wr[d]);
    sums.input[u] = static_cast<uint32_t>(acc_in);
    sums.recurrent[u] = static_cast<uint32_t>(acc_rec);
  }
}

// The gates' activations: sigmoid and tanh of a Q3.12 input, to Q0.15.
constexpr Sigmoid16Scale kGateActivationScale = resolve_sigmoid16_scale(0, 0);

template <bool kSigmoid>
inline int16_t activate(int16_t x) {
  return kSigmoid ? sigmoid16(x, kGateActivationScale) : tanh16(x, kGateActivationScale);
}

// requantize of x, its usual case (a right shift, multiplier >= 0: every
// real model's) known beforehand when kRightShift, so that a loop tests
// it once rather than per value.
template <Rounding R, bool kRightShift>
inline int32_t rescale(int32_t x, int32_t multiplier, int32_t shift) {
  if constexpr (kRightShift && R != Rounding::kOnnx)
    return requantize_detail::right_shift<R>(x, multiplier, shift);
  else
    return requantize<R>(x, multiplier, shift);
}

// A gate from its sums: per unit the input FC and the recurrent FC, each
// with its folded bias, requantized to int16, added with saturation (TFLite Micro's two
// FullyConnected calls and AddElementWise), then activated. One loop over
// the units with the gate's constants in registers; the usual rescales
// (a right shift, as every real model's) test their case once a gate.
// The zero points are in the folded biases: with int32 wrapping, sum((x
// + k) * w) + b equals sum(x * w) + (b + k * sum(w)) exactly.
template <Rounding R, bool kSigmoid, bool kRightShifts>
void finish_gate_in(GateSums sums, int32_t units, const GateOperands& operands, int16_t* gate) {
  const LstmGateScales& scales = operands.scales;
  const int32_t m_in = scales.input.multiplier, shift_in = scales.input.shift;
  const int32_t m_rec = scales.recurrent.multiplier, shift_rec = scales.recurrent.shift;
  const int32_t* const bias_in = operands.input_bias;
  const int32_t* const bias_rec = operands.recurrent_bias;
  for (int32_t u = 0; u < units; ++u) {
    const int32_t x_in = static_cast<int32_t>(sums.input[u] + static_cast<uint32_t>(bias_in[u]));
    const int32_t x_rec =
        static_cast<int32_t>(sums.recurrent[u] + static_cast<uint32_t>(bias_rec[u]));
    const int32_t in = rescale<R, kRightShifts>(x_in, m_in, shift_in);
    const int32_t rec = rescale<R, kRightShifts>(x_rec, m_rec, shift_rec);
    gate[u] = activate<kSigmoid>(saturate_i16(saturate_i16(in) + saturate_i16(rec)));
  }
}

// requantize's usual case: a right shift and a multiplier >= 0.
inline bool is_right_shift(const LstmRescale& r) { return (r.shift & ~r.multiplier) < 0; }

template <Rounding R, bool kSigmoid>
void finish_gate(GateSums sums, int32_t units, const GateOperands& operands, int16_t* gate) {
  if (is_right_shift(operands.scales.input) && is_right_shift(operands.scales.recurrent))
    finish_gate_in<R, kSigmoid, true>(sums, units, operands, gate);
  else
    finish_gate_in<R, kSigmoid, false>(sums, units, operands, gate);
}

// The gates of one row, activated, Q0.15.
struct Gates {
  const int16_t* forget;
  const int16_t* input;
  const int16_t* cell;
  const int16_t* output;
};

// The state update of one row, unit by unit: c <- f * c + i * g, each
// product rescaled to the cell scale (TFLite's MUL of two symmetric int16
// values) and saturated to int16, their sum saturated, then the clip; h <-
// o * tanh(c), rescaled to the hidden state's int8 quantization; the
// output <- h. The rescales' constants in registers, their case tested
// once a row (rescale).
template <Rounding R, bool kRightShifts>
void update_state_in(const UnidirectionalLstmParams& p, const Gates& g, int16_t* cell,
                     int8_t* hidden, int8_t* output) {
  const Sigmoid16Scale cell_scale{p.cell_tanh_multiplier, p.cell_tanh_right_shift};
  const int32_t clip_low = p.clip_cell ? -p.cell_clip : -32768;
  const int32_t clip_high = p.clip_cell ? p.cell_clip : 32767;
  const LstmRescale kept_scale = p.forget_times_cell, added_scale = p.input_times_cell;
  const LstmRescale hidden_scale = p.hidden;
  const int32_t zero_point = p.hidden_zero_point;
  for (int32_t u = 0; u < p.units; ++u) {
    const int16_t kept = saturate_i16(
        rescale<R, kRightShifts>(g.forget[u] * cell[u], kept_scale.multiplier, kept_scale.shift));
    const int16_t added = saturate_i16(rescale<R, kRightShifts>(
        g.input[u] * g.cell[u], added_scale.multiplier, added_scale.shift));
    const int16_t updated =
        static_cast<int16_t>(clamp_i32(saturate_i16(kept + added), clip_low, clip_high));
    cell[u] = updated;
    const int16_t squashed = tanh16(updated, cell_scale);
    // Wrapping, as the core's ADD (and the MVE variant's VADD) does: a
    // rescale far beyond any model's can reach the int32 limits.
    const int8_t h = saturate_i8(
        wrapping_add(rescale<R, kRightShifts>(squashed * g.output[u], hidden_scale.multiplier,
                                              hidden_scale.shift),
                     zero_point));
    hidden[u] = h;
    output[u] = h;
  }
}

template <Rounding R>
void update_state(const UnidirectionalLstmParams& p, const Gates& g, int16_t* cell, int8_t* hidden,
                  int8_t* output) {
  if (is_right_shift(p.forget_times_cell) && is_right_shift(p.input_times_cell) &&
      is_right_shift(p.hidden))
    update_state_in<R, true>(p, g, cell, hidden, output);
  else
    update_state_in<R, false>(p, g, cell, hidden, output);
}

// How a variant finishes a step: Finish::gate<R, kSigmoid>(sums, units,
// operands, gate) does what finish_gate does, Finish::state<R>(p, gates,
// cell, hidden, output) what update_state does. The scalar loops above are
// every variant's but the MVE one's (lstm_finish_mve.h).
struct ScalarFinish {
  template <Rounding R, bool kSigmoid>
  static void gate(GateSums sums, int32_t units, const GateOperands& operands, int16_t* out) {
    finish_gate<R, kSigmoid>(sums, units, operands, out);
  }
  template <Rounding R>
  static void state(const UnidirectionalLstmParams& p, const Gates& g, int16_t* cell,
                    int8_t* hidden, int8_t* output) {
    update_state<R>(p, g, cell, hidden, output);
  }
};

struct LstmOperands {
  const int8_t* input;
  const int8_t* input_weights;
  const int8_t* recurrent_weights;
  const int32_t* folded_bias;
  int8_t* output;
  int8_t* hidden;
  int16_t* cell;
  void* scratch;  // lstm_scratch_bytes: two gate sums, four gates
  // Bytes from one gate's weights to the next one's (lstm_layout.h).
  int32_t input_gate_stride;
  int32_t recurrent_gate_stride;
};

inline GateOperands gate_operands(const UnidirectionalLstmParams& p, const LstmOperands& o,
                                  int32_t gate) {
  const int32_t units = p.units;
  return {o.input_weights + gate * o.input_gate_stride,
          o.recurrent_weights + gate * o.recurrent_gate_stride, o.folded_bias + gate * units,
          o.folded_bias + (kLstmGateCount + gate) * units, p.gates[gate]};
}

// One step of one row. TFLite Micro's LstmStep computes the forget,
// input and cell gates, updates the cell, then computes the output gate
// and the hidden state; every gate reads only the input and the old hidden
// state, so all four come first here and the cell and hidden updates run
// in one loop, with the same results.
template <Rounding R, typename Finish, typename GateSumsFn>
void step_row(const UnidirectionalLstmParams& p, const LstmOperands& o, const int8_t* input,
              int8_t* hidden, int16_t* cell, int8_t* output, GateSumsFn gate_sums) {
  const LstmStepShape shape{p.input_depth, p.units};
  auto* const sums_at = static_cast<uint32_t*>(o.scratch);
  const GateSums sums{sums_at, sums_at + p.units};
  int16_t* const gates = reinterpret_cast<int16_t*>(sums_at + 2 * p.units);
  for (int32_t g = 0; g < kLstmGateCount; ++g) {
    const GateOperands operands = gate_operands(p, o, g);
    gate_sums(shape, operands, input, hidden, sums);
    int16_t* const gate = gates + g * p.units;
    if (g == kLstmCellGate)
      Finish::template gate<R, false>(sums, p.units, operands, gate);
    else
      Finish::template gate<R, true>(sums, p.units, operands, gate);
  }
  const Gates activated{gates, gates + p.units, gates + 2 * p.units, gates + 3 * p.units};
  Finish::template state<R>(p, activated, cell, hidden, output);
}

// The whole sequence. TFLite Micro steps time-major input all batches at
// once and batch-major input batch after batch; rows never interact, so
// both are the same row-by-row walk with a different row index.
template <Rounding R, typename Finish = ScalarFinish, typename GateSumsFn>
void run_sequence(const UnidirectionalLstmParams& p, const LstmOperands& o, GateSumsFn gate_sums) {
  for (int32_t b = 0; b < p.batches; ++b) {
    int8_t* hidden = o.hidden + b * p.units;
    int16_t* cell = o.cell + b * p.units;
    for (int32_t t = 0; t < p.time_steps; ++t) {
      const int32_t row = p.time_major ? t * p.batches + b : b * p.time_steps + t;
      step_row<R, Finish>(p, o, o.input + row * p.input_depth, hidden, cell,
                          o.output + row * p.units, gate_sums);
    }
  }
}

inline LstmOperands lstm_operands(const KernelArgs& args, LstmWeightLayout layout) {
  const auto& p = *static_cast<const UnidirectionalLstmParams*>(args.params);
  return {static_cast<const int8_t*>(args.inputs[0].data),
          static_cast<const int8_t*>(args.inputs[1].data),
          static_cast<const int8_t*>(args.inputs[2].data),
          static_cast<const int32_t*>(args.inputs[3].data),
          static_cast<int8_t*>(args.outputs[0].data),
          static_cast<int8_t*>(args.outputs[1].data),
          static_cast<int16_t*>(args.outputs[2].data),
          args.scratch.data,
          static_cast<int32_t>(lstm_gate_stride(layout, p.units, p.input_depth)),
          static_cast<int32_t>(lstm_gate_stride(layout, p.units, p.units))};
}

}  // namespace lstm
}  // namespace tinyaot
