// Writes the built-in example: a small DS-CNN keyword spotter in the shape
// of Arm's "Hello Edge" models (49 frames x 10 MFCC features -> 12 classes),
// int8 with per-channel weights, as the TFLite converter would lay it out.
// Weights are deterministic pseudo-random; the activation ranges are
// calibrated by running the float model on a few inputs, so that every
// layer uses its int8 range well.
//
// Usage: tinyaot_example_model OUT_DIR
// Writes OUT_DIR/kws_dscnn.tflite, input.bin (int8 [1,49,10,1]),
// labels.txt and float_scores.txt (the float model's softmax, for reference).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "tools/modelgen/layers.h"
#include "tools/modelgen/model_builder.h"
#include "tools/modelgen/quantization.h"
#include "tools/modelgen/rng.h"

namespace mg = tinyaot::modelgen;

namespace {

constexpr int32_t kFrames = 49, kFeatures = 10, kChannels = 32, kClasses = 12;
const char* const kLabels[kClasses] = {"silence", "unknown", "yes", "no",  "up",   "down",
                                       "left",    "right",   "on",  "off", "stop", "go"};

// A float NHWC tensor.
struct Tensor {
  int32_t h = 0, w = 0, c = 0;
  std::vector<float> v;
  float& at(int32_t y, int32_t x, int32_t ch) {
    return v[(static_cast<size_t>(y) * w + x) * c + ch];
  }
  float at(int32_t y, int32_t x, int32_t ch) const {
    return v[(static_cast<size_t>(y) * w + x) * c + ch];
  }
};

// Float weights of one layer, in the TFLite layout of that layer.
struct Layer {
  std::vector<int32_t> shape;
  std::vector<float> weights, bias;
};

Layer random_layer(mg::Rng& rng, std::vector<int32_t> shape, int32_t fan_in, int32_t channels) {
  Layer layer;
  layer.shape = std::move(shape);
  // He-uniform: keeps the activation scale roughly constant through ReLUs.
  const double limit = std::sqrt(6.0 / fan_in);
  layer.weights.resize(static_cast<size_t>(mg::num_elements(layer.shape)));
  for (float& w : layer.weights) w = static_cast<float>(rng.uniform(-limit, limit));
  for (int32_t i = 0; i < channels; ++i)
    layer.bias.push_back(static_cast<float>(rng.uniform(-0.1, 0.1)));
  return layer;
}

// SAME padding: TFLite puts the smaller half of the padding first.
int32_t pad_before(int32_t in, int32_t out, int32_t filter, int32_t stride) {
  return std::max(0, ((out - 1) * stride + filter - in) / 2);
}

// groups == 1: conv with weights [Cout, KH, KW, Cin]; otherwise depthwise
// with weights [1, KH, KW, Cin * M].
Tensor conv(const Tensor& in, const Layer& l, int32_t stride, bool depthwise, bool relu) {
  const int32_t kh = l.shape[1], kw = l.shape[2];
  const int32_t cout = depthwise ? l.shape[3] : l.shape[0];
  Tensor out{(in.h + stride - 1) / stride, (in.w + stride - 1) / stride, cout, {}};
  out.v.assign(static_cast<size_t>(out.h) * out.w * out.c, 0.0f);
  const int32_t top = pad_before(in.h, out.h, kh, stride);
  const int32_t left = pad_before(in.w, out.w, kw, stride);
  const int32_t mult = depthwise ? cout / in.c : 1;
  for (int32_t y = 0; y < out.h; ++y)
    for (int32_t x = 0; x < out.w; ++x)
      for (int32_t o = 0; o < cout; ++o) {
        double acc = l.bias[static_cast<size_t>(o)];
        for (int32_t fy = 0; fy < kh; ++fy)
          for (int32_t fx = 0; fx < kw; ++fx) {
            const int32_t iy = y * stride - top + fy, ix = x * stride - left + fx;
            if (iy < 0 || iy >= in.h || ix < 0 || ix >= in.w) continue;
            if (depthwise) {
              acc += in.at(iy, ix, o / mult) *
                     l.weights[(static_cast<size_t>(fy) * kw + fx) * cout + o];
            } else {
              for (int32_t i = 0; i < in.c; ++i)
                acc += in.at(iy, ix, i) *
                       l.weights[((static_cast<size_t>(o) * kh + fy) * kw + fx) * in.c + i];
            }
          }
        out.at(y, x, o) = relu ? std::max(0.0f, static_cast<float>(acc)) : static_cast<float>(acc);
      }
  return out;
}

std::vector<float> average(const Tensor& in) {
  std::vector<float> mean(static_cast<size_t>(in.c), 0.0f);
  for (int32_t y = 0; y < in.h; ++y)
    for (int32_t x = 0; x < in.w; ++x)
      for (int32_t ch = 0; ch < in.c; ++ch) mean[static_cast<size_t>(ch)] += in.at(y, x, ch);
  for (float& m : mean) m /= static_cast<float>(in.h * in.w);
  return mean;
}

std::vector<float> dense(const std::vector<float>& in, const Layer& l) {
  std::vector<float> out(l.bias);
  for (size_t o = 0; o < out.size(); ++o)
    for (size_t i = 0; i < in.size(); ++i) out[o] += in[i] * l.weights[o * in.size() + i];
  return out;
}

// MFCC-like features: smooth in time, decaying with the coefficient index,
// with a little noise.
Tensor features(mg::Rng& rng, double phase) {
  Tensor t{kFrames, kFeatures, 1, {}};
  for (int32_t f = 0; f < kFrames; ++f)
    for (int32_t k = 0; k < kFeatures; ++k) {
      const double envelope = std::exp(-0.5 * std::pow((f - 24.0) / 12.0, 2.0));
      const double value =
          9.0 * envelope * std::cos(0.45 * f * (1 + 0.1 * k) + phase + k) * std::exp(-k / 5.0) +
          rng.uniform(-0.6, 0.6);
      t.v.push_back(static_cast<float>(value));
    }
  return t;
}

struct Network {
  Layer conv0, dw1, pw1, dw2, pw2, fc;
};

// Every intermediate of one float inference.
struct Trace {
  Tensor input, conv0, dw1, pw1, dw2, pw2;
  std::vector<float> pooled, logits;
};

Trace run(const Network& n, const Tensor& input) {
  Trace t;
  t.input = input;
  t.conv0 = conv(input, n.conv0, 2, false, true);
  t.dw1 = conv(t.conv0, n.dw1, 1, true, true);
  t.pw1 = conv(t.dw1, n.pw1, 1, false, true);
  t.dw2 = conv(t.pw1, n.dw2, 1, true, true);
  t.pw2 = conv(t.dw2, n.pw2, 1, false, true);
  t.pooled = average(t.pw2);
  t.logits = dense(t.pooled, n.fc);
  return t;
}

struct Range {
  float lo = 0.0f, hi = 0.0f;
  void add(const std::vector<float>& v) {
    for (float x : v) lo = std::min(lo, x), hi = std::max(hi, x);
  }
  mg::AffineQuant quant() const { return mg::affine_from_range(lo, hi); }
};

mg::Weights quantize_layer(const Layer& l, int32_t axis) {
  const mg::SymmetricWeights q = mg::quantize_symmetric(l.weights, l.shape, axis);
  return {l.shape, q.values, q.scales};
}

std::vector<float> softmax(const std::vector<float>& logits) {
  const float top = *std::max_element(logits.begin(), logits.end());
  std::vector<float> p;
  float sum = 0.0f;
  for (float x : logits) sum += (p.emplace_back(std::exp(x - top)));
  for (float& x : p) x /= sum;
  return p;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: " << argv[0] << " OUT_DIR\n";
    return 1;
  }
  const std::filesystem::path dir = argv[1];
  std::filesystem::create_directories(dir);

