// Reference UNIDIRECTIONAL_SEQUENCE_LSTM: TFLite Micro's integer LSTM with
// the plain gate sums (lstm_step.h).
#include "kernels/common/output_step.h"
#include "kernels/lstm/lstm.h"
#include "kernels/lstm/lstm_checks.h"
#include "kernels/lstm/lstm_step.h"

namespace tinyaot {
namespace {

template <Rounding R>
TINYAOT_MODE_LOOP void run_in_mode(const UnidirectionalLstmParams& p, const lstm::LstmOperands& o) {
  lstm::run_sequence<R>(p, o, lstm::gate_sums_ref);
}

Status run(const KernelArgs& args) {
  const auto& p = *static_cast<const UnidirectionalLstmParams*>(args.params);
  const lstm::LstmOperands o = lstm::lstm_operands(args, LstmWeightLayout::kModel);
  with_rounding(args.rounding, [&](auto mode) { run_in_mode<decltype(mode)::value>(p, o); });
  return Status::kOk;
}

}  // namespace

const KernelDescriptor kernel_unidirectional_lstm_s8_ref = {
    "unidirectional_lstm_s8_ref",
    "unidirectional_lstm",
    1,
    sizeof(UnidirectionalLstmParams),
    4,
    4,
    3,
    IsaClass::kScalar,
    TINYAOT_UNIDIRECTIONAL_LSTM_SIGNATURE,
    run,
    validate_lstm_operands,
    lstm_scratch_bytes,
};

}  // namespace tinyaot
