// Quantization helpers following the TFLite converter's conventions:
// activations asymmetric int8 over a range that contains 0, weights
// symmetric int8 (per tensor or per channel), bias int32 with scale
// input_scale * weight_scale and zero point 0.
#pragma once

#include <cstdint>
#include <vector>

namespace tinyaot::modelgen {

struct AffineQuant {
  float scale;
  int32_t zero_point;
};

// Asymmetric int8 parameters covering [lo, hi] (widened to contain 0).
AffineQuant affine_from_range(float lo, float hi);

// round(x / scale) + zero point, saturated to int8.
int8_t quantize_value(float x, const AffineQuant& q);
std::vector<int8_t> quantize_values(const std::vector<float>& x, const AffineQuant& q);

struct SymmetricWeights {
  std::vector<int8_t> values;
  std::vector<float> scales;  // one, or one per slice along the axis
};

// Symmetric quantization to [-127, 127] of a tensor of `shape`: one scale
// per slice along `axis`, or a single scale when axis < 0.
SymmetricWeights quantize_symmetric(const std::vector<float>& weights,
                                    const std::vector<int32_t>& shape, int32_t axis);

// Bias values quantized with scale input_scale * weight_scales[c] (a single
// weight scale applies to every channel).
std::vector<int32_t> quantize_bias(const std::vector<float>& bias, float input_scale,
                                   const std::vector<float>& weight_scales);

// The bias scales: input_scale * weight_scales[c] for each of `channels`
// channels, or a single scale when the weights have one.
std::vector<float> bias_scales(float input_scale, const std::vector<float>& weight_scales,
                               int32_t channels);

}  // namespace tinyaot::modelgen
