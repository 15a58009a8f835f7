#include "tools/modelgen/layers.h"

#include <stdexcept>

namespace tinyaot::modelgen {
namespace {

void check(bool ok, const std::string& name, const char* what) {
  if (!ok) throw std::invalid_argument("modelgen: layer '" + name + "': " + what);
}

bool is_int16(const ModelBuilder& b, int32_t tensor) {
  return b.type(tensor) == tflite::TensorType::INT16;
}

// Beside int16 activations the converter writes the bias as int64.
int32_t add_layer_bias(ModelBuilder& b, const std::string& name, int32_t input, const Weights& w,
                       const std::optional<std::vector<int32_t>>& bias, int32_t channels) {
  if (!bias) return -1;
  check(static_cast<int32_t>(bias->size()) == channels, name, "bias size differs from channels");
  const std::vector<float> scales = bias_scales(tensor_quant(b, input).scale, w.scales, channels);
  if (is_int16(b, input))
    return b.add_bias64(name + "/bias", std::vector<int64_t>(bias->begin(), bias->end()), scales);
  return b.add_bias(name + "/bias", *bias, scales);
}

// An output of the input's element type: int16 outputs are symmetric.
int32_t add_output(ModelBuilder& b, const std::string& name, int32_t input,
                   std::vector<int32_t> shape, AffineQuant q) {
  if (is_int16(b, input)) {
    check(q.zero_point == 0, name, "an int16 output needs zero point 0");
    return b.add_int16(name, std::move(shape), q.scale);
  }
  return b.add_int8(name, std::move(shape), q.scale, q.zero_point);
}

}  // namespace

AffineQuant tensor_quant(const ModelBuilder& b, int32_t tensor) {
  const tflite::QuantizationParametersT* q = b.quant(tensor);
  if (q == nullptr || q->scale.empty())
    throw std::invalid_argument("modelgen: tensor has no quantization");
  return {q->scale[0], q->zero_point.empty() ? 0 : static_cast<int32_t>(q->zero_point[0])};
}

int32_t window_output_size(int32_t input, int32_t filter, int32_t stride, int32_t dilation,
                           Padding padding) {
  const int32_t effective = (filter - 1) * dilation + 1;
  if (padding == Padding::SAME) return (input + stride - 1) / stride;
  return input < effective ? 0 : (input - effective + stride) / stride;
}

Weights patterned_weights(std::vector<int32_t> shape, float scale) {
  Weights w;
  int64_t n = 1;
  for (int32_t d : shape) n *= d;
  w.values.reserve(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) w.values.push_back(static_cast<int8_t>((i * 37) % 200 - 100));
  w.shape = std::move(shape);
  w.scales = {scale};
  return w;
}

int32_t add_weights(ModelBuilder& b, const std::string& name, const Weights& w, int32_t axis) {
  const Quant q = Quant::per_channel(w.scales, w.scales.size() > 1 ? axis : 0);
  return b.add_int8_constant(name, w.shape, w.values, q);
}

int32_t conv2d(ModelBuilder& b, const std::string& name, int32_t input, const Weights& w,
               const std::optional<std::vector<int32_t>>& bias, const Window& window,
               AffineQuant output) {
  const std::vector<int32_t> in = b.shape(input);
  check(in.size() == 4 && w.shape.size() == 4, name, "conv needs 4-D input and weights");
  check(w.shape[3] == in[3], name, "weights' depth differs from the input's");
  const int32_t out_h =
      window_output_size(in[1], w.shape[1], window.stride_h, window.dilation_h, window.padding);
  const int32_t out_w =
      window_output_size(in[2], w.shape[2], window.stride_w, window.dilation_w, window.padding);
  check(out_h > 0 && out_w > 0, name, "the filter does not fit the input");
  const int32_t filter = add_weights(b, name + "/weights", w, 0);
  const int32_t bias_t = add_layer_bias(b, name, input, w, bias, w.shape[0]);
  const int32_t out = add_output(b, name, input, {in[0], out_h, out_w, w.shape[0]}, output);
  tflite::Conv2DOptionsT o;
  o.padding = window.padding;
  o.stride_h = window.stride_h;
  o.stride_w = window.stride_w;
  o.dilation_h_factor = window.dilation_h;
  o.dilation_w_factor = window.dilation_w;
  o.fused_activation_function = window.activation;
  tflite::BuiltinOptionsUnion options;
  options.Set(std::move(o));
  // int16x8 arrived with version 4 of the operator.
  b.add_operator(tflite::BuiltinOperator::CONV_2D, is_int16(b, input) ? 4 : 3,
                 {input, filter, bias_t}, {out}, std::move(options));
  return out;
}

int32_t depthwise_conv2d(ModelBuilder& b, const std::string& name, int32_t input, const Weights& w,
                         const std::optional<std::vector<int32_t>>& bias, const Window& window,
                         AffineQuant output) {
  const std::vector<int32_t> in = b.shape(input);
  check(in.size() == 4 && w.shape.size() == 4 && w.shape[0] == 1, name,
        "depthwise needs 4-D input and [1, KH, KW, C * M] weights");
  check(w.shape[3] % in[3] == 0, name, "output channels are not a multiple of the input's");
  const int32_t out_h =
      window_output_size(in[1], w.shape[1], window.stride_h, window.dilation_h, window.padding);
  const int32_t out_w =
      window_output_size(in[2], w.shape[2], window.stride_w, window.dilation_w, window.padding);
  check(out_h > 0 && out_w > 0, name, "the filter does not fit the input");
  const int32_t filter = add_weights(b, name + "/weights", w, 3);
  const int32_t bias_t = add_layer_bias(b, name, input, w, bias, w.shape[3]);
  const int32_t out = add_output(b, name, input, {in[0], out_h, out_w, w.shape[3]}, output);
  tflite::DepthwiseConv2DOptionsT o;
  o.padding = window.padding;
  o.stride_h = window.stride_h;
  o.stride_w = window.stride_w;
  o.depth_multiplier = w.shape[3] / in[3];
  o.dilation_h_factor = window.dilation_h;
  o.dilation_w_factor = window.dilation_w;
  o.fused_activation_function = window.activation;
  tflite::BuiltinOptionsUnion options;
  options.Set(std::move(o));
  // int16x8 arrived with version 5 of the operator.
  b.add_operator(tflite::BuiltinOperator::DEPTHWISE_CONV_2D, is_int16(b, input) ? 5 : 3,
                 {input, filter, bias_t}, {out}, std::move(options));
  return out;
}

int32_t fully_connected(ModelBuilder& b, const std::string& name, int32_t input, const Weights& w,
                        const std::optional<std::vector<int32_t>>& bias,
                        ActivationFunctionType activation, bool keep_num_dims, AffineQuant output) {
  const std::vector<int32_t> in = b.shape(input);
  check(w.shape.size() == 2 && !in.empty(), name, "weights must be [units, depth]");
  const int32_t units = w.shape[0], depth = w.shape[1];
  check(in.back() == depth, name, "the input's last dimension differs from the weights' depth");
  std::vector<int32_t> out_shape;
  if (keep_num_dims) {
    out_shape = in;
    out_shape.back() = units;
  } else {
    out_shape = {static_cast<int32_t>(num_elements(in) / depth), units};
  }
  const int32_t filter = add_weights(b, name + "/weights", w, 0);
  const int32_t bias_t = add_layer_bias(b, name, input, w, bias, units);
  const int32_t out = add_output(b, name, input, out_shape, output);
  tflite::FullyConnectedOptionsT o;
  o.fused_activation_function = activation;
  o.keep_num_dims = keep_num_dims;
  tflite::BuiltinOptionsUnion options;
  options.Set(std::move(o));
  // keep_num_dims arrived with version 5 of the operator, int16x8 with 7.
  b.add_operator(tflite::BuiltinOperator::FULLY_CONNECTED,
                 is_int16(b, input) ? 7
                 : keep_num_dims    ? 5
                                    : 4,
                 {input, filter, bias_t}, {out}, std::move(options));
  return out;
}

int32_t pool2d(ModelBuilder& b, const std::string& name, PoolKind kind, int32_t input,
               int32_t filter_h, int32_t filter_w, const Window& window) {
  const std::vector<int32_t> in = b.shape(input);
  check(in.size() == 4, name, "pooling needs a 4-D input");
  const int32_t out_h = window_output_size(in[1], filter_h, window.stride_h, 1, window.padding);
  const int32_t out_w = window_output_size(in[2], filter_w, window.stride_w, 1, window.padding);
  check(out_h > 0 && out_w > 0, name, "the window does not fit the input");
  const AffineQuant q = tensor_quant(b, input);
  const int32_t out = add_output(b, name, input, {in[0], out_h, out_w, in[3]}, q);
  tflite::Pool2DOptionsT o;
  o.padding = window.padding;
  o.stride_h = window.stride_h;
  o.stride_w = window.stride_w;
  o.filter_height = filter_h;
  o.filter_width = filter_w;
  o.fused_activation_function = window.activation;
  tflite::BuiltinOptionsUnion options;
  options.Set(std::move(o));
  b.add_operator(kind == PoolKind::kAverage ? tflite::BuiltinOperator::AVERAGE_POOL_2D
                                            : tflite::BuiltinOperator::MAX_POOL_2D,
                 is_int16(b, input) ? 3 : 2, {input}, {out}, std::move(options));
  return out;
}

int32_t reshape(ModelBuilder& b, const std::string& name, int32_t input,
                const std::vector<int32_t>& new_shape) {
  check(num_elements(new_shape) == num_elements(b.shape(input)), name,
        "the new shape has another element count");
  const AffineQuant q = tensor_quant(b, input);
  const int32_t shape_t =
      b.add_int32_constant(name + "/shape", {static_cast<int32_t>(new_shape.size())}, new_shape);
  const int32_t out = add_output(b, name, input, new_shape, q);
  tflite::ReshapeOptionsT o;
  o.new_shape = new_shape;
  tflite::BuiltinOptionsUnion options;
  options.Set(std::move(o));
  b.add_operator(tflite::BuiltinOperator::RESHAPE, 1, {input, shape_t}, {out}, std::move(options));
  return out;
}

int32_t softmax(ModelBuilder& b, const std::string& name, int32_t input, float beta) {
  const int32_t out = b.add_int8(name, b.shape(input), 1.0f / 256.0f, -128);
  tflite::SoftmaxOptionsT o;
  o.beta = beta;
  tflite::BuiltinOptionsUnion options;
  options.Set(std::move(o));
  b.add_operator(tflite::BuiltinOperator::SOFTMAX, 2, {input}, {out}, std::move(options));
  return out;
}

}  // namespace tinyaot::modelgen
