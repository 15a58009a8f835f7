// FULLY_CONNECTED for DSP cores: four units per pass over the input row
// (fully_connected_rows.h), their weights interleaved by the compiler
// (fully_connected_blocks.h), the dot products of fully_connected_dsp_dot.h.
// The input offset's share is in the bias.
#include "kernels/common/output_step.h"
#include "kernels/common/quant.h"
#include "kernels/common/validate.h"
#include "kernels/common/weighted_operands.h"
#include "kernels/fully_connected/fully_connected.h"
#include "kernels/fully_connected/fully_connected_blocks.h"
#include "kernels/fully_connected/fully_connected_checks.h"
#include "kernels/fully_connected/fully_connected_dsp_dot.h"
#include "kernels/fully_connected/fully_connected_rows.h"

namespace tinyaot {
namespace {

Status run(const KernelArgs& args) {
  const auto& p = *static_cast<const FullyConnectedParams*>(args.params);
  const WeightedOperands o = weighted_operands(args);
  with_any_rounding(args.rounding, [&](auto mode) {
    multiply_blocked<fc_dsp::DspDot, decltype(mode)::value>(p, o.input, o.filter, o.quant,
                                                            o.output);
  });
  return Status::kOk;
}

}  // namespace

const KernelDescriptor kernel_fully_connected_s8_dsp = {
    "fully_connected_s8_dsp",
    "fully_connected",
    2,
    sizeof(FullyConnectedParams),
    3,
    3,
    1,
    IsaClass::kDsp,
    "input:s8[batches,input_depth], "
    "filter:s8[output_depth,input_depth]{blocks of 4 units x groups of 4 depths}, "
    "quant:ChannelQuant[output_depth]{bias+=input_offset*sum(filter[o])} "
    "-> output:s8[batches,output_depth]; "
    "params=FullyConnectedParams{batches,input_depth,output_depth,input_offset,"
    "output_offset,act_min,act_max}",
    run,
    validate_blocked_fully_connected_operands,
    nullptr,
};

}  // namespace tinyaot
