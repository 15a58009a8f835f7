// TRANSPOSE_CONV, int8 with per-channel weights: every input pixel scatters
// filter-weighted contributions into an int32 accumulator of the whole
// output, which is then requantized per output channel (TFLite Micro's
// reference order of work, so results match it bit for bit).
#pragma once

#include <stdint.h>

#include "tinyaot/kernel_abi.h"

namespace tinyaot {

struct TransposeConvParams {
  int32_t batches;
  int32_t input_h, input_w, input_depth;
  int32_t filter_h, filter_w;
  int32_t output_h, output_w, output_depth;
  int32_t stride_h, stride_w;
  // Leading padding only: TFLite crops the trailing remainder implicitly by
  // discarding contributions that land outside the output.
  int32_t pad_top, pad_left;
  int32_t input_offset;  // -input zero point
  int32_t output_offset;
  int32_t act_min;
  int32_t act_max;
};

// int32 accumulator for every output element. Saturates at UINT32_MAX for
// parameters no valid program can hold (validate rejects them).
uint32_t transpose_conv_s8_ref_scratch_bytes(const TransposeConvParams& params);

// Operands: input s8 [batches, input_h, input_w, input_depth], filter s8
// [output_depth, filter_h, filter_w, input_depth], ChannelQuant[output_depth]
// -> output s8 [batches, output_h, output_w, output_depth]; scratch: the
// int32 accumulator (4-byte aligned).
extern const KernelDescriptor kernel_transpose_conv_s8_ref;

// int16x8 (kernels/common/int16x8.h): input s16, filter s8,
// ChannelQuant[output_depth] (the int32 bias, or 0), optionally an int64
// bias s64[output_depth] -> output s16; offsets 0, an int16 range; scratch
// of an int64 per output element (8-byte aligned: the planner's).
uint32_t transpose_conv_s16_ref_scratch_bytes(const TransposeConvParams& params);
extern const KernelDescriptor kernel_transpose_conv_s16_ref;

// MVE cores, no scratch: each output pixel gathers the input pixels that
// reach it. Operands: input, filter with the taps' offset sums in the
// layout of transpose_conv_mve_layout.h, ChannelQuant[output_depth] (every
// channel with a precomputed rescale) -> output.
extern const KernelDescriptor kernel_transpose_conv_s8_mve;

}  // namespace tinyaot
