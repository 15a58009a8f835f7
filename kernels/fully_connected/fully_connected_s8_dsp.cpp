// FULLY_CONNECTED for DSP cores: the input offset's share (input_offset *
// sum of the unit's weights) is folded into the bias by the compiler, and
// two units share each load of the input row: SXTB16 widens four int8
// values at a time and SMLAD multiplies pairs (kernels/common/dot_s8.h),
// as CMSIS-NN's arm_nn_vec_mat_mult_t_s8 does on DSP cores.
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
  const int32_t depth = p.input_depth;
  for (int32_t b = 0; b < p.batches; ++b) {
    const int8_t* row = input + b * depth;
    int8_t* out = output + b * p.output_depth;
    int32_t o = 0;
    for (; o + 1 < p.output_depth; o += 2) {
      uint32_t acc0 = 0, acc1 = 0;
      const int8_t* weights = filter + o * depth;
      dot_s8_pair(row, weights, weights + depth, depth, &acc0, &acc1);
      out[o] = output_step<R>(acc0, quant[o], p);
      out[o + 1] = output_step<R>(acc1, quant[o + 1], p);
    }
    if (o < p.output_depth)
      out[o] = output_step<R>(dot_s8(row, filter + o * depth, depth), quant[o], p);
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

const KernelDescriptor kernel_fully_connected_s8_dsp = {
    "fully_connected_s8_dsp",
    "fully_connected",
    1,
    sizeof(FullyConnectedParams),
    3,
    3,
    1,
    IsaClass::kDsp,
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
