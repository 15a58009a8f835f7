// Test-only: TFLite's MultiplyByQuantizedMultiplier written from its
// definition, independently of quant.h, for the tests of quant.h and of the
// output step. Double rounding is gemmlowp's SaturatingRoundingDoublingHighMul
// (sign-dependent nudge, division truncating toward zero) then
// RoundingDivideByPOT (ties away from zero), after TFLite's x * (1 << left)
// (wrapping, as on the hardware). Single rounding (TFLITE_SINGLE_ROUNDING) is
// floor((x * m + 2^(30 - shift)) / 2^(31 - shift)), truncated to int32 as
// TFLite's cast does. Divisions here are exact int64 arithmetic, not shifts.
#pragma once

#include <stdint.h>

namespace tinyaot {
namespace reference {

inline int64_t floor_div(int64_t value, int64_t divisor) {
  int64_t quotient = value / divisor;
  if (value % divisor != 0 && value < 0) --quotient;
  return quotient;
}

inline int32_t gemmlowp_doubling_high_mul(int32_t a, int32_t b) {
  if (a == b && a == INT32_MIN) return INT32_MAX;
  const int64_t ab = static_cast<int64_t>(a) * static_cast<int64_t>(b);
  const int64_t nudge = ab >= 0 ? (int64_t{1} << 30) : (1 - (int64_t{1} << 30));
  return static_cast<int32_t>((ab + nudge) / (int64_t{1} << 31));
}

// x / 2^exponent rounded to nearest, ties away from zero.
inline int32_t gemmlowp_rounding_divide_by_pot(int32_t x, int exponent) {
  if (exponent == 0) return x;
  const int64_t divisor = int64_t{1} << exponent;
  const int64_t magnitude = x < 0 ? -static_cast<int64_t>(x) : x;
  const int64_t rounded = (magnitude + divisor / 2) / divisor;
  return static_cast<int32_t>(x < 0 ? -rounded : rounded);
}

inline int32_t tflite_double_rounding(int32_t x, int32_t multiplier, int shift) {
  const int left = shift > 0 ? shift : 0;
  const int right = shift > 0 ? 0 : -shift;
  const auto shifted = static_cast<int32_t>(static_cast<uint32_t>(x) * (uint32_t{1} << left));
  return gemmlowp_rounding_divide_by_pot(gemmlowp_doubling_high_mul(shifted, multiplier), right);
}

inline int32_t tflite_single_rounding(int32_t x, int32_t multiplier, int shift) {
  const int64_t divisor = int64_t{1} << (31 - shift);
  const int64_t result = floor_div(static_cast<int64_t>(x) * multiplier + divisor / 2, divisor);
  return static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(result)));
}

}  // namespace reference
}  // namespace tinyaot
