// Compile-time half of the unary operators (host only): TFLite Micro's
// Prepare for each of them, turning tensor scales into the integer
// parameters of activation_math.h, and the table builder. Float and double
// are used exactly where TFLite Micro uses them, since that decides the
// last bit of each multiplier.
#pragma once

#include <array>
#include <cstdint>

#include "kernels/activation/activation_math.h"
#include "kernels/common/sigmoid_s16.h"
#include "tinyaot/target.h"

namespace tinyaot {
namespace activation {

// LOGISTIC and TANH share it (CalculateArithmeticOpDataLogistic / Tanh).
SigmoidParams prepare_sigmoid(float input_scale, int32_t input_zero_point);

// The int16 LOGISTIC and TANH Prepare (zero points 0): a power-of-two
// input scale whose left shift 12 + log2(scale) is 0 (LOGISTIC) or 0 or 1
// (TANH) takes the multiplier 3 << shift; any other scale a multiplier
// doubled into [2^14, 2^15) with as many right shifts (at most 31). The
// pair comes back resolved; multiplier 0 when the scale is outside what
// int32 arithmetic takes (past 32767 / 12288, or so small that 31
// doublings leave the multiplier below 1).
Sigmoid16Scale prepare_sigmoid16(float input_scale, bool tanh);

RequantizeParams prepare_relu(float input_scale, int32_t input_zero_point, float output_scale,
                              int32_t output_zero_point, Rounding rounding);

RequantizeParams prepare_requantize(float input_scale, int32_t input_zero_point, float output_scale,
                                    int32_t output_zero_point, Rounding rounding);

Relu6Params prepare_relu6(float input_scale, int32_t input_zero_point);

LeakyReluParams prepare_leaky_relu(float input_scale, int32_t input_zero_point, float alpha,
                                   float output_scale, int32_t output_zero_point,
                                   Rounding rounding);

HardSwishParams prepare_hard_swish(float input_scale, int32_t input_zero_point, float output_scale,
                                   int32_t output_zero_point, Rounding rounding);

// table[(uint8_t)x] = clamp(f(x), lo, hi) for every int8 x.
template <typename F>
std::array<int8_t, 256> build_table(F f, int32_t lo = -128, int32_t hi = 127) {
  std::array<int8_t, 256> table{};
  for (int32_t x = -128; x <= 127; ++x) {
    const int32_t y = f(static_cast<int8_t>(x));
    table[static_cast<uint8_t>(x)] = static_cast<int8_t>(y < lo ? lo : (y > hi ? hi : y));
  }
  return table;
}

}  // namespace activation
}  // namespace tinyaot
