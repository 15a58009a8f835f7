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

template <Rounding R>
inline int8_t quantize_one(float x, float scale, int32_t zero_point) {
  float steps = x / scale;
  // Saturate before rounding and converting, as Arm's float-to-int
  // conversion does (NaN becomes 0); any value past this bound clamps to
  // the same int8 anyway, and rounding commutes with a clamp to integers.
  if (steps != steps) steps = 0.0f;
  if (steps > 1024.0f) steps = 1024.0f;
  if (steps < -1024.0f) steps = -1024.0f;
  steps = R == Rounding::kOnnx ? round_half_to_even(steps) : round_half_away_from_zero(steps);
  const int32_t value = static_cast<int32_t>(steps) + zero_point;
  return static_cast<int8_t>(value < -128 ? -128 : (value > 127 ? 127 : value));
}

}  // namespace tinyaot