  mg::Rng rng(20240611);
  Network n;
  n.conv0 = random_layer(rng, {kChannels, 10, 4, 1}, 40, kChannels);
  n.dw1 = random_layer(rng, {1, 3, 3, kChannels}, 9, kChannels);
  n.pw1 = random_layer(rng, {kChannels, 1, 1, kChannels}, kChannels, kChannels);
  n.dw2 = random_layer(rng, {1, 3, 3, kChannels}, 9, kChannels);
  n.pw2 = random_layer(rng, {kChannels, 1, 1, kChannels}, kChannels, kChannels);
  n.fc = random_layer(rng, {kClasses, kChannels}, kChannels, kClasses);

  // Calibration: the example input and a few more like it.
  std::vector<Trace> traces;
  for (int i = 0; i < 8; ++i) traces.push_back(run(n, features(rng, 0.7 * i)));
  // Random weights give logits close together; spread them so that the
  // softmax says something (as a trained classifier's would).
  Range logit_range;
  for (const Trace& t : traces) logit_range.add(t.logits);
  const float spread = 4.0f / std::max(1e-3f, logit_range.hi - logit_range.lo);
  for (float& w : n.fc.weights) w *= spread;
  for (float& b : n.fc.bias) b *= spread;
  for (Trace& t : traces) t = run(n, t.input);

