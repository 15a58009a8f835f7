// The UNIDIRECTIONAL_SEQUENCE_LSTM family's sweep (freestanding,
// header-only, no heap): its operation reads and writes two state
// operands and takes four inputs, so its cases are drawn and run here
// rather than through variant_sweep.h's one-output case.
//
// Per case: a random shape (units and input depth not multiples of 4 or
// 16 as often as they are, several batch rows, time- or batch-major),
// random weights, inputs, states and folded biases (now and then at the
// extremes that wrap the accumulators), rescales over the ranges real
// models give and beyond, with and without cell clip; each rounding mode
// the family has. The reference and the variant start from the same
// states and must leave the same output and states, write nothing outside
// them or their scratch and leave their inputs unchanged. The input,
// hidden state and output lie at every offset mod 4; the weights are
// program constants, 16-byte aligned as the program places them.
#pragma once

#include <stdint.h>
#include <string.h>

#include "kernels/common/sigmoid_s16.h"
#include "kernels/lstm/lstm.h"
#include "kernels/lstm/lstm_variants.h"
#include "tests/variant_sweep/variant_sweep.h"

namespace tinyaot::sweep {

// The shapes drawn: one gate's weights within kMaxLstmUnits x (depth +
// units), the whole within the workspace's buffers.
constexpr int32_t kMaxLstmUnits = 40;
constexpr int32_t kMaxLstmDepth = 48;
constexpr int32_t kMaxLstmTimeSteps = 5;
constexpr int32_t kMaxLstmBatches = 3;

inline bool is_lstm(const KernelDescriptor& kernel) {
  return strcmp(kernel.op, kernel_unidirectional_lstm_s8_ref.op) == 0;
}

inline uint32_t round_up16(uint32_t bytes) { return (bytes + 15u) & ~15u; }

// Where one run's operands lie in the workspace.
struct LstmPlacement {
  uint32_t input, hidden, cell;  // ws.input: the input and the states to start from
  uint32_t output_offset;        // mod 4, of the output and hidden state in the run's buffer
};

struct LstmCase {
  UnidirectionalLstmParams p;
  uint32_t rows, input_bytes, output_bytes, state_elements;
  uint32_t input_weights_bytes, recurrent_weights_bytes;  // model order
  LstmPlacement at;
};

inline LstmRescale draw_lstm_rescale(Random& r, int32_t lo_shift, int32_t hi_shift) {
  const int32_t kind = r.uniform(0, 15);
  const int32_t multiplier = kind == 0   ? INT32_C(1) << 30
                             : kind == 1 ? INT32_MAX
                             : kind == 2 ? 0
                                         : r.uniform(INT32_C(1) << 30, INT32_MAX);
  // Now and then any legal shift: the requantization's general path.
  const int32_t shift = r.one_in(10) ? r.uniform(-31, 30) : r.uniform(lo_shift, hi_shift);
  return {multiplier, shift};
}

inline bool draw_lstm_shape(Random& r, LstmCase* c) {
  UnidirectionalLstmParams& p = c->p;
  p = UnidirectionalLstmParams{};
  p.units = r.one_in(6) ? r.pick({4, 16, 20, 32}) : r.uniform(1, kMaxLstmUnits);
  p.input_depth = r.one_in(6) ? r.pick({4, 16, 28, 48}) : r.uniform(1, kMaxLstmDepth);
  p.time_steps = r.uniform(1, kMaxLstmTimeSteps);
  p.batches = r.one_in(2) ? 1 : r.uniform(2, kMaxLstmBatches);
  p.time_major = r.uniform(0, 1);
  p.hidden_zero_point = r.one_in(6) ? r.pick({-128, 0, 127}) : r.uniform(-128, 127);
  p.clip_cell = r.uniform(0, 1);
  p.cell_clip = r.one_in(4) ? r.pick({0, 1, 32767}) : r.uniform(0, 32767);
  // Mostly where real models put them (TFLite Micro's 2^-12 gate inputs,
  // 2^-15 gate outputs, a cell scale near 2^-11): gate values off the
  // activations' saturation, so that a wrong sum shows.
  for (LstmGateScales& gate : p.gates)
    gate = {draw_lstm_rescale(r, -8, -1), draw_lstm_rescale(r, -8, -1)};
  p.forget_times_cell = draw_lstm_rescale(r, -16, -13);
  p.input_times_cell = draw_lstm_rescale(r, -22, -14);
  p.hidden = draw_lstm_rescale(r, -25, -19);
  // As the lowering resolves TFLite's tanh input scaling of the cell state.
  const int32_t tanh_left_shift = r.uniform(-3, 14);
  const Sigmoid16Scale tanh_scale = tanh_left_shift < 0
                                        ? resolve_sigmoid16_scale(3, -tanh_left_shift)
                                        : resolve_sigmoid16_scale(0, tanh_left_shift);
  p.cell_tanh_multiplier = tanh_scale.multiplier;
  p.cell_tanh_right_shift = tanh_scale.right_shift;

  c->rows = uint32_t(p.time_steps * p.batches);
  c->input_bytes = c->rows * uint32_t(p.input_depth);
  c->output_bytes = c->rows * uint32_t(p.units);
  c->state_elements = uint32_t(p.batches * p.units);
  c->input_weights_bytes = uint32_t(kLstmGateCount * p.units * p.input_depth);
  c->recurrent_weights_bytes = uint32_t(kLstmGateCount * p.units * p.units);
  return c->input_weights_bytes + c->recurrent_weights_bytes <= kMaxFilterBytes - 32 &&
         2 * kLstmGateCount * p.units <= int32_t(kMaxColumnTerms);
}

// A run's buffer (ws.expected or ws.actual): guard, output, guard, hidden
// state, guard, cell state, guard; the output and hidden state at the
// case's offset mod 4, the cell state 2-byte aligned.
struct LstmRunLayout {
  uint32_t output, hidden, cell, end;
};

inline LstmRunLayout lstm_run_layout(const LstmCase& c) {
  LstmRunLayout l;
  l.output = kGuardBytes + c.at.output_offset;
  l.hidden = round_up16(l.output + c.output_bytes + kGuardBytes) + c.at.output_offset;
  l.cell = round_up16(l.hidden + c.state_elements + kGuardBytes);
  l.end = l.cell + 2 * c.state_elements + kGuardBytes;
  return l;
}

inline bool lstm_fits(const LstmCase& c) {
  const uint32_t cell = round_up16(c.at.hidden + c.state_elements);
  return cell + 2 * c.state_elements <= kMaxInputBytes &&
         lstm_run_layout(c).end <= sizeof(Workspace::expected);
}

// The variant's weights: each matrix in the variant's layout, the
// recurrent one 16 bytes on from the input one's end.
struct LstmWeights {
  const int8_t* input;
  uint32_t input_bytes;
  const int8_t* recurrent;
  uint32_t recurrent_bytes;
};

inline LstmWeights lstm_weights_for(const KernelDescriptor& kernel, Workspace& ws,
                                    const LstmCase& c) {
  const LstmWeightLayout layout = lstm_weight_layout(&kernel);
  const UnidirectionalLstmParams& p = c.p;
  const bool ordered = layout != LstmWeightLayout::kModel;
  int8_t* base = ordered ? ws.variant_filter : ws.filter;
  const uint32_t input_bytes =
      uint32_t(kLstmGateCount * lstm_gate_stride(layout, p.units, p.input_depth));
  const uint32_t recurrent_bytes =
      uint32_t(kLstmGateCount * lstm_gate_stride(layout, p.units, p.units));
  const uint32_t recurrent_at = ordered ? round_up16(input_bytes) : input_bytes;
  return {base, input_bytes, base + recurrent_at, recurrent_bytes};
}

inline int32_t* lstm_bias(Workspace& ws) { return ws.column_terms; }

// Fills the case's data; false when the variant's layout passes the
// workspace.
inline bool fill_lstm_case(const KernelDescriptor& variant, Random& r, Workspace& ws, LstmCase* c) {
  const UnidirectionalLstmParams& p = c->p;
  draw_bytes(r, ws.input + c->at.input, c->input_bytes);
  draw_bytes(r, ws.input + c->at.hidden, c->state_elements);
  auto* cell = reinterpret_cast<int16_t*>(ws.input + c->at.cell);
  const bool small_cell = r.one_in(2);
  for (uint32_t i = 0; i < c->state_elements; ++i)
    cell[i] = int16_t(small_cell ? r.uniform(-4096, 4096) : r.uniform(-32768, 32767));
  draw_bytes(r, ws.filter, c->input_weights_bytes + c->recurrent_weights_bytes);
  int32_t* bias = lstm_bias(ws);
  const bool wrap = r.one_in(16);
  for (int32_t i = 0; i < 2 * kLstmGateCount * p.units; ++i)
    bias[i] = wrap ? (r.one_in(2) ? INT32_MAX - r.uniform(0, 1000) : INT32_MIN + r.uniform(0, 1000))
                   : r.uniform(-(1 << 15), 1 << 15);
  const LstmWeights w = lstm_weights_for(variant, ws, *c);
  if (w.recurrent - ws.variant_filter + w.recurrent_bytes > int32_t(kMaxFilterBytes)) return false;
  const LstmWeightLayout layout = lstm_weight_layout(&variant);
  if (layout != LstmWeightLayout::kModel) {
    order_lstm_weights(layout, p.units, p.input_depth, ws.filter, ws.variant_filter);
    order_lstm_weights(layout, p.units, p.units, ws.filter + c->input_weights_bytes,
                       ws.variant_filter + (w.recurrent - ws.variant_filter));
  }
  return true;
}

struct LstmOperandSet {
  Operand inputs[4];
  Operand outputs[3];
};

inline LstmOperandSet lstm_operands_for(const KernelDescriptor& kernel, Workspace& ws,
                                        const LstmCase& c, uint8_t* run) {
  const LstmWeights w = lstm_weights_for(kernel, ws, c);
  const LstmRunLayout l = lstm_run_layout(c);
  LstmOperandSet o;
  o.inputs[0] = {ws.input + c.at.input, c.input_bytes};
  o.inputs[1] = {const_cast<int8_t*>(w.input), w.input_bytes};
  o.inputs[2] = {const_cast<int8_t*>(w.recurrent), w.recurrent_bytes};
  o.inputs[3] = {lstm_bias(ws), uint32_t(2 * kLstmGateCount * c.p.units * sizeof(int32_t))};
  o.outputs[0] = {run + l.output, c.output_bytes};
  o.outputs[1] = {run + l.hidden, c.state_elements};
  o.outputs[2] = {run + l.cell, 2 * c.state_elements};
  return o;
}

inline Status validate_lstm(const KernelDescriptor& kernel, const LstmCase& c,
                            const LstmOperandSet& o) {
  OperandView in[4] = {{nullptr, o.inputs[0].bytes}};
  for (uint32_t i = 1; i < 4; ++i) in[i] = {o.inputs[i].data, o.inputs[i].bytes};
  OperandView out[3];
  for (uint32_t i = 0; i < 3; ++i) out[i] = {nullptr, o.outputs[i].bytes};
  return kernel.validate(&c.p, in, 4, out, 3);
}

// The input, the starting states and the constants.
inline uint32_t lstm_input_checksum(Workspace& ws, const LstmCase& c, const LstmOperandSet& o) {
  uint32_t sum = checksum(ws.input, c.at.cell + 2 * c.state_elements);
  for (uint32_t i = 1; i < 4; ++i) sum ^= checksum(o.inputs[i].data, o.inputs[i].bytes);
  return sum;
}

// One run of `kernel` from the case's starting states into `run`; the
// problem, or nullptr.
inline const char* run_lstm(const KernelDescriptor& kernel, Workspace& ws, const LstmCase& c,
                            uint8_t* run, uint8_t fill, Rounding rounding) {
  const LstmRunLayout l = lstm_run_layout(c);
  memset(run, kGuardPattern, l.end);
  memset(run + l.output, fill, c.output_bytes);
  memcpy(run + l.hidden, ws.input + c.at.hidden, c.state_elements);
  memcpy(run + l.cell, ws.input + c.at.cell, 2 * c.state_elements);
  const uint32_t need = kernel.scratch_bytes(&c.p);
  if (need > kMaxScratchBytes) return "scratch need beyond the sweep's buffer";
  memset(ws.scratch, kGuardPattern, kGuardBytes + need + kGuardBytes);
  memset(ws.scratch + kGuardBytes, kScratchFill, need);
  LstmOperandSet o = lstm_operands_for(kernel, ws, c, run);
  const uint32_t before = lstm_input_checksum(ws, c, o);
  const KernelArgs args{&c.p,    o.inputs, 4, o.outputs, 3, {ws.scratch + kGuardBytes, need},
                        rounding};
  if (kernel.run(args) != Status::kOk) return "run failed";
  // Everything in the run's buffer but the three operands is guard.
  const uint32_t spans[3][2] = {
      {l.output, c.output_bytes}, {l.hidden, c.state_elements}, {l.cell, 2 * c.state_elements}};
  uint32_t at = 0;
  for (const auto& span : spans) {
    if (!all_bytes(run + at, span[0] - at, kGuardPattern)) return "wrote outside its outputs";
    at = span[0] + span[1];
  }
  if (!all_bytes(run + at, l.end - at, kGuardPattern)) return "wrote outside its outputs";
  if (!all_bytes(ws.scratch, kGuardBytes, kGuardPattern) ||
      !all_bytes(ws.scratch + kGuardBytes + need, kGuardBytes, kGuardPattern))
    return "wrote outside its scratch";
  if (lstm_input_checksum(ws, c, o) != before) return "changed an input";
  return nullptr;
}

inline void describe_lstm(const LstmCase& c, Text* t) {
  const UnidirectionalLstmParams& p = c.p;
  t->field("time_steps", p.time_steps).field("batches", p.batches);
  t->field("input_depth", p.input_depth).field("units", p.units);
  t->field("time_major", p.time_major).field("hidden_zero_point", p.hidden_zero_point);
  t->field("clip_cell", p.clip_cell).field("cell_clip", p.cell_clip);
  t->field("cell_tanh_multiplier", p.cell_tanh_multiplier);
  t->field("cell_tanh_right_shift", p.cell_tanh_right_shift);
  t->field("input_at", c.at.input).field("output_offset", c.at.output_offset);
}

// Draws case `index` of `variant`'s sweep: shapes are redrawn until the
// workspace holds them; the reference and the variant must both take it.
inline const char* draw_lstm_case(const KernelDescriptor& variant, uint64_t seed, uint32_t index,
                                  Workspace& ws, LstmCase* c) {
  Random r(case_seed(seed, variant.name, index));
  for (uint32_t attempt = 0; attempt < kDrawAttempts; ++attempt) {
    if (!draw_lstm_shape(r, c)) continue;
    c->at.input = index % 4;
    c->at.hidden = round_up16(c->at.input + c->input_bytes) + (index / 4) % 4;
    c->at.cell = round_up16(c->at.hidden + c->state_elements);
    c->at.output_offset = (index / 16) % 4;
    if (!lstm_fits(*c) || !fill_lstm_case(variant, r, ws, c)) continue;
    const KernelDescriptor& reference = kernel_unidirectional_lstm_s8_ref;
    if (validate_lstm(reference, *c, lstm_operands_for(reference, ws, *c, ws.expected)) !=
        Status::kOk)
      return "the reference refuses a drawn case";
    if (validate_lstm(variant, *c, lstm_operands_for(variant, ws, *c, ws.actual)) != Status::kOk)
      return "the variant refuses a drawn case";
    return nullptr;
  }
  return "no drawn shape fits the workspace";
}

inline CaseOutcome check_lstm_case(const KernelDescriptor& variant, uint64_t seed, uint32_t index,
                                   Workspace& ws, Text* shape) {
  CaseOutcome out;
  LstmCase c{};
  shape->clear();
  out.problem = draw_lstm_case(variant, seed, index, ws, &c);
  describe_lstm(c, shape);
  if (out.problem != nullptr) {
    out.passed = false;
    return out;
  }
  const LstmRunLayout l = lstm_run_layout(c);
  const Rounding roundings[] = {Rounding::kDouble, Rounding::kSingle};
  for (Rounding rounding : roundings) {
    ++out.runs;
    out.detail.clear();
    out.detail.text(" rounding ").text(rounding_name(rounding));
    const char* problem =
        run_lstm(kernel_unidirectional_lstm_s8_ref, ws, c, ws.expected, kExpectedFill, rounding);
    if (problem != nullptr) {
      out.passed = false;
      out.problem = "reference kernel failed";
      out.detail.text(": ").text(problem);
      return out;
    }
    problem = run_lstm(variant, ws, c, ws.actual, kActualFill, rounding);
    if (problem != nullptr) {
      out.passed = false;
      out.problem = problem;
      return out;
    }
    const char* names[3] = {"output", "hidden state", "cell state"};
    const uint32_t spans[3][2] = {
        {l.output, c.output_bytes}, {l.hidden, c.state_elements}, {l.cell, 2 * c.state_elements}};
    for (uint32_t k = 0; k < 3; ++k) {
      const uint8_t* expected = ws.expected + spans[k][0];
      const uint8_t* actual = ws.actual + spans[k][0];
      uint32_t differing = 0, first = 0;
      for (uint32_t i = 0; i < spans[k][1]; ++i)
        if (expected[i] != actual[i] && differing++ == 0) first = i;
      if (differing != 0) {
        out.passed = false;
        out.problem = "differs from the reference";
        out.detail.text(" in the ").text(names[k]).field("bytes_differing", differing);
        out.detail.field("first_at", first).field("expected", expected[first]);
        out.detail.field("got", actual[first]);
        return out;
      }
    }
  }
  return out;
}

}  // namespace tinyaot::sweep
