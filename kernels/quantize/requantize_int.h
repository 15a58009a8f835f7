// QUANTIZE between integer types (int8, int16, int32 in the directions
// TFLite Micro allows), TFLite's reference Requantize: subtract the input
// zero point, MultiplyByQuantizedMultiplier, add the output zero point,
// clamp to the output type. int8 -> int8 is a lookup table instead
// (kernels/activation/).
#pragma once

#include <stdint.h>

#include "tinyaot/kernel_abi.h"

namespace tinyaot {

struct RequantizeIntParams {
  int32_t size;               // elements
  int32_t input_bytes;        // element size: 1, 2 or 4
  int32_t output_bytes;       // element size: 1, 2 or 4
  int32_t input_zero_point;   // within the input type
  int32_t output_zero_point;  // within the output type
  int32_t multiplier;         // input scale / output scale
  int32_t shift;
};

// Operands: input iN [size] -> output iM [size], N and M from the params.
extern const KernelDescriptor kernel_requantize_int_ref;

}  // namespace tinyaot
