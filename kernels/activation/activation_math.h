// The integer reference functions of TFLite Micro's int8 unary operators,
// one input value at a time. They are the specification of LOGISTIC, TANH,
// HARD_SWISH, LEAKY_RELU, RELU, RELU6 and int8 QUANTIZE: the compiler
// evaluates them for all 256 input bytes to build each operation's lookup
// table, and the run-time kernel only indexes it.
//
// The parameter structs hold what TFLite Micro's Prepare computes
// (activation_prepare.h builds them from the tensors' quantization).
// Freestanding and header-only: integer arithmetic only.
#pragma once

#include <stdint.h>

#include "kernels/common/fixed_point.h"
#include "kernels/common/output_step.h"
#include "kernels/common/quant.h"

namespace tinyaot {
namespace activation {

// LOGISTIC and TANH: the input is rescaled to Q4.27 (4 integer bits), the
// gemmlowp function evaluated, the Q0.31 result rounded to 8 bits. Inputs
// beyond the radius saturate before any arithmetic.
struct SigmoidParams {
  int32_t input_zero_point;
  int32_t input_range_radius;
  int32_t input_multiplier;
  int32_t input_left_shift;
};

constexpr int kSigmoidInputIntegerBits = 4;

inline int8_t logistic_s8(int8_t x, const SigmoidParams& p, Rounding rounding) {
  const int32_t input = x - p.input_zero_point;
  if (input <= -p.input_range_radius) return -128;
  if (input >= p.input_range_radius) return 127;
  const int32_t input_q4 = requantize(input, p.input_multiplier, p.input_left_shift, rounding);
  const int32_t output_q0 = fixed_point::logistic(input_q4, kSigmoidInputIntegerBits);
  // Output scale 1/256, zero point -128: 23 = 31 - 8 fractional bits.
  return saturate_i8(rounding_divide_by_pot(output_q0, 23) - 128);
}

inline int8_t tanh_s8(int8_t x, const SigmoidParams& p, Rounding rounding) {
  const int32_t input = x - p.input_zero_point;
  if (input <= -p.input_range_radius) return -128;
  if (input >= p.input_range_radius) return 127;
  const int32_t input_q4 = requantize(input, p.input_multiplier, p.input_left_shift, rounding);
  const int32_t output_q0 = fixed_point::tanh(input_q4, kSigmoidInputIntegerBits);
  // Output scale 1/128, zero point 0: 24 = 31 - 7 fractional bits.
  return saturate_i8(rounding_divide_by_pot(output_q0, 24));
}

// RELU (requantizing, clamped at the output's real 0) and int8 -> int8
// QUANTIZE (clamped to int8 only): one requantize of the offset input.
struct RequantizeParams {
  int32_t input_zero_point;
  int32_t output_zero_point;
  int32_t multiplier;
  int32_t shift;
  int32_t act_min;
  int32_t act_max;
};

inline int8_t requantize_s8(int8_t x, const RequantizeParams& p, Rounding rounding) {
  return with_rounding(rounding, [&](auto mode) {
    return output_step<decltype(mode)::value>(x, -p.input_zero_point, p.multiplier, p.shift,
                                              p.output_zero_point, p.act_min, p.act_max);
  });
}

// RELU6: TFLite Micro's int8 kernel only clamps the raw input between the
// input's quantized 0 and 6; it never looks at the output quantization.
struct Relu6Params {
  int32_t zero;
  int32_t six;
};

inline int8_t relu6_s8(int8_t x, const Relu6Params& p) {
  return static_cast<int8_t>(x > p.six ? p.six : (x < p.zero ? p.zero : x));
}

// LEAKY_RELU: one multiplier for the non-negative side, one (including
// alpha) for the negative side.
struct LeakyReluParams {
  int32_t input_zero_point;
  int32_t output_zero_point;
  int32_t multiplier_identity;
  int32_t shift_identity;
  int32_t multiplier_alpha;
  int32_t shift_alpha;
};

inline int8_t leaky_relu_s8(int8_t x, const LeakyReluParams& p, Rounding rounding) {
  const int32_t input = x - p.input_zero_point;
  const bool identity = input >= 0;
  return with_rounding(rounding, [&](auto mode) {
    return output_step<decltype(mode)::value>(
        input, 0, identity ? p.multiplier_identity : p.multiplier_alpha,
        identity ? p.shift_identity : p.shift_alpha, p.output_zero_point, -128, 127);
  });
}

// HARD_SWISH: TFLite's int16 fixed-point formulation (x * relu6(x + 3) / 6),
// whose rounding never depends on the program's rounding mode.
struct HardSwishParams {
  int32_t input_zero_point;
  int32_t output_zero_point;
  int16_t reluish_multiplier_fixedpoint_int16;
  int16_t output_multiplier_fixedpoint_int16;
  int32_t reluish_multiplier_exponent;
  int32_t output_multiplier_exponent;  // <= 0
};

namespace hard_swish_detail {

// int16 arithmetic exactly as the reference's int16 expressions evaluate:
// promoted to int, then narrowed (two's complement wrap).
inline int16_t narrow(int32_t x) { return static_cast<int16_t>(x); }

inline int16_t saturating_left_shift(int16_t value, int amount) {
  const int64_t result = static_cast<int64_t>(value) * (int64_t{1} << amount);
  return narrow(static_cast<int32_t>(result > 32767 ? 32767 : (result < -32768 ? -32768 : result)));
}

// gemmlowp's int16 SaturatingRoundingDoublingHighMul.
inline int16_t saturating_rounding_doubling_high_mul(int16_t a, int16_t b) {
  if (a == b && a == INT16_MIN) return INT16_MAX;
  const int32_t ab = int32_t{a} * int32_t{b};
  const int32_t nudge = ab >= 0 ? (1 << 14) : (1 - (1 << 14));
  return narrow((ab + nudge) / (1 << 15));
}

// The reference's own variant that truncates toward zero instead.
inline int16_t saturating_doubling_high_mul(int16_t a, int16_t b) {
  if (a == b && a == INT16_MIN) return INT16_MAX;
  return narrow((int32_t{a} * int32_t{b}) / (1 << 15));
}

// gemmlowp's RoundingDivideByPOT instantiated for int16: the mask is
// narrowed to int16 too, which matters for exponents of 16 and more.
inline int16_t rounding_divide_by_pot(int16_t x, int exponent) {
  const int16_t mask = narrow(static_cast<int32_t>((int64_t{1} << exponent) - 1));
  const int16_t remainder = narrow(x & mask);
  const int16_t threshold = narrow((mask >> 1) + (x < 0 ? 1 : 0));
  return narrow((x >> exponent) + (remainder > threshold ? 1 : 0));
}

}  // namespace hard_swish_detail

inline int8_t hard_swish_s8(int8_t x, const HardSwishParams& p) {
  using namespace hard_swish_detail;
  const int16_t input_value = narrow(x - p.input_zero_point);
  const int16_t input_on_hires_scale = narrow(input_value * (1 << 7));
  const int16_t input_on_preshift_output_scale = saturating_rounding_doubling_high_mul(
      input_on_hires_scale, p.output_multiplier_fixedpoint_int16);
  // Rescale [-3, 3] to [-1, 1] (saturating); a left shift keeps one bit back
  // so that saturation happens in its last step only.
  int16_t reluish = input_on_hires_scale;
  if (p.reluish_multiplier_exponent > 0)
    reluish = saturating_left_shift(reluish, p.reluish_multiplier_exponent - 1);
  reluish = saturating_rounding_doubling_high_mul(reluish, p.reluish_multiplier_fixedpoint_int16);
  if (p.reluish_multiplier_exponent > 0) reluish = saturating_left_shift(reluish, 1);
  if (p.reluish_multiplier_exponent < 0)
    reluish = rounding_divide_by_pot(reluish, -p.reluish_multiplier_exponent);
  // [-1, 1] -> [0, 1].
  reluish = narrow((reluish + (1 << 15)) >> 1);
  const int16_t preshift_output =
      saturating_doubling_high_mul(reluish, input_on_preshift_output_scale);
  int16_t output = rounding_divide_by_pot(preshift_output, -p.output_multiplier_exponent);
  output = narrow(output + p.output_zero_point);
  return saturate_i8(output);
}

}  // namespace activation
}  // namespace tinyaot
