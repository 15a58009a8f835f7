// QUANTIZE from float32 to int8 or int16 and DEQUANTIZE from int8 or int16
// to float32, with TFLite Micro's float arithmetic. (int8 -> int8 QUANTIZE is a requantize
// table: see kernels/activation/.)
#pragma once

#include <stdint.h>

#include "tinyaot/kernel_abi.h"

namespace tinyaot {

struct QuantizeParams {
  int32_t size;        // elements
  float scale;         // of the integer side; positive and finite
  int32_t zero_point;  // of the integer side
};

// Operands: input f32 [size] -> output s8 [size]:
//   out = clamp(round_half_away_from_zero(in / scale) + zero_point).
extern const KernelDescriptor kernel_quantize_f32_s8_ref;
// The same without float arithmetic on cores without an FPU
// (quantize_f32_s8_estimate.cpp).
extern const KernelDescriptor kernel_quantize_f32_s8_estimate;

// Operands: input s8 [size] -> output f32 [size]: out = scale * (in - zero_point).
extern const KernelDescriptor kernel_dequantize_s8_f32_ref;

// The same two with int16 on the integer side (quantize_s16_ref.cpp).
extern const KernelDescriptor kernel_quantize_f32_s16_ref;
extern const KernelDescriptor kernel_dequantize_s16_f32_ref;

}  // namespace tinyaot
