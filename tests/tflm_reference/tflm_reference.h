// TFLite Micro's integer arithmetic for MEAN, LEAKY_RELU and QUANTIZE,
// written for the tests from TFLite's own definitions, independently of
// tinyaot's kernels and their helpers (kernels/common/quant.h,
// kernels/activation/activation_math.h, the lowerings): the Prepare that
// turns scales into multipliers and the reference kernel that applies them.
//
// Sources followed (tensorflow/tflite-micro and the TFLite kernels it
// shares):
//   quantization_util.cc   QuantizeMultiplier
//   common.h / common.cc   MultiplyByQuantizedMultiplier, both roundings
//   gemmlowp fixedpoint.h  SaturatingRoundingDoublingHighMul,
//                          RoundingDivideByPOT
//   leaky_relu_common.cc   CalculateOpDataLeakyRelu
//   reference/leaky_relu.h QuantizeLeakyRelu
//   quantize_common.cc     PrepareQuantizeReference (int8 -> int8)
//   reference/requantize.h Requantize
//   reference/quantize.h   AffineQuantize (float -> int8)
//   reduce_common.cc       PrepareMeanOrSum
//   reference/reduce.h     QuantizedMeanOrSum (compute_sum false)
//
// TFLite builds one rounding or the other (TFLITE_SINGLE_ROUNDING); here
// each function takes it as an argument.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

