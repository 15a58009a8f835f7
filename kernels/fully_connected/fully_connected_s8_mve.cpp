// FULLY_CONNECTED for MVE cores: raw int8 inputs times int8 weights, the
// input offset's share (input_offset * sum of the unit's weights) folded
// into the bias by the compiler, so the inner loop is one 8-bit
// multiply-accumulate per pair and needs no widening.
#include "kernels/common/dot_s8.h"
#include "kernels/common/output_step.h"
#include "kernels/common/quant.h"
#include "kernels/common/validate.h"
#include "kernels/common/weighted_operands.h"
#include "kernels/fully_connected/fully_connected.h"
#include "kernels/fully_connected/fully_connected_checks.h"

namespace tinyaot {
namespace {

template <Rounding R>
TINYAOT_MODE_LOOP void multiply(const FullyConnectedParams& p, const int8_t* input,
                                const int8_t* filter, const ChannelQuant* quant, int8_t* output) {
  for (int32_t b = 0; b < p.batches; ++b) {
    const int8_t* row = input + b * p.input_depth;
    int8_t* out = output + b * p.output_depth;
    const int8_t* weights = filter;
    for (int32_t o = 0; o < p.output_depth; ++o, weights += p.input_depth)
      out[o] = output_step<R>(dot_s8(row, weights, p.input_depth), quant[o], p);
  }
}

Status run(const KernelArgs& args) {
  const auto& p = *static_cast<const FullyConnectedParams*>(args.params);
  const WeightedOperands o = weighted_operands(args);
  with_rounding(args.rounding, [&](auto mode) {
    multiply<decltype(mode)::value>(p, o.input, o.filter, o.quant, o.output);
  });
  return Status::kOk;
}

}  // namespace

const KernelDescriptor kernel_fully_connected_s8_mve = {
    "fully_connected_s8_mve",
    "fully_connected",
    1,
    sizeof(FullyConnectedParams),
    3,
    3,
    1,
    IsaClass::kMve,
    "input:s8[batches,input_depth], filter:s8[output_depth,input_depth], "
    "quant:ChannelQuant[output_depth]{bias+=input_offset*sum(filter[o])} "
    "-> output:s8[batches,output_depth]; "
    "params=FullyConnectedParams{batches,input_depth,output_depth,input_offset,"
    "output_offset,act_min,act_max}",
    run,
    validate_fully_connected_operands,
    nullptr,
};

}  // namespace tinyaot
