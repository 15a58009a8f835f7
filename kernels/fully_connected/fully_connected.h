// FULLY_CONNECTED, int8:
//   out[b][o] = clamp(requant(sum_d (in[b][d] + input_offset) * w[o][d] + bias[o])).
#pragma once

#include <stdint.h>

#include "tinyaot/kernel_abi.h"

namespace tinyaot {

struct FullyConnectedParams {
  int32_t batches;       // rows of the input
  int32_t input_depth;   // accumulation depth
  int32_t output_depth;  // units
  int32_t input_offset;  // -input zero point
  int32_t output_offset;
  int32_t act_min;
  int32_t act_max;
};

// Operands: input s8 [batches, input_depth], filter s8 [output_depth,
// input_depth], ChannelQuant[output_depth] -> output s8 [batches, output_depth].
extern const KernelDescriptor kernel_fully_connected_s8_ref;

// Same operands, except that each unit's ChannelQuant bias already holds
// + input_offset * sum(filter[o]) (kernels/common/kernel_sums.h); no scratch.
extern const KernelDescriptor kernel_fully_connected_s8_mve;
// Same folded bias as the MVE variant, the filter in the row-blocked
// layout of fully_connected_blocks.h: for DSP cores, and for the others
// (`blocked`) with the weights also coded as offset binary.
extern const KernelDescriptor kernel_fully_connected_s8_dsp;
extern const KernelDescriptor kernel_fully_connected_s8_blocked;

// int16x8 (kernels/common/int16x8.h): input s16, filter s8,
// ChannelQuant[output_depth] (the int32 bias, or 0), optionally an int64
// bias s64[output_depth] -> output s16; offsets 0, an int16 range.
extern const KernelDescriptor kernel_fully_connected_s16_ref;
// The same operands, for DSP and for MVE cores (fully_connected_s16_rows.h).
extern const KernelDescriptor kernel_fully_connected_s16_dsp;
extern const KernelDescriptor kernel_fully_connected_s16_mve;

// The variants whose ChannelQuant bias holds the folded input offset: the
// lowering folds for exactly these.
inline bool fully_connected_variant_folds_input_offset(const KernelDescriptor* kernel) {
  return kernel == &kernel_fully_connected_s8_mve || kernel == &kernel_fully_connected_s8_dsp ||
         kernel == &kernel_fully_connected_s8_blocked;
}

}  // namespace tinyaot
