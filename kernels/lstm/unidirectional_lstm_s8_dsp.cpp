// UNIDIRECTIONAL_SEQUENCE_LSTM for DSP cores (M4, M7, M33): each gate's
// two fully connected layers with FULLY_CONNECTED's DSP dot products
// (fully_connected_dsp_dot.h) on weights the compiler stored in its
// blocked layout (lstm_layout.h), four units per pass over the input and
// over the hidden state; the rest of the step is lstm_step.h's.
#include "kernels/common/output_step.h"
#include "kernels/fully_connected/fully_connected_dsp_dot.h"
#include "kernels/lstm/lstm.h"
#include "kernels/lstm/lstm_checks.h"
#include "kernels/lstm/lstm_step.h"

namespace tinyaot {
namespace {

using fc_dsp::DspDot;

void gate_sums_dsp(const lstm::LstmStepShape& shape, const lstm::GateOperands& gate,
                   const int8_t* input, const int8_t* hidden, lstm::GateSums sums) {
  const int32_t depth = shape.input_depth, units = shape.units;
  const int32_t blocked = fc_blocked_units(units);
  const int8_t* input_weights = gate.input_weights;
  const int8_t* recurrent_weights = gate.recurrent_weights;
  int32_t u = 0;
  for (; u < blocked; u += kFcBlockRows) {
    DspDot::block(input, input_weights, depth, 0, sums.input + u);
    DspDot::block(hidden, recurrent_weights, units, 0, sums.recurrent + u);
    input_weights += kFcBlockRows * depth;
    recurrent_weights += kFcBlockRows * units;
  }
  for (; u < units; ++u, input_weights += depth, recurrent_weights += units) {
    sums.input[u] = DspDot::row(input, input_weights, depth, 0);
    sums.recurrent[u] = DspDot::row(hidden, recurrent_weights, units, 0);
  }
}

template <Rounding R>
TINYAOT_MODE_LOOP void run_in_mode(const UnidirectionalLstmParams& p, const lstm::LstmOperands& o) {
  lstm::run_sequence<R>(p, o, gate_sums_dsp);
}

Status run(const KernelArgs& args) {
  const auto& p = *static_cast<const UnidirectionalLstmParams*>(args.params);
  const lstm::LstmOperands o = lstm::lstm_operands(args, LstmWeightLayout::kDspBlocks);
  with_rounding(args.rounding, [&](auto mode) { run_in_mode<decltype(mode)::value>(p, o); });
  return Status::kOk;
}

}  // namespace

const KernelDescriptor kernel_unidirectional_lstm_s8_dsp = {
    "unidirectional_lstm_s8_dsp",
    "unidirectional_lstm",
    1,
    sizeof(UnidirectionalLstmParams),
    4,
    4,
    3,
    IsaClass::kDsp,
    TINYAOT_UNIDIRECTIONAL_LSTM_SIGNATURE_IN("{per gate: blocks of 4 units x groups of 4 depths}"),
    run,
    validate_reordered_lstm_operands<LstmWeightLayout::kDspBlocks>,
    lstm_scratch_bytes,
};

}  // namespace tinyaot
