// QUANTIZE's float32 chain, one element (freestanding): the reference's
// arithmetic (quantize_f32_s8_ref.cpp), and what quantize_f32_s8_estimate
// falls back on.
#pragma once

#include <stdint.h>

#include "kernels/common/onnx_requantize.h"
#include "kernels/common/quant.h"

namespace tinyaot {

// std::round without <cmath>. Floats of magnitude 2^23 and above are
// integers already; below it the truncation and the fraction are exact.
inline float round_half_away_from_zero(float x) {
  if (!(x > -8388608.0f && x < 8388608.0f)) return x;
  const float truncated = static_cast<float>(static_cast<int32_t>(x));
  const float fraction = x - truncated;
  if (fraction >= 0.5f) return truncated + 1.0f;
  if (fraction <= -0.5f) return truncated - 1.0f;
  return truncated;
}

// Out: int8_t or int16_t (TFLite Micro's AffineQuantize for either).
template <Rounding R, typename Out = int8_t>
inline Out quantize_one(float x, float scale, int32_t zero_point) {
  constexpr int32_t kMin = sizeof(Out) == 1 ? INT8_MIN : INT16_MIN;
  constexpr int32_t kMax = sizeof(Out) == 1 ? INT8_MAX : INT16_MAX;
  // Saturate before rounding and converting, as Arm's float-to-int
  // conversion does (NaN becomes 0); any value past this bound (four times
  // the type's range) clamps to the same output anyway, and rounding
  // commutes with a clamp to integers.
  constexpr float kBound = 4.0f * (kMax + 1);
  float steps = x / scale;
  if (steps != steps) steps = 0.0f;
  if (steps > kBound) steps = kBound;
  if (steps < -kBound) steps = -kBound;
  steps = R == Rounding::kOnnx ? round_half_to_even(steps) : round_half_away_from_zero(steps);
  const int32_t value = static_cast<int32_t>(steps) + zero_point;
  return static_cast<Out>(value < kMin ? kMin : (value > kMax ? kMax : value));
}

}  // namespace tinyaot
