// The arithmetic of one LSTM step on one batch row, shared by every
// UNIDIRECTIONAL_SEQUENCE_LSTM variant (freestanding, header-only). A
// variant supplies only the gate product (the two fully connected layers
// of a gate, where the multiply-accumulates are); the activations, the
// cell and hidden updates and the walk over time and batch live here once.
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

// TFLite's integer fully connected to int16 for one unit: the requantized
// sum, clamped to int16 (its output zero point is 0).
template <Rounding R>
inline int16_t fc_output_s16(int32_t acc, const LstmRescale& scale) {
  return saturate_i16(requantize<R>(acc, scale.multiplier, scale.shift));
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

// One unit of a gate from its two sums (biases included): the input FC
// and the recurrent FC each requantized to int16, then added with
// saturation (TFLite Micro's two FullyConnected calls and AddElementWise).
template <Rounding R>
inline int16_t gate_output(uint32_t input_sum, uint32_t recurrent_sum,
                           const LstmGateScales& scales) {
  return saturate_i16(fc_output_s16<R>(static_cast<int32_t>(input_sum), scales.input) +
                      fc_output_s16<R>(static_cast<int32_t>(recurrent_sum), scales.recurrent));
}

// The reference gate product: gate_output of every unit's two plain dot
// products. The zero points are in the folded biases: with int32
// wrapping, sum((x + k) * w) + b equals sum(x * w) + (b + k * sum(w))
// exactly.
template <Rounding R>
void gate_product_ref(const LstmStepShape& shape, const GateOperands& gate, const int8_t* input,
                      const int8_t* hidden, int16_t* out) {
  for (int32_t u = 0; u < shape.units; ++u) {
    const int8_t* wi = gate.input_weights + u * shape.input_depth;
    int32_t acc_in = gate.input_bias[u];
    for (int32_t d = 0; d < shape.input_depth; ++d) acc_in = wrapping_add(acc_in, input[d] * wi[d]);
    const int8_t* wr = gate.recurrent_weights + u * shape.units;
    int32_t acc_rec = gate.recurrent_bias[u];
    for (int32_t d = 0; d < shape.units; ++d) acc_rec = wrapping_add(acc_rec, hidden[d] * wr[d]);
    out[u] =
        gate_output<R>(static_cast<uint32_t>(acc_in), static_cast<uint32_t>(acc_rec), gate.scales);
  }
}

// The gates' activations: sigmoid and tanh of a Q3.12 input, to Q0.15.
constexpr Sigmoid16Scale kGateActivationScale = resolve_sigmoid16_scale(0, 0);

inline void activate(int16_t* gate, int32_t units, bool sigmoid) {
  for (int32_t u = 0; u < units; ++u)
    gate[u] =
        sigmoid ? sigmoid16(gate[u], kGateActivationScale) : tanh16(gate[u], kGateActivationScale);
}

// TFLite's MUL of two symmetric int16 values to a quantized output.
template <Rounding R>
inline int32_t rescaled_product(int16_t a, int16_t b, const LstmRescale& scale) {
  return requantize<R>(a * b, scale.multiplier, scale.shift);
}

// c <- f * c + i * g, each product rescaled to the cell scale and
// saturated to int16, their sum saturated, then the clip.
template <Rounding R>
void update_cell(const UnidirectionalLstmParams& p, const int16_t* forget, const int16_t* input,
                 const int16_t* cell_gate, int16_t* cell) {
  for (int32_t u = 0; u < p.units; ++u) {
    const int16_t kept = saturate_i16(rescaled_product<R>(forget[u], cell[u], p.forget_times_cell));
    const int16_t added =
        saturate_i16(rescaled_product<R>(input[u], cell_gate[u], p.input_times_cell));
    int16_t updated = saturate_i16(kept + added);
    if (p.clip_cell) updated = static_cast<int16_t>(clamp_i32(updated, -p.cell_clip, p.cell_clip));
    cell[u] = updated;
  }
}

// h <- o * tanh(c), rescaled to the hidden state's int8 quantization.
template <Rounding R>
void update_hidden(const UnidirectionalLstmParams& p, const int16_t* output_gate,
                   const int16_t* cell, int8_t* hidden) {
  const Sigmoid16Scale cell_scale{p.cell_tanh_multiplier, p.cell_tanh_right_shift};
  for (int32_t u = 0; u < p.units; ++u) {
    const int16_t squashed = tanh16(cell[u], cell_scale);
    const int32_t value =
        rescaled_product<R>(squashed, output_gate[u], p.hidden) + p.hidden_zero_point;
    hidden[u] = saturate_i8(value);
  }
}

struct LstmOperands {
  const int8_t* input;
  const int8_t* input_weights;
  const int8_t* recurrent_weights;
  const int32_t* folded_bias;
  int8_t* output;
  int8_t* hidden;
  int16_t* cell;
  int16_t* scratch;  // three gates of one row
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

// One step of one row, as TFLite Micro's LstmStep orders it: forget, input
// and cell gates; the cell update; the output gate (from the old hidden
// state); the hidden update; its copy to the output.
template <Rounding R, typename GateProduct>
void step_row(const UnidirectionalLstmParams& p, const LstmOperands& o, const int8_t* input,
              int8_t* hidden, int16_t* cell, int8_t* output, GateProduct gate_product) {
  const LstmStepShape shape{p.input_depth, p.units};
  int16_t* forget = o.scratch;
  int16_t* input_gate = o.scratch + p.units;
  int16_t* cell_gate = o.scratch + 2 * p.units;
  gate_product(shape, gate_operands(p, o, kLstmForgetGate), input, hidden, forget);
  activate(forget, p.units, true);
  gate_product(shape, gate_operands(p, o, kLstmInputGate), input, hidden, input_gate);
  activate(input_gate, p.units, true);
  gate_product(shape, gate_operands(p, o, kLstmCellGate), input, hidden, cell_gate);
  activate(cell_gate, p.units, false);
  update_cell<R>(p, forget, input_gate, cell_gate, cell);
  int16_t* output_gate = input_gate;
  gate_product(shape, gate_operands(p, o, kLstmOutputGate), input, hidden, output_gate);
  activate(output_gate, p.units, true);
  update_hidden<R>(p, output_gate, cell, hidden);
  for (int32_t u = 0; u < p.units; ++u) output[u] = hidden[u];
}

// The whole sequence. TFLite Micro steps time-major input all batches at
// once and batch-major input batch after batch; rows never interact, so
// both are the same row-by-row walk with a different row index.
template <Rounding R, typename GateProduct>
void run_sequence(const UnidirectionalLstmParams& p, const LstmOperands& o,
                  GateProduct gate_product) {
  for (int32_t b = 0; b < p.batches; ++b) {
    int8_t* hidden = o.hidden + b * p.units;
    int16_t* cell = o.cell + b * p.units;
    for (int32_t t = 0; t < p.time_steps; ++t) {
      const int32_t row = p.time_major ? t * p.batches + b : b * p.time_steps + t;
      step_row<R>(p, o, o.input + row * p.input_depth, hidden, cell, o.output + row * p.units,
                  gate_product);
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
          static_cast<int16_t*>(args.scratch.data),
          static_cast<int32_t>(lstm_gate_stride(layout, p.units, p.input_depth)),
          static_cast<int32_t>(lstm_gate_stride(layout, p.units, p.units))};
}

}  // namespace lstm
}  // namespace tinyaot
