// Reference FULLY_CONNECTED: TFLite's integer semantics, no tricks.
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
    for (int32_t o = 0; o < p.output_depth; ++o) {
      const int8_t* weights = filter + o * p.input_depth;
      int32_t acc = 0;
      for (int32_t d = 0; d < p.input_depth; ++d)
        acc = wrapping_add(acc, (row[d] + p.input_offset) * weights[d]);
      output[b * p.output_depth + o] = output_step<R>(acc, quant[o], p);
    }
  }
}

Status run(const KernelArgs& args) {
  const auto& p = *static_cast<const FullyConnectedParams*>(args.params);
  const WeightedOperands o = weighted_operands(args);
  with_any_rounding(args.rounding, [&](auto mode) {
    multiply<decltype(mode)::value>(p, o.input, o.filter, o.quant, o.output);
  });
  return Status::kOk;
}

}  // namespace

const KernelDescriptor kernel_fully_connected_s8_ref = {
    "fully_connected_s8_ref",
    "fully_connected",
    1,
    sizeof(FullyConnectedParams),
    3,
    3,
    1,
    IsaClass::kScalar,
    "input:s8[batches,input_depth], filter:s8[output_depth,input_depth], "
    "quant:ChannelQuant[output_depth] -> output:s8[batches,output_depth]; "
    "params=FullyConnectedParams{batches,input_depth,output_depth,input_offset,"
    "output_offset,act_min,act_max}",
    run,
    validate_fully_connected_operands,
    nullptr,
};

}  // namespace tinyaot
