// Writes tinyaot's int16x8 golden-ops model: one graph through every
// int16x8 operator tinyaot lowers (CONV_2D with RELU, DEPTHWISE_CONV_2D,
// MAX_POOL_2D, AVERAGE_POOL_2D, CONCATENATION, SUB, MUL, ADD, PAD,
// TRANSPOSE, STRIDED_SLICE, RESHAPE, FULLY_CONNECTED), int16 activations
// (zero points 0), int8 per-channel or per-tensor weights and int64 biases
// as the converter writes them; deterministic pseudo-random weights and
// input vectors. The expected outputs come from tfjs-tflite
// (tests/data/int16/README.md says how they are made).
//
// Usage: tinyaot_int16_ops_model OUT_DIR
// Writes OUT_DIR/int16x8_ops.tflite, vec{0..3}_input0.bin, manifest.json
// (as ../shared/golden-ops' manifests list their vectors) and
// oracle_jobs.jsonl (the jobs tests/oracle/tfjs_oracle.js runs to write
// vec{k}_output0.bin).
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <vector>

#include "tools/modelgen/layers.h"
#include "tools/modelgen/model_builder.h"
#include "tools/modelgen/rng.h"

namespace mg = tinyaot::modelgen;
namespace fs = std::filesystem;
using BO = tflite::BuiltinOperator;

