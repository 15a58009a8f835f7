// Binary int8 elementwise operators with numpy-style broadcasting: ADD, SUB,
// MUL, MAXIMUM, MINIMUM, with TFLite Micro's integer arithmetic.
//
// Every variant takes operands input1 s8, input2 s8 -> output s8, sized by
// the BroadcastShape in its parameters (see broadcast.h).
#pragma once

#include <stdint.h>

#include "kernels/elementwise/broadcast.h"
#include "tinyaot/kernel_abi.h"

namespace tinyaot {

// ADD and SUB: both inputs are brought to a common scale (twice the larger
// input scale, with 20 bits of headroom), added or subtracted, then
// rescaled to the output.
struct AddSubParams {
  BroadcastShape shape;
  int32_t input1_offset;  // -zero point
  int32_t input2_offset;
  int32_t output_offset;  // +zero point
  int32_t left_shift;     // 20 for int8
  int32_t input1_multiplier;
  int32_t input1_shift;  // <= 0
  int32_t input2_multiplier;
  int32_t input2_shift;  // <= 0
  int32_t output_multiplier;
  int32_t output_shift;  // <= 0
  int32_t act_min;
  int32_t act_max;
};

// MUL: (in1 + offset1) * (in2 + offset2) rescaled by in1*in2/out scale.
struct MulParams {
  BroadcastShape shape;
  int32_t input1_offset;
  int32_t input2_offset;
  int32_t output_offset;
  int32_t output_multiplier;
  int32_t output_shift;
  int32_t act_min;
  int32_t act_max;
};

// MAXIMUM / MINIMUM: inputs and output share one quantization, so the raw
// int8 values compare as the real values do.
struct MinMaxParams {
  BroadcastShape shape;
};

extern const KernelDescriptor kernel_add_s8_ref;
extern const KernelDescriptor kernel_sub_s8_ref;
extern const KernelDescriptor kernel_mul_s8_ref;
extern const KernelDescriptor kernel_maximum_s8_ref;
extern const KernelDescriptor kernel_minimum_s8_ref;

}  // namespace tinyaot
