// The operands every weighted int8 kernel (conv, depthwise, fully
// connected: input, weights, per-channel constants -> output) reads from
// its KernelArgs, in the order their descriptors declare them; the loader
// has already checked sizes, alignment and the constants (freestanding,
// header-only).
#pragma once

#include <stdint.h>

#include "kernels/common/quant.h"
#include "tinyaot/kernel_abi.h"

namespace tinyaot {

struct WeightedOperands {
  const int8_t* input;
  const int8_t* filter;
  const ChannelQuant* quant;
  int8_t* output;
};

inline WeightedOperands weighted_operands(const KernelArgs& args) {
  return {static_cast<const int8_t*>(args.inputs[0].data),
          static_cast<const int8_t*>(args.inputs[1].data),
          static_cast<const ChannelQuant*>(args.inputs[2].data),
          static_cast<int8_t*>(args.outputs[0].data)};
}

}  // namespace tinyaot