namespace {

constexpr int kVectors = 4;
constexpr uint64_t kSeed = 1616;

template <typename T>
tflite::BuiltinOptionsUnion options(T&& o) {
  tflite::BuiltinOptionsUnion u;
  u.Set(std::forward<T>(o));
  return u;
}

mg::Weights random_weights(mg::Rng& rng, std::vector<int32_t> shape, int32_t channels) {
  mg::Weights w;
  w.shape = std::move(shape);
  for (int64_t i = 0; i < mg::num_elements(w.shape); ++i)
    w.values.push_back(static_cast<int8_t>(rng.uniform_int(-127, 127)));
  for (int32_t c = 0; c < channels; ++c)
    w.scales.push_back(static_cast<float>(0.01 * rng.log_uniform(0.5, 2.0)));
  return w;
}

std::vector<int32_t> random_bias(mg::Rng& rng, int32_t channels, int64_t limit) {
  std::vector<int32_t> bias;
  for (int32_t c = 0; c < channels; ++c)
    bias.push_back(static_cast<int32_t>(rng.uniform_int(-limit, limit)));
  return bias;
}

// An elementwise operator of two int16 tensors of one shape.
int32_t binary(mg::ModelBuilder& b, BO code, const std::string& name, int32_t x, int32_t y,
               float scale) {
  const int32_t out = b.add_int16(name, b.shape(x), scale);
  tflite::BuiltinOptionsUnion o;
  if (code == BO::ADD) o = options(tflite::AddOptionsT());
  if (code == BO::SUB) o = options(tflite::SubOptionsT());
  if (code == BO::MUL) o = options(tflite::MulOptionsT());
  b.add_operator(code, code == BO::MUL ? 4 : 3, {x, y}, {out}, std::move(o));
  return out;
}

std::vector<uint8_t> model(mg::Rng& rng) {
  mg::ModelBuilder b;
  const int32_t input = b.add_int16("input", {1, 10, 10, 4}, 1.0f / 4096);
  mg::Window same;
  same.activation = tflite::ActivationFunctionType::RELU;
  const int32_t conv = mg::conv2d(b, "conv", input, random_weights(rng, {8, 3, 3, 4}, 8),
                                  random_bias(rng, 8, 4000000), same, {0.0025f, 0});
  mg::Window valid;
  valid.padding = tflite::Padding::VALID;
  const int32_t depthwise =
      mg::depthwise_conv2d(b, "depthwise", conv, random_weights(rng, {1, 3, 3, 8}, 8),
                           random_bias(rng, 8, 2000000), valid, {0.004f, 0});
  mg::Window pool_window;
  pool_window.stride_h = pool_window.stride_w = 2;
  pool_window.padding = tflite::Padding::VALID;
  const int32_t max_pool =
      mg::pool2d(b, "max_pool", mg::PoolKind::kMax, depthwise, 2, 2, pool_window);
  const int32_t average = mg::pool2d(b, "average_pool", mg::PoolKind::kAverage, max_pool, 3, 3, {});

  const int32_t concat = b.add_int16("concat", {1, 4, 4, 16}, 0.004f);
  tflite::ConcatenationOptionsT concat_options;
  concat_options.axis = 3;
  b.add_operator(BO::CONCATENATION, 3, {max_pool, average}, {concat},
                 options(std::move(concat_options)));
  // SUB's output keeps its inputs' scale: TFLite Micro forms SUB's rescale
  // ratios in float, TFLite (the oracle) in double, and this scale makes
  // them exact in both (other scales can differ in the multiplier's last
  // bits, and then an output by one step).
  const int32_t difference = binary(b, BO::SUB, "sub", max_pool, average, 0.004f);
  const int32_t product = binary(b, BO::MUL, "mul", difference, average, 0.06f);
  const int32_t sum = binary(b, BO::ADD, "add", product, max_pool, 0.07f);

  const int32_t paddings = b.add_int32_constant("paddings", {4, 2}, {0, 0, 1, 1, 1, 1, 0, 0});
  const int32_t padded = b.add_int16("pad", {1, 6, 6, 16}, 0.004f);
  b.add_operator(BO::PAD, 2, {concat, paddings}, {padded}, options(tflite::PadOptionsT()));
  const int32_t perm = b.add_int32_constant("perm", {4}, {0, 3, 1, 2});
  const int32_t transposed = b.add_int16("transpose", {1, 16, 6, 6}, 0.004f);
  b.add_operator(BO::TRANSPOSE, 2, {padded, perm}, {transposed},
                 options(tflite::TransposeOptionsT()));
  const int32_t begin = b.add_int32_constant("begin", {4}, {0, 0, 1, 0});
  const int32_t end = b.add_int32_constant("end", {4}, {1, 16, 5, 6});
  const int32_t strides = b.add_int32_constant("strides", {4}, {1, 2, 1, 2});
  const int32_t sliced = b.add_int16("strided_slice", {1, 8, 4, 3}, 0.004f);
  b.add_operator(BO::STRIDED_SLICE, 2, {transposed, begin, end, strides}, {sliced},
                 options(tflite::StridedSliceOptionsT()));

  const int32_t flat1 = mg::reshape(b, "flat1", sliced, {1, 96});
  const int32_t flat2 = mg::reshape(b, "flat2", sum, {1, 128});
  const int32_t fc1 = mg::fully_connected(b, "fc1", flat1, random_weights(rng, {10, 96}, 1),
                                          random_bias(rng, 10, 4000000),
                                          tflite::ActivationFunctionType::NONE, false, {0.03f, 0});
  const int32_t fc2 = mg::fully_connected(b, "fc2", flat2, random_weights(rng, {10, 128}, 1),
                                          random_bias(rng, 10, 4000000),
                                          tflite::ActivationFunctionType::NONE, false, {0.5f, 0});
  const int32_t output = binary(b, BO::ADD, "output", fc1, fc2, 0.6f);
  b.set_inputs({input});
  b.set_outputs({output});
  return b.finish("tinyaot int16x8 golden-ops model");
}

void write(const fs::path& path, const std::vector<uint8_t>& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: tinyaot_int16_ops_model OUT_DIR\n";
    return 2;
  }
  const fs::path dir = argv[1];
  fs::create_directories(dir);
  mg::Rng rng(kSeed);
  write(dir / "int16x8_ops.tflite", model(rng));
  std::ofstream jobs(dir / "oracle_jobs.jsonl");
  std::ofstream manifest(dir / "manifest.json");
  manifest << "{\n \"model_name\": \"int16x8_ops\",\n \"model_file\": \"int16x8_ops.tflite\",\n"
           << " \"producer\": \"tools/modelgen/int16_ops_model.cpp; outputs: tfjs-tflite "
              "(tests/oracle/tfjs_oracle.js)\",\n \"vectors\": [";
  for (int k = 0; k < kVectors; ++k) {
    // Vectors 0 and 1 span the int16 range; 2 and 3 stay within +-2048.
    const int64_t limit = k < 2 ? 32767 : 2048;
    std::vector<uint8_t> bytes;
    for (int i = 0; i < 10 * 10 * 4; ++i) {
      const auto v = static_cast<uint16_t>(static_cast<int16_t>(rng.uniform_int(-limit, limit)));
      bytes.push_back(static_cast<uint8_t>(v));
      bytes.push_back(static_cast<uint8_t>(v >> 8));
    }
    const std::string prefix = "vec" + std::to_string(k);
    write(dir / (prefix + "_input0.bin"), bytes);
    jobs << "{\"model\": \"" << (dir / "int16x8_ops.tflite").string() << "\", \"inputs\": [\""
         << (dir / (prefix + "_input0.bin")).string() << "\"], \"outputs\": [\""
         << (dir / (prefix + "_output0.bin")).string() << "\"]}\n";
    manifest << (k ? "," : "") << "\n  {\"index\": " << k << ", \"inputs\": [\"" << prefix
             << "_input0.bin\"], \"outputs\": [\"" << prefix << "_output0.bin\"]}";
  }
  manifest << "\n ]\n}\n";
  return 0;
}
