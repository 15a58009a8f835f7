// What the fast int16x8 FULLY_CONNECTED variants share (freestanding,
// header-only): per batch row, a block of units at a time against one pass
// over the inputs (kernels/common/dot_s16x8.h), the weights as the model
// has them. The DSP and MVE variants differ only in their dot product.
#pragma once

#include <stdint.h>

#include "kernels/common/dot_s16x8.h"
#include "kernels/common/int16x8.h"
#include "kernels/fully_connected/fully_connected.h"
#include "kernels/fully_connected/fully_connected_checks.h"

// The operands of every int16x8 variant, the reference's included.
#define TINYAOT_FULLY_CONNECTED_S16_SIGNATURE                                  \
  "input:s16[batches,input_depth], filter:s8[output_depth,input_depth], "      \
  "quant:ChannelQuant[output_depth], wide_bias:s64[output_depth]? -> "         \
  "output:s16[batches,output_depth]; "                                         \
  "params=FullyConnectedParams{batches,input_depth,output_depth,input_offset," \
  "output_offset,act_min,act_max}"

namespace tinyaot {

template <typename Dot, Rounding R, typename Acc, int Units>
inline void fully_connected_s16_units(const FullyConnectedParams& p, const Int16x8Operands& o,
                                      const int16_t* row, int32_t first, int16_t* out) {
  Acc acc[Units] = {};
  Dot::template rows<Acc, Units>(row, o.filter + first * p.input_depth, p.input_depth,
                                 p.input_depth, acc);
  for (int u = 0; u < Units; ++u) out[first + u] = int16x8_output_step<R>(acc[u], first + u, o, p);
}

template <typename Dot, Rounding R, typename Acc>
TINYAOT_MODE_LOOP inline void fully_connected_s16_rows(const FullyConnectedParams& p,
                                                       const Int16x8Operands& o) {
  constexpr int kUnits = Dot::template kRows<Acc>;
  for (int32_t b = 0; b < p.batches; ++b) {
    const int16_t* row = o.input + b * p.input_depth;
    int16_t* out = o.output + b * p.output_depth;
    int32_t u = 0;
    for (; u + kUnits <= p.output_depth; u += kUnits)
      fully_connected_s16_units<Dot, R, Acc, kUnits>(p, o, row, u, out);
    for (; u < p.output_depth; ++u) fully_connected_s16_units<Dot, R, Acc, 1>(p, o, row, u, out);
  }
}

// A variant's run: the rounding mode and the accumulator as the operands
// say (with_int16x8_accumulator).
template <typename Dot>
inline Status run_fully_connected_s16(const KernelArgs& args) {
  const auto& p = *static_cast<const FullyConnectedParams*>(args.params);
  const Int16x8Operands o = int16x8_operands(args);
  with_int16x8_accumulator(args, o, [&](auto mode, auto accumulator) {
    fully_connected_s16_rows<Dot, decltype(mode)::value, typename decltype(accumulator)::type>(p,
                                                                                               o);
  });
  return Status::kOk;
}

// Every int16x8 variant takes what the reference takes.
TINYAOT_LOAD_TIME inline Status validate_fully_connected_s16(const void* raw,
                                                             const OperandView* inputs,
                                                             uint32_t num_inputs,
                                                             const OperandView* outputs,
                                                             uint32_t num_outputs) {
  return validate_fully_connected_activations(raw, inputs, num_inputs, outputs, num_outputs,
                                              Activations::kInt16);
}

}  // namespace tinyaot
