// Writes small quantized ONNX models, one per pattern the importer
// recognizes, into a folder: the importer fuzzer's ONNX seeds
// (tests/fuzz/run_fuzzers.sh). Each compiles with tinyaot.
//
//   tinyaot_onnx_seed_models DIR
#include <cstdio>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "tools/modelgen/onnx_builder.h"

namespace {

using tinyaot::modelgen::OnnxBuilder;
constexpr int32_t kFloat = onnx::TensorProto_DataType_FLOAT;
constexpr int32_t kInt8 = onnx::TensorProto_DataType_INT8;
constexpr int32_t kUint8 = onnx::TensorProto_DataType_UINT8;
constexpr int32_t kInt32 = onnx::TensorProto_DataType_INT32;
constexpr int32_t kInt64 = onnx::TensorProto_DataType_INT64;

std::vector<int64_t> pattern(size_t n, int64_t span, int64_t step = 37) {
  std::vector<int64_t> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<int64_t>(i) * step % (2 * span + 1) - span;
  return v;
}

std::string conv(OnnxBuilder& o, const std::string& x, const std::string& name, int64_t in,
                 int64_t out, int64_t kernel, int64_t group = 1) {
  const std::vector<float> scales(static_cast<size_t>(out), 0.01f);
  const std::string w =
      o.dequantized_constant(name + "_w", kInt8, {out, in / group, kernel, kernel},
                             pattern(static_cast<size_t>(out * in / group * kernel * kernel), 100),
                             scales, std::vector<int64_t>(scales.size(), 0), 0);
  onnx::NodeProto& node = o.add_node("Conv", {x, w}, {name});
  OnnxBuilder::set_ints(node, "pads", {kernel / 2, kernel / 2, kernel / 2, kernel / 2});
  OnnxBuilder::set_int(node, "group", group);
  return name;
}

// PyTorch's export: QuantizeLinear, Cast to uint8, DequantizeLinear; the
// bias's zero point from ConstantOfShape + Cast; Relu after the conv.
std::vector<uint8_t> pytorch_conv() {
  OnnxBuilder o;
  o.add_input("input", kFloat, {1, 3, 8, 8});
  const std::string q = o.quantize("input", 0.03f, 128, kUint8);
  onnx::NodeProto& cast = o.add_node("Cast", {q}, {"input_u8"});
  OnnxBuilder::set_int(cast, "to", kUint8);
  const std::string x = o.dequantize("input_u8", 0.03f, 128, kUint8);
  o.add_initializer("w", kInt8, {4, 3, 3, 3}, [] {
    const std::vector<int64_t> v = pattern(108, 120);
    return std::vector<double>(v.begin(), v.end());
  }());
  o.add_initializer("w_scale", kFloat, {4}, {0.01, 0.02, 0.015, 0.01});
  o.add_initializer("w_zp", kInt8, {4}, {0, 0, 0, 0});
  onnx::NodeProto& wdq = o.add_node("DequantizeLinear", {"w", "w_scale", "w_zp"}, {"w_dq"});
  OnnxBuilder::set_int(wdq, "axis", 0);
  o.add_initializer("b", kInt32, {4}, {100, -50, 20, 0});
  o.add_initializer("b_scale", kFloat, {4}, {0.0003, 0.0006, 0.00045, 0.0003});
  o.add_initializer("b_zp_shape", kInt64, {1}, {4});
  o.add_node("ConstantOfShape", {"b_zp_shape"}, {"b_zp_i64"});
  onnx::NodeProto& zcast = o.add_node("Cast", {"b_zp_i64"}, {"b_zp"});
  OnnxBuilder::set_int(zcast, "to", kInt32);
  onnx::NodeProto& bdq = o.add_node("DequantizeLinear", {"b", "b_scale", "b_zp"}, {"b_dq"});
  OnnxBuilder::set_int(bdq, "axis", 0);
  onnx::NodeProto& c = o.add_node("Conv", {x, "w_dq", "b_dq"}, {"conv"});
  OnnxBuilder::set_ints(c, "pads", {1, 1, 1, 1});
  o.add_node("Relu", {"conv"}, {"relu"});
  const std::string y = o.qdq("relu", 0.05f, 0, kUint8);
  o.add_node("Identity", {y}, {"output"});
  o.add_output("output", kFloat, {1, 4, 8, 8});
  return o.finish();
}

// Residual block, global pooling, Flatten, Gemm (quantize_static's int8).
std::vector<uint8_t> residual_classifier() {
  OnnxBuilder o;
  o.add_input("x", kFloat, {1, 4, 6, 6});
  const std::string x = o.qdq("x", 0.05f, -10, kInt8);
  const std::string c1 = o.qdq(conv(o, x, "c1", 4, 4, 3), 0.05f, -3, kInt8);
  const std::string dw = o.qdq(conv(o, c1, "dw", 4, 4, 3, 4), 0.05f, 1, kInt8);
  o.add_node("Add", {dw, x}, {"sum"});
  const std::string sum = o.qdq("sum", 0.08f, 0, kInt8);
  o.add_node("GlobalAveragePool", {sum}, {"gap"});
  const std::string gap = o.qdq("gap", 0.08f, 0, kInt8);
  o.add_node("Flatten", {gap}, {"flat"});
  const std::string w =
      o.dequantized_constant("fc_w", kInt8, {5, 4}, pattern(20, 90), {0.02f}, {0});
  const std::string b =
      o.dequantized_constant("fc_b", kInt32, {5}, {1, 2, 3, 4, 5}, {0.08f * 0.02f}, {0});
  onnx::NodeProto& gemm = o.add_node("Gemm", {"flat", w, b}, {"logits"});
  OnnxBuilder::set_int(gemm, "transB", 1);
  o.add_output(o.qdq("logits", 0.1f, 0, kInt8), kFloat, {1, 5});
  return o.finish();
}

// onnxruntime's QOperator format, uint8 activations.
std::vector<uint8_t> qoperator() {
  OnnxBuilder o;
  o.use_microsoft_domain();
  o.add_input("x", kFloat, {1, 3, 6, 6});
  const std::string x = o.quantize("x", 0.04f, 128, kUint8);
  o.add_initializer("w", kUint8, {3, 3, 1, 1}, {130, 120, 128, 128, 140, 100, 128, 128, 129});
  o.add_initializer("b", kInt32, {3}, {10, -10, 0});
  const auto [xs, xz] = o.add_quant("x", {0.04f}, {128}, kUint8);
  const auto [ws, wz] = o.add_quant("w", {0.05f}, {128}, kUint8);
  const auto [ys, yz] = o.add_quant("y", {0.06f}, {120}, kUint8);
  o.add_node("QLinearConv", {x, xs, xz, "w", ws, wz, ys, yz, "b"}, {"conv"});
  const auto [ss, sz] = o.add_quant("sum", {0.07f}, {125}, kUint8);
  o.add_node("QLinearAdd", {"conv", ys, yz, x, xs, xz, ss, sz}, {"sum"}, "com.microsoft");
  const auto [gs, gz] = o.add_quant("gap", {0.07f}, {125}, kUint8);
  o.add_node("QLinearGlobalAveragePool", {"sum", ss, sz, gs, gz}, {"gap"}, "com.microsoft");
  o.add_node("Flatten", {"gap"}, {"flat"});
  o.add_initializer("fc_w", kUint8, {3, 2}, {120, 140, 128, 100, 150, 128});
  const auto [fs, fz] = o.add_quant("fc_w", {0.03f}, {128}, kUint8);
  const auto [ls, lz] = o.add_quant("logits", {0.05f}, {128}, kUint8);
  o.add_node("QGemm", {"flat", gs, gz, "fc_w", fs, fz, "", ls, lz}, {"logits"}, "com.microsoft");
  o.add_node("DequantizeLinear", {"logits", ls, lz}, {"y"});
  o.add_output("y", kFloat, {1, 2});
  return o.finish();
}

// Data movement and tables: Transpose, Reshape, Slice, Pad, Resize, Concat,
// MaxPool, Sigmoid, HardSwish, LeakyRelu, Softmax.
std::vector<uint8_t> movement_and_tables() {
  OnnxBuilder o(14);  // HardSwish
  o.add_input("x", kFloat, {1, 2, 4, 4});
  const std::string x = o.qdq("x", 0.05f, 0, kInt8);
  onnx::NodeProto& pool = o.add_node("MaxPool", {x}, {"pool"});
  OnnxBuilder::set_ints(pool, "kernel_shape", {2, 2});
  OnnxBuilder::set_ints(pool, "strides", {2, 2});
  o.add_initializer("scales", kFloat, {4}, {1, 1, 2, 2});
  o.add_node("Resize", {"pool", "", "scales"}, {"up"});
  OnnxBuilder::set_int(o.add_node("Concat", {"up", x}, {"cat"}), "axis", 1);
  o.add_initializer("pads", kInt64, {8}, {0, 0, 1, 0, 0, 0, 0, 1});
  o.add_node("Pad", {"cat", "pads"}, {"padded"});
  o.add_initializer("starts", kInt64, {1}, {1});
  o.add_initializer("ends", kInt64, {1}, {5});
  o.add_initializer("axes", kInt64, {1}, {2});
  o.add_node("Slice", {"padded", "starts", "ends", "axes"}, {"sliced"});
  onnx::NodeProto& t = o.add_node("Transpose", {"sliced"}, {"nhwc"});
  OnnxBuilder::set_ints(t, "perm", {0, 2, 3, 1});
  o.add_node("Sigmoid", {"nhwc"}, {"sig"});
  const std::string sig = o.qdq("sig", 1.0f / 256, -128, kInt8);
  o.add_node("HardSwish", {sig}, {"hs"});
  const std::string hs = o.qdq("hs", 0.01f, -20, kInt8);
  onnx::NodeProto& leaky = o.add_node("LeakyRelu", {hs}, {"leaky"});
  OnnxBuilder::set_float(leaky, "alpha", 0.1f);
  const std::string lk = o.qdq("leaky", 0.01f, -20, kInt8);
  o.add_initializer("shape", kInt64, {2}, {-1, 4});
  o.add_node("Reshape", {lk, "shape"}, {"rows"});
  o.add_node("Softmax", {"rows"}, {"soft"});
  o.add_output(o.qdq("soft", 1.0f / 256, -128, kInt8), kFloat, {20, 4});
  return o.finish();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s DIR\n", argv[0]);
    return 2;
  }
  const std::vector<std::pair<std::string, std::function<std::vector<uint8_t>()>>> models = {
      {"pytorch_conv", pytorch_conv},
      {"residual_classifier", residual_classifier},
      {"qoperator", qoperator},
      {"movement_and_tables", movement_and_tables},
  };
  for (const auto& [name, make] : models) {
    const std::vector<uint8_t> bytes = make();
    std::ofstream out(std::string(argv[1]) + "/" + name + ".onnx", std::ios::binary);
    out.write(reinterpret_cast<const char*>(bytes.data()),
              static_cast<std::streamsize>(bytes.size()));
    if (!out) {
      std::fprintf(stderr, "cannot write %s\n", name.c_str());
      return 1;
    }
  }
  return 0;
}
