// FULLY_CONNECTED for MVE cores: each batch row of raw int8 inputs times
// the weights in the layout of kernels/common/gemm_mve_layout.h
// (kernels/common/gemm_mve.h): four units per input load with VMLADAVA,
// predicated tails for any depth, the output step four units a vector. The
// input offset's share (input_offset * sum of the unit's weights) is
// folded into the bias by the compiler, so the inner loop multiplies the
// inputs as they lie; no scratch.
#include "kernels/common/gemm_mve.h"
#include "kernels/common/output_step.h"
#include "kernels/common/quant.h"
#include "kernels/common/validate.h"
#include "kernels/common/weighted_operands.h"
#include "kernels/fully_connected/fully_connected.h"
#include "kernels/fully_connected/fully_connected_checks.h"
#include "tinyaot/load_time.h"

namespace tinyaot {
namespace {

// The family's checks; the output step takes precomputed rescales only
// (has_fast_rescale).
TINYAOT_LOAD_TIME Status validate(const void* raw, const OperandView* inputs, uint32_t num_inputs,
                                  const OperandView* outputs, uint32_t num_outputs) {
  const Status status =
      validate_fully_connected_operands(raw, inputs, num_inputs, outputs, num_outputs);
  if (status != Status::kOk) return status;
  const auto& p = *static_cast<const FullyConnectedParams*>(raw);
  return is_fast_channel_quant_operand(inputs[2], p.output_depth) ? Status::kOk
                                                                  : Status::kBadParams;
}

// Batch rows one by one (the usual batch is one): the group loop alone.
template <Rounding R>
TINYAOT_MODE_LOOP void multiply(const FullyConnectedParams& p, const WeightedOperands& o) {
  const GemmRange range = gemm_range(output_range(p));
  const int32_t depth = p.input_depth, units = p.output_depth;
  const int8_t* row = o.input;
  int8_t* out = o.output;
  for (int32_t b = 0; b < p.batches; ++b, row += depth, out += units)
    gemm_row<R>(row, depth, o.filter, o.quant, units, range, out);
}

Status run(const KernelArgs& args) {
  const auto& p = *static_cast<const FullyConnectedParams*>(args.params);
  const WeightedOperands o = weighted_operands(args);
  with_any_rounding(args.rounding, [&](auto mode) { multiply<decltype(mode)::value>(p, o); });
  return Status::kOk;
}

}  // namespace

const KernelDescriptor kernel_fully_connected_s8_mve = {
    "fully_connected_s8_mve",
    "fully_connected",
    2,
    sizeof(FullyConnectedParams),
    3,
    3,
    1,
    IsaClass::kMve,
    "input:s8[batches,input_depth], "
    "filter:s8[output_depth,input_depth](row quads interleaved by 16), "
    "quant:ChannelQuant[output_depth]{bias+=input_offset*sum(filter[o])} "
    "-> output:s8[batches,output_depth]; "
    "params=FullyConnectedParams{batches,input_depth,output_depth,input_offset,"
    "output_offset,act_min,act_max}",
    run,
    validate,
    nullptr,
};

}  // namespace tinyaot
