// gemmlowp-style fixed-point math on raw int32 values, as TFLite's integer
// SOFTMAX, LOGISTIC and TANH use it. A value in format Q<m> (m integer bits)
// is raw / 2^(31 - m). Every function reproduces gemmlowp's scalar code bit
// for bit: the softmax kernel calls the reciprocal at run time, lowerings
// call the rest to build lookup tables at compile time.
//
// Freestanding and header-only. Additions and negations wrap (two's
// complement, as gemmlowp's plain int32 arithmetic does on the hardware),
// so pathological inputs cannot trigger signed-overflow UB.
#pragma once

#include <stdint.h>

#include "kernels/common/quant.h"

namespace tinyaot {
namespace fixed_point {

inline int32_t add(int32_t a, int32_t b) {
  return static_cast<int32_t>(static_cast<uint32_t>(a) + static_cast<uint32_t>(b));
}

inline int32_t sub(int32_t a, int32_t b) {
  return static_cast<int32_t>(static_cast<uint32_t>(a) - static_cast<uint32_t>(b));
}

inline int32_t neg(int32_t a) { return sub(0, a); }

// Product of two fixed-point values: the integer bits add up.
inline int32_t mul(int32_t a, int32_t b) { return saturating_rounding_doubling_high_mul(a, b); }

// x * 2^exponent keeping the format: saturating for a left shift, rounding
// (ties away from zero) for a right shift.
inline int32_t saturating_rounding_mul_by_pot(int32_t x, int exponent) {
  if (exponent == 0) return x;
  if (exponent < 0) return rounding_divide_by_pot(x, -exponent);
  const int32_t threshold = static_cast<int32_t>((uint32_t{1} << (31 - exponent)) - 1);
  if (x > threshold) return INT32_MAX;
  if (x < -threshold) return INT32_MIN;
  return wrapping_shift_left(x, exponent);
}

// Changes a raw value from Q<src_bits> to Q<dst_bits>.
inline int32_t rescale(int32_t x, int src_bits, int dst_bits) {
  return saturating_rounding_mul_by_pot(x, src_bits - dst_bits);
}

// (a + b) / 2 rounded half away from zero, in 64 bits.
inline int32_t rounding_half_sum(int32_t a, int32_t b) {
  const int64_t sum = int64_t{a} + int64_t{b};
  return static_cast<int32_t>((sum + (sum >= 0 ? 1 : -1)) / 2);
}

// 1.0 in Q<bits>; Q0 cannot hold 1.0 and uses its largest value.
inline int32_t one(int bits) {
  return bits == 0 ? INT32_MAX : static_cast<int32_t>(uint32_t{1} << (31 - bits));
}

// exp(a) for a in [-1/4, 0), Q0 in and out: Taylor series around -1/8.
inline int32_t exp_on_interval_between_negative_one_quarter_and_0_excl(int32_t a) {
  const int32_t exp_minus_one_eighth = 1895147668;
  const int32_t one_third = 715827883;
  const int32_t x = add(a, int32_t{1} << 28);
  const int32_t x2 = mul(x, x);
  const int32_t x3 = mul(x2, x);
  const int32_t x4 = mul(x2, x2);
  const int32_t x4_over_4 = saturating_rounding_mul_by_pot(x4, -2);
  const int32_t poly =
      saturating_rounding_mul_by_pot(add(mul(add(x4_over_4, x3), one_third), x2), -1);
  return add(exp_minus_one_eighth, mul(exp_minus_one_eighth, add(x, poly)));
}

// exp(a) for a <= 0 in Q<integer_bits> (0..30), result in Q0: the exact
// exp of the fractional quarter, then one multiply per set bit of the rest.
inline int32_t exp_on_negative_values(int32_t a, int integer_bits) {
  const int fractional_bits = 31 - integer_bits;
  const int32_t one_quarter = int32_t{1} << (fractional_bits - 2);
  const int32_t a_mod_quarter_minus_quarter = sub(a & (one_quarter - 1), one_quarter);
  int32_t result = exp_on_interval_between_negative_one_quarter_and_0_excl(
      rescale(a_mod_quarter_minus_quarter, integer_bits, 0));
  const int32_t remainder = sub(a_mod_quarter_minus_quarter, a);
  // exp(-2^k) in Q0 for k = -2..4, gemmlowp's constants.
  static constexpr int32_t kExpOfMinusPowerOfTwo[7] = {1672461947, 1302514674, 790015084, 290630308,
                                                       39332535,   720401,     242};
  for (int k = -2; k <= 4; ++k) {
    if (integer_bits <= k) break;
    const int bit = fractional_bits + k;
    if ((remainder & static_cast<int32_t>(uint32_t{1} << bit)) != 0)
      result = mul(result, kExpOfMinusPowerOfTwo[k + 2]);
  }
  if (integer_bits > 5) {
    // Below -32 the result is zero in Q0.
    const int32_t minus_32 = -static_cast<int32_t>(uint32_t{1} << (36 - integer_bits));
    if (a < minus_32) result = 0;
  }
  if (a == 0) result = one(0);
  return result;
}

// Newton-Raphson's first estimate of 1 / d for d in [1/2, 1): 48/17 -
// 32/17 d, its two constants in Q2 (gemmlowp's).
constexpr int32_t kFortyEightOver17 = 1515870810;
constexpr int32_t kMinusThirtyTwoOver17 = -1010580540;

// Newton-Raphson division shared by the two functions below: returns x in
// Q2 with x ~= 1 / half_denominator.
inline int32_t newton_raphson_reciprocal_q2(int32_t half_denominator) {
  int32_t x = add(kFortyEightOver17, mul(half_denominator, kMinusThirtyTwoOver17));
  for (int i = 0; i < 3; ++i) {
    const int32_t half_denominator_times_x = mul(half_denominator, x);
    const int32_t one_minus_half_denominator_times_x = sub(one(2), half_denominator_times_x);
    x = add(x, rescale(mul(x, one_minus_half_denominator_times_x), 4, 2));
  }
  return x;
}

// 1 / (1 + a) for a in [0, 1), Q0 in and out.
inline int32_t one_over_one_plus_x_for_x_in_0_1(int32_t a) {
  const int32_t x = newton_raphson_reciprocal_q2(rounding_half_sum(a, one(0)));
  // x / 2 in Q2 is the same raw value read as Q1.
  return rescale(x, 1, 0);
}

// (1 - a) / (1 + a) for a in [0, 1), Q0 in and out.
inline int32_t one_minus_x_over_one_plus_x_for_x_in_0_1(int32_t a) {
  const int32_t x = newton_raphson_reciprocal_q2(rounding_half_sum(a, one(0)));
  return rescale(sub(x, one(2)), 2, 0);
}

// tanh(a) for a in Q<integer_bits>, result in Q0.
inline int32_t tanh(int32_t a, int integer_bits) {
  if (a == 0) return 0;
  const bool negative = a < 0;
  const int32_t n = negative ? a : neg(a);
  // exp(2n): the doubling is free, the same raw value read with one more
  // integer bit.
  const int32_t t =
      one_minus_x_over_one_plus_x_for_x_in_0_1(exp_on_negative_values(n, integer_bits + 1));
  return negative ? neg(t) : t;
}

// logistic(a) = 1 / (1 + exp(-a)) for a in Q<integer_bits>, result in Q0.
inline int32_t logistic(int32_t a, int integer_bits) {
  if (a == 0) return int32_t{1} << 30;
  const bool positive = a > 0;
  const int32_t magnitude = positive ? a : neg(a);
  const int32_t if_positive =
      one_over_one_plus_x_for_x_in_0_1(exp_on_negative_values(neg(magnitude), integer_bits));
  return positive ? if_positive : sub(one(0), if_positive);
}

inline int count_leading_zeros(uint32_t x) { return x == 0 ? 32 : __builtin_clz(x); }

// TFLite's GetReciprocal: 1 / x for a positive x in Q<x_integer_digits>,
// as a Q0 significand in [0.5, 1] and the number of integer bits of x above
// 1.0 (*num_bits_over_unit), so that 1/x = result * 2^-num_bits_over_unit.
inline int32_t reciprocal(int32_t x, int x_integer_digits, int* num_bits_over_unit) {
  const int headroom_plus_one = count_leading_zeros(static_cast<uint32_t>(x));
  *num_bits_over_unit = x_integer_digits - headroom_plus_one;
  const uint32_t normalized =
      headroom_plus_one >= 32 ? 0u : static_cast<uint32_t>(x) << headroom_plus_one;
  const int32_t shifted_minus_one = static_cast<int32_t>(normalized - (uint32_t{1} << 31));
  return one_over_one_plus_x_for_x_in_0_1(shifted_minus_one);
}

}  // namespace fixed_point
}  // namespace tinyaot
