// UNIDIRECTIONAL_SEQUENCE_LSTM for MVE cores (M55): each gate's two fully
// connected layers with the MVE matrix multiply's dot products
// (kernels/common/gemm_mve.h: four units per input load, VMLADAVA, the
// tail predicated) on weights the compiler stored in its layout
// (lstm_layout.h); the sums start at the folded biases. The rest of the
// step is lstm_step.h's. Elsewhere the same sums in portable C++, so the
// host runs programs planned for MVE cores bit for bit.
#include "kernels/common/gemm_mve.h"
#include "kernels/common/output_step.h"
#include "kernels/lstm/lstm.h"
#include "kernels/lstm/lstm_checks.h"
#include "kernels/lstm/lstm_step.h"

namespace tinyaot {
namespace {

#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1)

// The four sums of a group of units (or of the last one to three units,
// `rows` of them, model order) of one FC, started at their biases.
struct GroupSums {
  int32_t s[kMveRows];
};

inline GroupSums fc_group_sums(const int8_t* x, const int8_t* weights, int32_t depth,
                               const int32_t* bias) {
  GroupSums g{{bias[0], bias[1], bias[2], bias[3]}};
  gemm_group_accumulate(x, weights, depth / kMveBlock, depth % kMveBlock, g.s[0], g.s[1], g.s[2],
                        g.s[3]);
  return g;
}

inline GroupSums fc_last_sums(const int8_t* x, const int8_t* weights, int32_t depth,
                              const int32_t* bias, int32_t rows) {
  const int8_t* const w1 = rows > 1 ? weights + depth : weights;
  const int8_t* const w2 = rows > 2 ? w1 + depth : w1;
  const int32x4_t sums = gemm_rows_sums(x, weights, w1, w2, w2, depth, 0, 0, 0, 0);
  int32_t lanes[kMveRows];
  vst1q_s32(lanes, sums);
  GroupSums g{};
  for (int32_t r = 0; r < rows; ++r)
    g.s[r] = static_cast<int32_t>(static_cast<uint32_t>(lanes[r]) + static_cast<uint32_t>(bias[r]));
  return g;
}

template <Rounding R>
void gate_product_mve(const lstm::LstmStepShape& shape, const lstm::GateOperands& gate,
                      const int8_t* input, const int8_t* hidden, int16_t* out) {
  const int32_t depth = shape.input_depth, units = shape.units;
  const int32_t grouped = units - units % kMveRows;
  int32_t u = 0;
  for (; u < grouped; u += kMveRows) {
    const GroupSums in =
        fc_group_sums(input, gate.input_weights + u * depth, depth, gate.input_bias + u);
    const GroupSums rec =
        fc_group_sums(hidden, gate.recurrent_weights + u * units, units, gate.recurrent_bias + u);
    for (int32_t r = 0; r < kMveRows; ++r)
      out[u + r] = lstm::gate_output<R>(static_cast<uint32_t>(in.s[r]),
                                        static_cast<uint32_t>(rec.s[r]), gate.scales);
  }
  if (u == units) return;
  const int32_t rows = units - u;
  const GroupSums in =
      fc_last_sums(input, gate.input_weights + u * depth, depth, gate.input_bias + u, rows);
  const GroupSums rec = fc_last_sums(hidden, gate.recurrent_weights + u * units, units,
                                     gate.recurrent_bias + u, rows);
  for (int32_t r = 0; r < rows; ++r)
    out[u + r] = lstm::gate_output<R>(static_cast<uint32_t>(in.s[r]),
                                      static_cast<uint32_t>(rec.s[r]), gate.scales);
}

#else

// Unit u's dot product with x, its weights in the layout of
// gemm_mve_layout.h.
inline uint32_t mve_layout_dot(const int8_t* x, const int8_t* weights, int32_t rows, int32_t depth,
                               int32_t u, uint32_t start) {
  uint32_t sum = start;  // wraps like the hardware's int32 accumulator
  for (int32_t d = 0; d < depth; ++d)
    sum += static_cast<uint32_t>(x[d] * weights[mve_weight_position(rows, depth, u, d)]);
  return sum;
}

template <Rounding R>
void gate_product_mve(const lstm::LstmStepShape& shape, const lstm::GateOperands& gate,
                      const int8_t* input, const int8_t* hidden, int16_t* out) {
  const int32_t depth = shape.input_depth, units = shape.units;
  for (int32_t u = 0; u < units; ++u)
    out[u] = lstm::gate_output<R>(mve_layout_dot(input, gate.input_weights, units, depth, u,
                                                 static_cast<uint32_t>(gate.input_bias[u])),
                                  mve_layout_dot(hidden, gate.recurrent_weights, units, units, u,
                                                 static_cast<uint32_t>(gate.recurrent_bias[u])),
                                  gate.scales);
}

#endif

template <Rounding R>
TINYAOT_MODE_LOOP void run_in_mode(const UnidirectionalLstmParams& p, const lstm::LstmOperands& o) {
  lstm::run_sequence<R>(p, o, gate_product_mve<R>);
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
