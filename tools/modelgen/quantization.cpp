#include "tools/modelgen/quantization.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace tinyaot::modelgen {

AffineQuant affine_from_range(float lo, float hi) {
  lo = std::min(lo, 0.0f);
  hi = std::max(hi, 0.0f);
  if (!(hi > lo)) hi = lo + 1e-3f;  // a constant-zero range still needs a scale
  const float scale = (hi - lo) / 255.0f;
  const long zp = std::lround(-128.0 - static_cast<double>(lo) / scale);
  return {scale, static_cast<int32_t>(std::clamp<long>(zp, -128, 127))};
}

int8_t quantize_value(float x, const AffineQuant& q) {
  const long v = std::lround(static_cast<double>(x) / q.scale) + q.zero_point;
  return static_cast<int8_t>(std::clamp<long>(v, -128, 127));
}

std::vector<int8_t> quantize_values(const std::vector<float>& x, const AffineQuant& q) {
  std::vector<int8_t> out(x.size());
  for (size_t i = 0; i < x.size(); ++i) out[i] = quantize_value(x[i], q);
  return out;
}

SymmetricWeights quantize_symmetric(const std::vector<float>& weights,
                                    const std::vector<int32_t>& shape, int32_t axis) {
  size_t total = 1;
  for (int32_t d : shape) total *= static_cast<size_t>(d);
  if (total != weights.size()) throw std::invalid_argument("modelgen: weights do not match shape");
  // View the tensor as [outer, channels, inner] around the quantized axis.
  size_t outer = 1, channels = 1, inner = 1;
  if (axis >= 0) {
    if (axis >= static_cast<int32_t>(shape.size()))
      throw std::invalid_argument("modelgen: quantized axis out of range");
    for (int32_t d = 0; d < axis; ++d) outer *= static_cast<size_t>(shape[d]);
    channels = static_cast<size_t>(shape[axis]);
    for (size_t d = static_cast<size_t>(axis) + 1; d < shape.size(); ++d)
      inner *= static_cast<size_t>(shape[d]);
  } else {
    inner = total;
  }
  std::vector<float> max_abs(channels, 0.0f);
  for (size_t o = 0; o < outer; ++o)
    for (size_t c = 0; c < channels; ++c)
      for (size_t i = 0; i < inner; ++i)
        max_abs[c] = std::max(max_abs[c], std::fabs(weights[(o * channels + c) * inner + i]));
  SymmetricWeights result;
  for (float m : max_abs) result.scales.push_back(m > 0.0f ? m / 127.0f : 1.0f);
  result.values.resize(total);
  for (size_t o = 0; o < outer; ++o)
    for (size_t c = 0; c < channels; ++c)
      for (size_t i = 0; i < inner; ++i) {
        const size_t k = (o * channels + c) * inner + i;
        const long v = std::lround(static_cast<double>(weights[k]) / result.scales[c]);
        result.values[k] = static_cast<int8_t>(std::clamp<long>(v, -127, 127));
      }
  return result;
}

std::vector<float> bias_scales(float input_scale, const std::vector<float>& weight_scales,
                               int32_t channels) {
  // Per-tensor weights get a per-tensor bias, as the converter writes it
  // (XNNPACK, for one, rejects a per-channel bias beside per-tensor weights).
  if (weight_scales.size() == 1) return {input_scale * weight_scales[0]};
  std::vector<float> scales(static_cast<size_t>(channels));
  for (size_t c = 0; c < scales.size(); ++c) scales[c] = input_scale * weight_scales[c];
  return scales;
}

std::vector<int32_t> quantize_bias(const std::vector<float>& bias, float input_scale,
                                   const std::vector<float>& weight_scales) {
  const std::vector<float> scales =
      bias_scales(input_scale, weight_scales, static_cast<int32_t>(bias.size()));
  std::vector<int32_t> out(bias.size());
  for (size_t c = 0; c < bias.size(); ++c) {
    const double v = std::round(static_cast<double>(bias[c]) / scales[scales.size() == 1 ? 0 : c]);
    out[c] = static_cast<int32_t>(std::clamp(v, -2147483647.0, 2147483647.0));
  }
  return out;
}

}  // namespace tinyaot::modelgen
