// One-call layers on top of ModelBuilder that apply the converter's layout
// and quantization conventions (see /work/shared/docs/oracle.md):
//   conv weights [Cout, KH, KW, Cin], quantized dimension 0;
//   depthwise weights [1, KH, KW, C * M], quantized dimension 3;
//   fully-connected weights [units, depth], quantized dimension 0;
//   bias int32 [Cout] with scale input_scale * weight_scale, zero point 0;
//   pooling keeps the input's quantization; softmax outputs 1/256, -128;
//   an int16 input (int16x8) makes an int16 output (zero point 0) and an
//   int64 bias.
// Each returns the output tensor's index.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tools/modelgen/model_builder.h"
#include "tools/modelgen/quantization.h"

namespace tinyaot::modelgen {

using tflite::ActivationFunctionType;
using tflite::Padding;

// TFLite's output size of a windowed operator along one axis.
int32_t window_output_size(int32_t input, int32_t filter, int32_t stride, int32_t dilation,
                           Padding padding);

struct Window {
  int32_t stride_h = 1, stride_w = 1;
  int32_t dilation_h = 1, dilation_w = 1;
  Padding padding = Padding::SAME;
  ActivationFunctionType activation = ActivationFunctionType::NONE;
};

// int8 symmetric weights with their shape; one scale, or one per channel.
struct Weights {
  std::vector<int32_t> shape;
  std::vector<int8_t> values;
  std::vector<float> scales;
};

// Weights of `shape` in a fixed pattern spanning [-100, 99] (every element
// differs from its neighbours), one per-tensor scale: for tests whose
// assertions do not depend on the values (shapes, plans, variant choice).
Weights patterned_weights(std::vector<int32_t> shape, float scale = 0.02f);

// Per-channel scales get the layer's quantized dimension; a single scale is
// written per tensor.
int32_t add_weights(ModelBuilder& b, const std::string& name, const Weights& w, int32_t axis);

// `bias` (already int32, scale input_scale * weight_scale) may be absent.
int32_t conv2d(ModelBuilder& b, const std::string& name, int32_t input, const Weights& w,
               const std::optional<std::vector<int32_t>>& bias, const Window& window,
               AffineQuant output);
int32_t depthwise_conv2d(ModelBuilder& b, const std::string& name, int32_t input, const Weights& w,
                         const std::optional<std::vector<int32_t>>& bias, const Window& window,
                         AffineQuant output);
int32_t fully_connected(ModelBuilder& b, const std::string& name, int32_t input, const Weights& w,
                        const std::optional<std::vector<int32_t>>& bias,
                        ActivationFunctionType activation, bool keep_num_dims, AffineQuant output);

enum class PoolKind { kAverage, kMax };
int32_t pool2d(ModelBuilder& b, const std::string& name, PoolKind kind, int32_t input,
               int32_t filter_h, int32_t filter_w, const Window& window);

int32_t reshape(ModelBuilder& b, const std::string& name, int32_t input,
                const std::vector<int32_t>& new_shape);
int32_t softmax(ModelBuilder& b, const std::string& name, int32_t input, float beta);

// The tensor's (per-tensor) scale and zero point.
AffineQuant tensor_quant(const ModelBuilder& b, int32_t tensor);

}  // namespace tinyaot::modelgen