namespace tinyaot::tflm {

struct Multiplier {
  int32_t value = 0;
  int shift = 0;  // positive: left
};

// QuantizeMultiplier: frexp, the significand rounded half away from zero
// to Q31 (a carry to 2^31 halves it), tiny values flushed to 0; single
// rounding saturates shifts above 30.
inline Multiplier quantize_multiplier(double real, bool single_rounding) {
  Multiplier m;
  if (real == 0.0) return m;
  const double q = std::frexp(real, &m.shift);
  auto fixed = static_cast<int64_t>(std::round(q * static_cast<double>(int64_t{1} << 31)));
  if (fixed == (int64_t{1} << 31)) {
    fixed /= 2;
    ++m.shift;
  }
  if (m.shift < -31) {
    m.shift = 0;
    fixed = 0;
  }
  if (single_rounding && m.shift > 30) {
    m.shift = 30;
    fixed = (int64_t{1} << 31) - 1;
  }
  m.value = static_cast<int32_t>(fixed);
  return m;
}

// gemmlowp's SaturatingRoundingDoublingHighMul for int32.
inline int32_t saturating_rounding_doubling_high_mul(int32_t a, int32_t b) {
  const bool overflow = a == b && a == std::numeric_limits<int32_t>::min();
  const int64_t ab = int64_t{a} * int64_t{b};
  const int32_t nudge = ab >= 0 ? (1 << 30) : (1 - (1 << 30));
  const auto high = static_cast<int32_t>((ab + nudge) / (int64_t{1} << 31));
  return overflow ? std::numeric_limits<int32_t>::max() : high;
}

// gemmlowp's RoundingDivideByPOT for int32: round half away from zero.
inline int32_t rounding_divide_by_pot(int32_t x, int exponent) {
  const auto mask = static_cast<int32_t>((int64_t{1} << exponent) - 1);
  const int32_t remainder = x & mask;
  const int32_t threshold = (mask >> 1) + (x < 0 ? 1 : 0);
  return (x >> exponent) + (remainder > threshold ? 1 : 0);
}

// MultiplyByQuantizedMultiplier(int32 x): double rounding (TFLite's
// default) rounds the doubling high product, then the right shift; single
// rounding rounds once, x * m / 2^(31 - shift) half up.
inline int32_t multiply_by_quantized_multiplier(int32_t x, Multiplier m, bool single_rounding) {
  if (single_rounding) {
    const int64_t total_shift = 31 - m.shift;
    const int64_t round = int64_t{1} << (total_shift - 1);
    return static_cast<int32_t>((int64_t{x} * m.value + round) >> total_shift);
  }
  const int left_shift = m.shift > 0 ? m.shift : 0;
  const int right_shift = m.shift > 0 ? 0 : -m.shift;
  return rounding_divide_by_pot(
      saturating_rounding_doubling_high_mul(x * (1 << left_shift), m.value), right_shift);
}

inline int8_t clamp_int8(int32_t v) { return static_cast<int8_t>(std::clamp(v, -128, 127)); }

// ---- LEAKY_RELU ----

struct LeakyRelu {
  int32_t input_zero_point, output_zero_point;
  Multiplier identity, alpha;
};

// CalculateOpDataLeakyRelu: both ratios computed in float, then widened.
inline LeakyRelu prepare_leaky_relu(float input_scale, int32_t input_zero_point, float alpha,
                                    float output_scale, int32_t output_zero_point,
                                    bool single_rounding) {
  LeakyRelu p;
  p.input_zero_point = input_zero_point;
  p.output_zero_point = output_zero_point;
  p.alpha =
      quantize_multiplier(static_cast<double>(input_scale * alpha / output_scale), single_rounding);
  p.identity =
      quantize_multiplier(static_cast<double>(input_scale / output_scale), single_rounding);
  return p;
}

// QuantizeLeakyRelu.
inline std::vector<int8_t> leaky_relu(const LeakyRelu& p, const std::vector<int8_t>& input,
                                      bool single_rounding) {
  std::vector<int8_t> output(input.size());
  for (size_t i = 0; i < input.size(); ++i) {
    const int32_t value = input[i] - p.input_zero_point;
    const Multiplier m = value >= 0 ? p.identity : p.alpha;
    output[i] = clamp_int8(p.output_zero_point +
                           multiply_by_quantized_multiplier(value, m, single_rounding));
  }
  return output;
}

// ---- QUANTIZE ----

// int8 -> int8: PrepareQuantizeReference's effective scale (a division
// in double), then Requantize.
inline std::vector<int8_t> requantize(float input_scale, int32_t input_zero_point,
                                      float output_scale, int32_t output_zero_point,
                                      const std::vector<int8_t>& input, bool single_rounding) {
  const Multiplier m = quantize_multiplier(
      static_cast<double>(input_scale) / static_cast<double>(output_scale), single_rounding);
  std::vector<int8_t> output(input.size());
  for (size_t i = 0; i < input.size(); ++i) {
    const int32_t value = input[i] - input_zero_point;
    output[i] =
        clamp_int8(multiply_by_quantized_multiplier(value, m, single_rounding) + output_zero_point);
  }
  return output;
}

// float32 -> int8: AffineQuantize, the division in float (the op's double
// scale narrowed back to the tensor's float), rounded half away from zero.
// Defined for values whose quotient fits int32 (TFLite converts unchecked).
inline std::vector<int8_t> affine_quantize(float scale, int32_t zero_point,
                                           const std::vector<float>& input) {
  const double op_scale = static_cast<double>(scale);
  std::vector<int8_t> output(input.size());
  for (size_t i = 0; i < input.size(); ++i) {
    const auto steps = static_cast<int32_t>(std::round(input[i] / static_cast<float>(op_scale)));
    output[i] = clamp_int8(steps + zero_point);
  }
  return output;
}

// ---- MEAN ----

// QuantizedMeanOrSum over `axes` (negative counting from the end,
// duplicates once) of an input of `dims`, after PrepareMeanOrSum's
// multiplier (input over output scale, a division in double): per output,
// the int32 sum of its cells less count * input zero point, the
// multiplier with 1 / count folded in, the output zero point, clamped.
// The output holds the kept dimensions in input order.
inline std::vector<int8_t> mean(const std::vector<int32_t>& dims, const std::vector<int32_t>& axes,
                                const std::vector<int8_t>& input, float input_scale,
                                int32_t input_zero_point, float output_scale,
                                int32_t output_zero_point, bool single_rounding) {
  const int rank = static_cast<int>(dims.size());
  std::vector<bool> reduced(dims.size(), false);
  for (int32_t axis : axes) reduced[static_cast<size_t>(axis < 0 ? axis + rank : axis)] = true;
  // Output dims: the reduced ones become 1.
  std::vector<int32_t> out_dims = dims;
  int64_t count = 1, outputs = 1;
  for (int d = 0; d < rank; ++d) {
    if (reduced[static_cast<size_t>(d)]) {
      count *= dims[static_cast<size_t>(d)];
      out_dims[static_cast<size_t>(d)] = 1;
    }
    outputs *= out_dims[static_cast<size_t>(d)];
  }
  std::vector<int32_t> sums(static_cast<size_t>(outputs), 0);
  std::vector<int32_t> index(dims.size(), 0);
  for (size_t i = 0; i < input.size(); ++i) {
    int64_t o = 0;
    for (int d = 0; d < rank; ++d)
      o = o * out_dims[static_cast<size_t>(d)] +
          (reduced[static_cast<size_t>(d)] ? 0 : index[static_cast<size_t>(d)]);
    sums[static_cast<size_t>(o)] += input[i];
    for (int d = rank - 1; d >= 0; --d) {  // the next input index, row-major
      if (++index[static_cast<size_t>(d)] < dims[static_cast<size_t>(d)]) break;
      index[static_cast<size_t>(d)] = 0;
    }
  }
  Multiplier m = quantize_multiplier(
      static_cast<double>(input_scale) / static_cast<double>(output_scale), single_rounding);
  // 63 - CountLeadingZeros(count), at most 32 and no shift below -31.
  int shift = 0;
  while ((count >> (shift + 1)) != 0) ++shift;
  shift = std::min(shift, 32);
  shift = std::min(shift, 31 + m.shift);
  m.value = static_cast<int32_t>((static_cast<int64_t>(m.value) << shift) / count);
  m.shift -= shift;
  std::vector<int8_t> output(sums.size());
  for (size_t o = 0; o < sums.size(); ++o) {
    const auto centred = static_cast<int32_t>(sums[o] - input_zero_point * count);
    output[o] = clamp_int8(multiply_by_quantized_multiplier(centred, m, single_rounding) +
                           output_zero_point);
  }
  return output;
}

}  // namespace tinyaot::tflm
