// UNIDIRECTIONAL_SEQUENCE_LSTM for MVE cores (M55): each gate's two fully
// connected layers with the MVE matrix multiply's dot products
// (kernels/common/gemm_mve.h: four units per input load, VMLADAVA, the
// tail predicated) on weights the compiler stored in its layout
// (lstm_layout.h); the gates finished four units a vector
// (lstm_finish_mve.h). The rest of the step is lstm_step.h's. Elsewhere the same sums in portable
// C++, so the host runs programs planned for MVE cores bit for bit.
#include "kernels/common/gemm_mve.h"
#include "kernels/common/output_step.h"
#include "kernels/lstm/lstm.h"
#include "kernels/lstm/lstm_checks.h"
#include "kernels/lstm/lstm_finish_mve.h"
#include "kernels/lstm/lstm_step.h"

namespace tinyaot {
namespace {

#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1)

// One FC's sums of every unit: the groups of four with gemm_group_accumulate,
// the last one to three units (model order) with gemm_rows_sums, a short
// group repeating its last row.
inline void fc_sums(const int8_t* x, const int8_t* weights, int32_t units, int32_t depth,
                    uint32_t* sums) {
  const int32_t grouped = units - units % kMveRows;
  const int32_t blocks = depth / kMveBlock, rest = depth % kMveBlock;
  for (int32_t u = 0; u < grouped; u += kMveRows, weights += kMveRows * depth) {
    int32_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    gemm_group_accumulate(x, weights, blocks, rest, s0, s1, s2, s3);
    sums[u] = static_cast<uint32_t>(s0);
    sums[u + 1] = static_cast<uint32_t>(s1);
    sums[u + 2] = static_cast<uint32_t>(s2);
    sums[u + 3] = static_cast<uint32_t>(s3);
  }
  const int32_t left = units - grouped;
  if (left == 0) return;
  const int8_t* const w1 = left > 1 ? weights + depth : weights;
  const int8_t* const w2 = left > 2 ? w1 + depth : w1;
  int32_t lanes[kMveRows];
  vst1q_s32(lanes, gemm_rows_sums(x, weights, w1, w2, w2, depth, 0, 0, 0, 0));
  for (int32_t r = 0; r < left; ++r) sums[grouped + r] = static_cast<uint32_t>(lanes[r]);
}

#else

// The same sums in portable C++, the weights in the layout of
// gemm_mve_layout.h.
inline void fc_sums(const int8_t* x, const int8_t* weights, int32_t units, int32_t depth,
                    uint32_t* sums) {
  for (int32_t u = 0; u < units; ++u) {
    uint32_t sum = 0;  // wraps like the hardware's int32 accumulator
    for (int32_t d = 0; d < depth; ++d)
      sum += static_cast<uint32_t>(x[d] * weights[mve_weight_position(units, depth, u, d)]);
    sums[u] = sum;
  }
}

#endif

void gate_sums_mve(const lstm::LstmStepShape& shape, const lstm::GateOperands& gate,
                   const int8_t* input, const int8_t* hidden, lstm::GateSums sums) {
  fc_sums(input, gate.input_weights, shape.units, shape.input_depth, sums.input);
  fc_sums(hidden, gate.recurrent_weights, shape.units, shape.units, sums.recurrent);
}

template <Rounding R>
TINYAOT_MODE_LOOP void run_in_mode(const UnidirectionalLstmParams& p, const lstm::LstmOperands& o) {
  lstm::run_sequence<R, lstm::MveFinish>(p, o, gate_sums_mve);
}

Status run(const KernelArgs& args) {
  const auto& p = *static_cast<const UnidirectionalLstmParams*>(args.params);
  const lstm::LstmOperands o = lstm::lstm_operands(args, LstmWeightLayout::kMveGroups);
  with_rounding(args.rounding, [&](auto mode) { run_in_mode<decltype(mode)::value>(p, o); });
  return Status::kOk;
}

}  // namespace

const KernelDescriptor kernel_unidirectional_lstm_s8_mve = {
    "unidirectional_lstm_s8_mve",
    "unidirectional_lstm",
    1,
    sizeof(UnidirectionalLstmParams),
    4,
    4,
    3,
    IsaClass::kMve,
    TINYAOT_UNIDIRECTIONAL_LSTM_SIGNATURE_IN("(per gate: row quads interleaved by 16)"),
    run,
    validate_reordered_lstm_operands<LstmWeightLayout::kMveGroups>,
    lstm_scratch_bytes,
};

}  // namespace tinyaot
