// Unary int8 -> int8 operators by table lookup: LOGISTIC, TANH, RELU, RELU6,
// HARD_SWISH, LEAKY_RELU and int8 QUANTIZE all map each of the 256 input
// bytes to one output byte, so the compiler evaluates TFLite Micro's
// integer reference once per byte (activation_math.h) and the run time
// does out[i] = table[(uint8_t)in[i]].
#pragma once

#include <stdint.h>

#include "tinyaot/kernel_abi.h"

namespace tinyaot {

constexpr uint32_t kLutEntries = 256;

struct LutParams {
  int32_t size;  // elements of the input and of the output
};

// Operands: input s8 [size], table s8 [256] (indexed by the input byte read
// as unsigned) -> output s8 [size]. The output may alias the input.
extern const KernelDescriptor kernel_lut_s8_ref;

// int16 RELU and RELU6 (TFLite Micro's ReluQuantized<int16_t>; zero points
// 0): out = clamp(requantize(in, multiplier, shift), act_min, act_max).
struct RequantizeS16Params {
  int32_t size;  // elements of the input and of the output
  int32_t multiplier;
  int32_t shift;
  int32_t act_min, act_max;
};

// Operands: input s16 [size] -> output s16 [size]; no rounding mode onnx.
extern const KernelDescriptor kernel_requantize_s16_ref;

}  // namespace tinyaot