  Range r_in, r_conv0, r_dw1, r_pw1, r_dw2, r_pw2, r_logits;
  for (const Trace& t : traces) {
    r_in.add(t.input.v), r_conv0.add(t.conv0.v), r_dw1.add(t.dw1.v), r_pw1.add(t.pw1.v);
    r_dw2.add(t.dw2.v), r_pw2.add(t.pw2.v), r_logits.add(t.logits);
  }

  mg::ModelBuilder b;
  const mg::AffineQuant q_in = r_in.quant();
  const int32_t input =
      b.add_int8("input", {1, kFrames, kFeatures, 1}, q_in.scale, q_in.zero_point);
  auto conv_layer = [&](const std::string& name, int32_t x, const Layer& l, int32_t stride,
                        bool depthwise, const Range& out) {
    const mg::Weights w = quantize_layer(l, depthwise ? 3 : 0);
    const std::vector<int32_t> bias =
        mg::quantize_bias(l.bias, mg::tensor_quant(b, x).scale, w.scales);
    mg::Window window;
    window.stride_h = window.stride_w = stride;
    window.padding = tflite::Padding::SAME;
    window.activation = tflite::ActivationFunctionType::RELU;
    return depthwise ? mg::depthwise_conv2d(b, name, x, w, bias, window, out.quant())
                     : mg::conv2d(b, name, x, w, bias, window, out.quant());
  };
  int32_t x = conv_layer("conv0", input, n.conv0, 2, false, r_conv0);
  x = conv_layer("block1/depthwise", x, n.dw1, 1, true, r_dw1);
  x = conv_layer("block1/pointwise", x, n.pw1, 1, false, r_pw1);
  x = conv_layer("block2/depthwise", x, n.dw2, 1, true, r_dw2);
  x = conv_layer("block2/pointwise", x, n.pw2, 1, false, r_pw2);
  const std::vector<int32_t> pooled_shape = b.shape(x);
  mg::Window pool;
  pool.padding = tflite::Padding::VALID;
  x = mg::pool2d(b, "avgpool", mg::PoolKind::kAverage, x, pooled_shape[1], pooled_shape[2], pool);
  x = mg::reshape(b, "flatten", x, {1, kChannels});
  {
    const mg::Weights w = quantize_layer(n.fc, 0);
    const std::vector<int32_t> bias =
        mg::quantize_bias(n.fc.bias, mg::tensor_quant(b, x).scale, w.scales);
    x = mg::fully_connected(b, "logits", x, w, bias, tflite::ActivationFunctionType::NONE, false,
                            r_logits.quant());
  }
  const int32_t output = mg::softmax(b, "scores", x, 1.0f);
  b.set_inputs({input});
  b.set_outputs({output});

  const std::vector<uint8_t> model = b.finish("tinyaot example: DS-CNN keyword spotter");
  std::ofstream(dir / "kws_dscnn.tflite", std::ios::binary)
      .write(reinterpret_cast<const char*>(model.data()),
             static_cast<std::streamsize>(model.size()));
  const std::vector<int8_t> q_input = mg::quantize_values(traces[0].input.v, q_in);
  std::ofstream(dir / "input.bin", std::ios::binary)
      .write(reinterpret_cast<const char*>(q_input.data()),
             static_cast<std::streamsize>(q_input.size()));
  std::ofstream labels(dir / "labels.txt");
  for (const char* label : kLabels) labels << label << "\n";
  std::ofstream scores(dir / "float_scores.txt");
  for (float p : softmax(traces[0].logits)) scores << p << "\n";

  std::cout << "wrote " << (dir / "kws_dscnn.tflite").string() << " (" << model.size()
            << " bytes): input [1," << kFrames << "," << kFeatures << ",1] int8, "
            << b.num_tensors() << " tensors, 8 operators\n";
  return 0;
}
