// Compile-time quantization math (host only): turning real scales into the
// integer constants the kernels consume. Kept beside quant.h so both halves
// of the rescale live in one folder.
#pragma once

#include <stdint.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <optional>

#include "tinyaot/target.h"

namespace tinyaot {

struct QuantizedMultiplier {
  int32_t multiplier = 0;  // Q31 significand
  int32_t shift = 0;       // exponent, positive = left shift
};

// TFLite's QuantizeMultiplier: frexp, round half away from zero, flush
// multipliers below 2^-31 to zero; in single rounding the exponent is
// capped at 30 as TFLITE_SINGLE_ROUNDING does.
inline QuantizedMultiplier quantize_multiplier(double real, Rounding rounding) {
  QuantizedMultiplier out;
  if (real == 0.0) return out;
  int exponent = 0;
  const double significand = std::frexp(real, &exponent);
  int64_t fixed =
      static_cast<int64_t>(std::round(significand * static_cast<double>(int64_t{1} << 31)));
  if (fixed == (int64_t{1} << 31)) {
    fixed /= 2;
    ++exponent;
  }
  if (exponent < -31) {
    exponent = 0;
    fixed = 0;
  }
  if (rounding == Rounding::kSingle && exponent > 30) {
    exponent = 30;
    fixed = (int64_t{1} << 31) - 1;
  }
  out.multiplier = static_cast<int32_t>(fixed);
  out.shift = exponent;
  return out;
}

// Rounding mode onnx (onnx_requantize.h): onnxruntime's float32 multiplier
// of a weighted operator, f32(f32(input_scale * filter_scale) / output_scale)
// in that order (QLinearConv, QLinearMatMul, QGemm), and of
// QLinearGlobalAveragePool over `count` cells, f32(input_scale /
// f32(output_scale * f32(count))). Each operation on float32 values rounds
// to float32 (FLT_EVAL_METHOD 0 on the hosts the compiler runs on); a
// different order moves near-ties to the other side.
inline float onnx_weighted_multiplier(float input_scale, float filter_scale, float output_scale) {
  const float product = input_scale * filter_scale;
  return product / output_scale;
}

inline float onnx_average_multiplier(float input_scale, float output_scale, int64_t count) {
  const float divisor = output_scale * static_cast<float>(count);
  return input_scale / divisor;
}

// The multiplier as ChannelQuant stores it in mode onnx (its bits), or
// empty when the kernels cannot take it (not finite or negative: a zero or
// negative scale).
inline std::optional<int32_t> onnx_multiplier_bits(float multiplier) {
  if (!(multiplier >= 0.0f && multiplier <= std::numeric_limits<float>::max())) return std::nullopt;
  int32_t bits = 0;
  std::memcpy(&bits, &multiplier, sizeof bits);
  return bits;
}

// TFLite's Quantize used for activation bounds: zp + round(f / scale), the
// division in float as TFLite does it; in rounding mode onnx round half to
// even, as onnxruntime's QuantizeLinear after a float32 Clip or Relu (a
// bound exactly halfway rounds the other way). Empty when the result leaves int32
// (a tiny scale makes f / scale huge or infinite; TFLite's cast would then
// be undefined): the caller refuses the model.
inline std::optional<int32_t> quantize_real(float scale, int32_t zero_point, float value,
                                            Rounding rounding = Rounding::kDouble) {
  const float quotient = value / scale;
  const float q = rounding == Rounding::kOnnx ? std::nearbyint(quotient) : std::round(quotient);
  const double result = static_cast<double>(zero_point) + static_cast<double>(q);
  if (!(result >= static_cast<double>(std::numeric_limits<int32_t>::min()) &&
        result <= static_cast<double>(std::numeric_limits<int32_t>::max())))
    return std::nullopt;
  return static_cast<int32_t>(result);
}

}  // namespace tinyaot
