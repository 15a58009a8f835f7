// onnxruntime's arithmetic for the kernels the rounding mode onnx covers,
// written for the tests from tests/onnx_ops/README.md (each formula there
// checked element by element against onnxruntime-web 1.31.1) and the
// onnxruntime sources it names, independently of tinyaot's kernels and
// their helpers (kernels/common/onnx_requantize.h, the lowerings): plain
// float32 operations of the host and std::nearbyint (round half to even in
// the default rounding mode).
//
//   MlasRequantizeOutput      QLinearConv, QLinearMatMul, QGemm
//   qlgavgpool.cpp            QLinearGlobalAveragePool
//   qlinear_pool.cc           QLinearAveragePool
//   qladd.cpp                 QLinearAdd (the scalar path WebAssembly takes)
//   MlasQuantizeLinear        QuantizeLinear
//   float Sub between DequantizeLinear and QuantizeLinear
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

namespace tinyaot::ort {

inline int32_t round_even(float value) { return static_cast<int32_t>(std::nearbyint(value)); }

// MlasRequantizeOutput: v = f32(f32(acc) * m), clamped to [lo - zy, hi -
// zy], q = rint(v) + zy.
inline int8_t requantize_output(int32_t acc, float multiplier, int32_t zero_point, int32_t lo,
                                int32_t hi) {
  float value = static_cast<float>(acc) * multiplier;
  value = std::min(std::max(value, static_cast<float>(lo - zero_point)),
                   static_cast<float>(hi - zero_point));
  return static_cast<int8_t>(round_even(value) + zero_point);
}

// QGemm's multiplier: f32(f32(sx * sw) / sy), in that order.
inline float gemm_multiplier(float input_scale, float weight_scale, float output_scale) {
  const float product = input_scale * weight_scale;
  return product / output_scale;
}

// QGemm over rows of `depth`: weights [units][depth] (zero point 0),
// per-tensor or per-unit scales, int32 bias.
inline std::vector<int8_t> qgemm(const std::vector<int8_t>& input, int32_t input_zero_point,
                                 float input_scale, const std::vector<int8_t>& weights,
                                 const std::vector<float>& weight_scales,
                                 const std::vector<int32_t>& bias, int32_t units, int32_t depth,
                                 float output_scale, int32_t output_zero_point, int32_t lo,
                                 int32_t hi) {
  const size_t rows = input.size() / static_cast<size_t>(depth);
  std::vector<int8_t> out;
  for (size_t r = 0; r < rows; ++r) {
    for (int32_t u = 0; u < units; ++u) {
      int32_t acc = bias.empty() ? 0 : bias[size_t(u)];
      for (int32_t d = 0; d < depth; ++d)
        acc += (input[r * size_t(depth) + size_t(d)] - input_zero_point) *
               weights[size_t(u) * size_t(depth) + size_t(d)];
      const float scale = weight_scales.size() == 1 ? weight_scales[0] : weight_scales[size_t(u)];
      out.push_back(requantize_output(acc, gemm_multiplier(input_scale, scale, output_scale),
                                      output_zero_point, lo, hi));
    }
  }
  return out;
}

// QLinearGlobalAveragePool over `count` cells per output (NHWC input
// [cells][channels]): acc = sum q - zx * N, m = f32(sx / f32(sy *
// f32(N))), then MlasRequantizeOutput over the int8 range.
inline std::vector<int8_t> global_average_pool(const std::vector<int8_t>& input, int32_t cells,
                                               int32_t channels, float input_scale,
                                               int32_t input_zero_point, float output_scale,
                                               int32_t output_zero_point) {
  const float multiplier = input_scale / (output_scale * static_cast<float>(cells));
  std::vector<int8_t> out;
  for (int32_t c = 0; c < channels; ++c) {
    int32_t acc = -input_zero_point * cells;
    for (int32_t i = 0; i < cells; ++i) acc += input[size_t(i) * size_t(channels) + size_t(c)];
    out.push_back(requantize_output(acc, multiplier, output_zero_point, -128, 127));
  }
  return out;
}

// QLinearAveragePool, input and output sharing scale s and zero point z:
// one window's cells (in row-major order) dequantized f32(s * f32(q - z)),
// summed in float32, avg = f32(sum / count), q = clamp(rint(f32(f32(avg /
// s) + z))).
inline int8_t average_pool_window(const std::vector<int8_t>& cells, float scale, int32_t zero_point,
                                  int32_t lo, int32_t hi) {
  float sum = 0.0f;
  for (int8_t q : cells) sum = sum + scale * static_cast<float>(q - zero_point);
  const float average = sum / static_cast<float>(cells.size());
  const float value = average / scale + static_cast<float>(zero_point);
  return static_cast<int8_t>(std::min(std::max(round_even(value), lo), hi));
}

// QLinearAdd: a = f32(sa * f32(qa - za)), b likewise, c = f32(f32(a + b) /
// sc), clamped to [lo - zc, hi - zc], q = rint(f32(c + zc)).
inline int8_t qlinear_add(int8_t qa, float sa, int32_t za, int8_t qb, float sb, int32_t zb,
                          float sc, int32_t zc, int32_t lo, int32_t hi) {
  const float a = sa * static_cast<float>(qa - za);
  const float b = sb * static_cast<float>(qb - zb);
  float c = (a + b) / sc;
  c = std::min(std::max(c, static_cast<float>(lo - zc)), static_cast<float>(hi - zc));
  return static_cast<int8_t>(round_even(c + static_cast<float>(zc)));
}

// QLinearMul (qlmul.cpp): QLinearAdd's chain with c = f32(f32(a * b) / sc).
inline int8_t qlinear_mul(int8_t qa, float sa, int32_t za, int8_t qb, float sb, int32_t zb,
                          float sc, int32_t zc, int32_t lo, int32_t hi) {
  const float a = sa * static_cast<float>(qa - za);
  const float b = sb * static_cast<float>(qb - zb);
  const float product = a * b;
  float c = product / sc;
  c = std::min(std::max(c, static_cast<float>(lo - zc)), static_cast<float>(hi - zc));
  return static_cast<int8_t>(round_even(c + static_cast<float>(zc)));
}

// Sub in float32 between DequantizeLinear and QuantizeLinear: q =
// clamp(rint(f32(f32(a - b) / sc)) + zc).
inline int8_t float_sub(int8_t qa, float sa, int32_t za, int8_t qb, float sb, int32_t zb, float sc,
                        int32_t zc, int32_t lo, int32_t hi) {
  const float a = sa * static_cast<float>(qa - za);
  const float b = sb * static_cast<float>(qb - zb);
  const float c = (a - b) / sc;
  const float clamped = std::min(std::max(c, -1024.0f), 1024.0f);
  return static_cast<int8_t>(std::min(std::max(round_even(clamped) + zc, lo), hi));
}

// MlasQuantizeLinear: q = clamp(rint(f32(x / s)) + z), a division (not a
// multiplication by 1 / s).
inline int8_t quantize_linear(float x, float scale, int32_t zero_point) {
  const float steps = x / scale;
  if (std::isnan(steps)) return static_cast<int8_t>(std::min(std::max(zero_point, -128), 127));
  const float clamped = std::min(std::max(steps, -1024.0f), 1024.0f);
  return static_cast<int8_t>(std::min(std::max(round_even(clamped) + zero_point, -128), 127));
}

}  // namespace tinyaot::ort
