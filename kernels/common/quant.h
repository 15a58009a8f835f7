// Fixed-point requantization: the one place that defines rounding.
//
// TFLite's integer kernels rescale an int32 accumulator by a multiplier in
// Q31 and a power-of-two shift. Two rounding modes exist and a program
// records which one it was compiled for:
//   double rounding (TFLite Micro, CMSIS-NN default): saturating rounding
//     doubling high multiply, then rounding right shift (half away from 0);
//   single rounding (TFLITE_SINGLE_ROUNDING): one 64-bit multiply and one
//     round-half-up shift.
// Freestanding, header-only: used by kernels on the device and by the
// compiler, the tests and the oracle glue on the host.
#pragma once

#include <stdint.h>

#include "tinyaot/target.h"

namespace tinyaot {

// Per output channel constants of a weighted operator, computed by the
// compiler and stored as a constant operand: kernels read, never derive.
struct ChannelQuant {
  int32_t bias;        // int32 bias (0 when the model has none)
  int32_t multiplier;  // Q31 significand of input*filter/output scale
  int32_t shift;       // power-of-two exponent, positive = left
};

// gemmlowp's SaturatingRoundingDoublingHighMul. gemmlowp adds 2^30 (1 -
// 2^30 to a negative product) and divides by 2^31 truncating toward zero;
// for a negative product p that is -floor((-p + 2^30 - 1) / 2^31), which
// equals floor((p + 2^30) / 2^31). So one rounding constant and an
// arithmetic shift give gemmlowp's value for every product, without the
// sign test and the truncating division (on Armv7-M: SMLAL and a shift,
// as CMSIS-NN computes it).
inline int32_t saturating_rounding_doubling_high_mul(int32_t a, int32_t b) {
  if (a == b && a == INT32_MIN) return INT32_MAX;
  const int64_t ab = static_cast<int64_t>(a) * static_cast<int64_t>(b);
  return static_cast<int32_t>((ab + (int64_t{1} << 30)) >> 31);
}

// Rounding arithmetic right shift, ties away from zero.
inline int32_t rounding_divide_by_pot(int32_t x, int exponent) {
  if (exponent <= 0) return x;
  if (exponent > 31) exponent = 31;
  const int32_t mask = static_cast<int32_t>((uint32_t{1} << exponent) - 1);
  const int32_t remainder = x & mask;
  const int32_t threshold = (mask >> 1) + (x < 0 ? 1 : 0);
  return (x >> exponent) + (remainder > threshold ? 1 : 0);
}

// Two's-complement wrapping left shift: TFLite's `x * (1 << s)` on the
// hardware it targets, without C++ signed-overflow UB.
inline int32_t wrapping_shift_left(int32_t x, int shift) {
  return static_cast<int32_t>(static_cast<uint32_t>(x) << shift);
}

// int32 accumulation that wraps like the hardware TFLite runs on, without
// signed-overflow UB when a corrupt or pathological model overflows it.
inline int32_t wrapping_add(int32_t a, int32_t b) {
  return static_cast<int32_t>(static_cast<uint32_t>(a) + static_cast<uint32_t>(b));
}

inline int32_t requantize_double(int32_t x, int32_t multiplier, int shift) {
  const int left = shift > 0 ? shift : 0;
  const int right = shift > 0 ? 0 : -shift;
  return rounding_divide_by_pot(
      saturating_rounding_doubling_high_mul(wrapping_shift_left(x, left), multiplier), right);
}

inline int32_t requantize_single(int32_t x, int32_t multiplier, int shift) {
  // Valid for shift in [-31, 30]: the compiler clamps multipliers so.
  const int total_shift = 31 - shift;
  const int64_t round = int64_t{1} << (total_shift - 1);
  const int64_t result = (static_cast<int64_t>(x) * multiplier + round) >> total_shift;
  return static_cast<int32_t>(result);
}

// TFLite's MultiplyByQuantizedMultiplier in rounding mode R, fixed at
// compile time: kernels choose the mode once per call (output_step.h), so
// no element pays a branch on it.
template <Rounding R>
inline int32_t requantize(int32_t x, int32_t multiplier, int shift) {
  if constexpr (R == Rounding::kSingle) {
    return requantize_single(x, multiplier, shift);
  } else {
    return requantize_double(x, multiplier, shift);
  }
}

// The same in a mode known only at run time: for code that runs once per
// value it builds (lookup tables, compile-time constants), not per element.
inline int32_t requantize(int32_t x, int32_t multiplier, int shift, Rounding rounding) {
  return rounding == Rounding::kSingle ? requantize<Rounding::kSingle>(x, multiplier, shift)
                                       : requantize<Rounding::kDouble>(x, multiplier, shift);
}

// TFLite's MultiplyByQuantizedMultiplierSmallerThanOneExp: double rounding
// in both modes' reference code for the few operators that call it.
inline int32_t requantize_smaller_than_one(int32_t x, int32_t multiplier, int shift) {
  return rounding_divide_by_pot(saturating_rounding_doubling_high_mul(x, multiplier), -shift);
}

inline int32_t clamp_i32(int32_t x, int32_t lo, int32_t hi) {
  return x < lo ? lo : (x > hi ? hi : x);
}

inline int8_t saturate_i8(int32_t x) { return static_cast<int8_t>(clamp_i32(x, -128, 127)); }

}  // namespace tinyaot
