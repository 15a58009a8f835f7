// Bad ONNX input, end to end: truncated and corrupt protobufs, wrong types,
// unknown operators, missing initializers, cyclic graphs and shape
// mismatches each get a CompileError naming the node (or tensor) and the
// reason, and through the CLI exit code 1 with no output file, never a
// crash or a sanitizer report.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <random>

#include "compiler/compile.h"
#include "support/subprocess.h"
#include "support/test_support.h"
#include "tools/modelgen/onnx_builder.h"

namespace tinyaot::test {
namespace {

namespace fs = std::filesystem;
using Bytes = std::vector<uint8_t>;
using modelgen::OnnxBuilder;
constexpr int32_t kFloat = onnx::TensorProto_DataType_FLOAT;
constexpr int32_t kInt8 = onnx::TensorProto_DataType_INT8;
constexpr int32_t kInt32 = onnx::TensorProto_DataType_INT32;

bool contains(const std::string& text, const std::string& needle) {
  return text.find(needle) != std::string::npos;
}

// float input -> Q -> DQ -> Conv (weights and bias through DequantizeLinear)
// -> Relu -> Q -> DQ -> float output: a small model of PyTorch's pattern.
// `edit` may change the builder before the output is declared.
Bytes conv_model(const std::function<void(OnnxBuilder&)>& edit = {}) {
  OnnxBuilder o;
  o.add_input("x", kFloat, {1, 2, 5, 5});
  const std::string x = o.qdq("x", 0.05f, 3, kInt8);
  std::vector<int64_t> w(3 * 2 * 3 * 3);
  for (size_t i = 0; i < w.size(); ++i) w[i] = static_cast<int64_t>(i * 7 % 200) - 100;
  const std::string weights =
      o.dequantized_constant("conv_w", kInt8, {3, 2, 3, 3}, w, {0.01f, 0.02f, 0.03f}, {0, 0, 0});
  const std::string bias = o.dequantized_constant("conv_b", kInt32, {3}, {100, -200, 300},
                                                  {0.0005f, 0.001f, 0.0015f}, {0, 0, 0});
  onnx::NodeProto& conv = o.add_node("Conv", {x, weights, bias}, {"conv"});
  conv.set_name("conv1");
  OnnxBuilder::set_ints(conv, "pads", {1, 1, 1, 1});
  o.add_node("Relu", {"conv"}, {"relu"});
  const std::string y = o.qdq("relu", 0.1f, -128, kInt8);
  if (edit) edit(o);
  o.add_node("Identity", {y}, {"y"});
  o.add_output("y", kFloat, {1, 3, 5, 5});
  return o.finish();
}

class OnnxBadInput : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = (fs::temp_directory_path() /
            ("tinyaot-onnx-bad-" + std::to_string(getpid()) + "-" + info->name()))
               .string();
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // `tinyaot compile` of `model` as model.onnx: exit code 1, the CLI's
  // error line with each needle, no output file, no crash.
  void expect_cli_refusal(const Bytes& model, const std::vector<std::string>& needles,
                          const std::string& what) const {
    SCOPED_TRACE(what);
    const std::string in = dir_ + "/model.onnx", out = dir_ + "/model.tao";
    write_file(in, model);
    fs::remove(out);
    const ChildResult r = run_child({TINYAOT_CLI, "compile", in, "-q", "-o", out}, dir_);
    EXPECT_EQ(r.signal, 0) << r.err;
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_FALSE(r.sanitizer_report()) << r.err;
    EXPECT_TRUE(contains(r.err, "tinyaot: error: ")) << r.err;
    for (const std::string& needle : needles)
      EXPECT_TRUE(contains(r.err, needle)) << "missing '" << needle << "' in:\n" << r.err;
    EXPECT_FALSE(fs::exists(out));
  }

  std::string dir_;
};

TEST_F(OnnxBadInput, TheSmallModelCompiles) {
  const std::string error = compile_error(conv_model());
  EXPECT_TRUE(error.empty()) << error;
}

TEST_F(OnnxBadInput, EveryTruncationIsRefused) {
  const Bytes model = conv_model();
  std::map<std::string, int> tally;
  for (size_t length = 0; length < model.size(); ++length) {
    const Bytes cut(model.begin(), model.begin() + static_cast<std::ptrdiff_t>(length));
    const std::string error = compile_error(cut);
    ASSERT_FALSE(error.empty()) << "length " << length << " compiled";
    ++tally[contains(error, "truncated") ? "truncated or corrupt protobuf" : "refused otherwise"];
  }
  for (const auto& [what, count] : tally) std::cout << "  " << what << ": " << count << "\n";
  EXPECT_GT(tally["truncated or corrupt protobuf"], 0);
  for (size_t length : {size_t{1}, model.size() / 2, model.size() - 1})
    expect_cli_refusal(Bytes(model.begin(), model.begin() + static_cast<std::ptrdiff_t>(length)),
                       {}, "CLI, length " + std::to_string(length));
}

TEST_F(OnnxBadInput, ByteFlippedModelsCompileOrFailCleanly) {
  const Bytes model = conv_model();
  std::mt19937 rng(20250611);
  std::uniform_int_distribution<size_t> where(0, model.size() - 1);
  std::uniform_int_distribution<int> bit(0, 7);
  std::map<std::string, int> tally;
  for (int i = 0; i < 400; ++i) {
    Bytes flipped = model;
    for (int k = 0; k < 1 + i % 3; ++k) flipped[where(rng)] ^= static_cast<uint8_t>(1 << bit(rng));
    Bytes program;
    const std::string error = compile_error(flipped, &program);
    ++tally[error.empty() ? "compiled" : "refused"];
    if (error.empty()) {
      std::vector<Bytes> outputs;
      EXPECT_EQ(run_on_host(program, {Bytes(200, 0)}, &outputs), Status::kOk) << "sample " << i;
    }
  }
  for (const auto& [what, count] : tally) std::cout << "  " << what << ": " << count << "\n";
}

TEST_F(OnnxBadInput, WrongTypesAreRefusedByName) {
  OnnxBuilder strings;
  strings.add_input("x", onnx::TensorProto_DataType_INT32, {1, 4});
  strings.add_node("Identity", {"x"}, {"y"});
  strings.add_output("y", onnx::TensorProto_DataType_INT32, {1, 4});
  EXPECT_TRUE(contains(compile_error(strings.finish()), "graph input 'x' has type INT32"));

  // Float weights used by the Conv directly, not through a DequantizeLinear.
  const Bytes float_weights = conv_model([](OnnxBuilder& o) {
    onnx::GraphProto* g = o.model().mutable_graph();
    for (onnx::NodeProto& node : *g->mutable_node())
      if (node.op_type() == "Conv") node.set_input(1, "float_w");
    std::vector<double> w(3 * 2 * 3 * 3, 0.5);
    o.add_initializer("float_w", kFloat, {3, 2, 3, 3}, w);
  });
  const std::string error = compile_error(float_weights);
  EXPECT_TRUE(contains(error, "conv1")) << error;
  EXPECT_TRUE(contains(error, "float_w")) << error;
  expect_cli_refusal(float_weights, {"conv1", "float_w"}, "float weights");

  // An int32 scale.
  OnnxBuilder scale;
  scale.add_input("x", kFloat, {1, 4});
  scale.add_initializer("s", kInt32, {}, {1});
  scale.add_initializer("z", kInt8, {}, {0});
  scale.add_node("QuantizeLinear", {"x", "s", "z"}, {"q"}).set_name("quant");
  scale.add_output("q", kInt8, {1, 4});
  const std::string scale_error = compile_error(scale.finish());
  EXPECT_FALSE(scale_error.empty());
}

TEST_F(OnnxBadInput, AnUnknownOperatorIsRefusedByName) {
  const Bytes model = conv_model([](OnnxBuilder& o) {
    onnx::GraphProto* g = o.model().mutable_graph();
    for (onnx::NodeProto& node : *g->mutable_node())
      if (node.op_type() == "Relu") {
        node.set_op_type("Selu");
        node.set_name("odd_activation");
      }
  });
  const std::string error = compile_error(model);
  EXPECT_TRUE(contains(error, "odd_activation")) << error;
  EXPECT_TRUE(contains(error, "Selu")) << error;
  EXPECT_TRUE(contains(error, "not supported")) << error;
  expect_cli_refusal(model, {"odd_activation", "Selu"}, "unknown operator");
}

TEST_F(OnnxBadInput, AMissingInitializerIsRefusedByName) {
  const Bytes model = conv_model([](OnnxBuilder& o) {
    onnx::GraphProto* g = o.model().mutable_graph();
    for (int i = 0; i < g->initializer_size(); ++i)
      if (g->initializer(i).name() == "conv_w") g->mutable_initializer()->DeleteSubrange(i, 1);
  });
  const std::string error = compile_error(model);
  EXPECT_TRUE(contains(error, "conv_w")) << error;
  expect_cli_refusal(model, {"conv_w"}, "missing initializer");
}

TEST_F(OnnxBadInput, ACyclicGraphIsRefused) {
  OnnxBuilder o;
  o.add_input("x", kFloat, {1, 4});
  const std::string x = o.qdq("x", 0.1f, 0, kInt8);
  o.add_node("Add", {x, "b"}, {"a"}).set_name("first");
  o.add_node("Relu", {"a"}, {"b"}).set_name("second");
  const std::string y = o.qdq("b", 0.1f, 0, kInt8);
  o.add_output(y, kFloat, {1, 4});
  const Bytes model = o.finish();
  const std::string error = compile_error(model);
  EXPECT_TRUE(contains(error, "first") || contains(error, "topologically")) << error;
  expect_cli_refusal(model, {"'b'"}, "cycle");
}

TEST_F(OnnxBadInput, AShapeMismatchIsRefusedNamingTheNode) {
  OnnxBuilder o;
  o.add_input("x", kFloat, {1, 4});
  o.add_input("z", kFloat, {1, 5});
  const std::string x = o.qdq("x", 0.1f, 0, kInt8);
  const std::string z = o.qdq("z", 0.1f, 0, kInt8);
  o.add_node("Add", {x, z}, {"sum"}).set_name("bad_add");
  const std::string y = o.qdq("sum", 0.1f, 0, kInt8);
  // Declared, as ONNX's inference cannot give the shape of a bad Add.
  o.add_output(y, kFloat, {1, 5});
  const Bytes model = o.finish();
  const std::string error = compile_error(model);
  EXPECT_TRUE(contains(error, "bad_add")) << error;
  expect_cli_refusal(model, {"bad_add"}, "shape mismatch");

  // A declared output shape that contradicts the graph.
  OnnxBuilder declared;
  declared.add_input("x", kFloat, {1, 4});
  const std::string q = declared.qdq("x", 0.1f, 0, kInt8);
  declared.add_node("Identity", {q}, {"y"});
  declared.add_output("y", kFloat, {1, 7});
  const std::string declared_error = compile_error(declared.finish());
  EXPECT_FALSE(declared_error.empty());
}

TEST_F(OnnxBadInput, AFloatOperatorOutsideAQuantizedRegionIsRefusedByName) {
  // The Sigmoid reads a dequantized tensor but nothing quantizes its
  // output: it would run in float32, which an integer program cannot.
  OnnxBuilder o;
  o.add_input("x", kFloat, {1, 4});
  const std::string x = o.qdq("x", 0.1f, 0, kInt8);
  o.add_node("Sigmoid", {x}, {"y"}).set_name("float_sigmoid");
  o.add_output("y", kFloat, {1, 4});
  const Bytes model = o.finish();
  const std::string error = compile_error(model);
  EXPECT_TRUE(contains(error, "float_sigmoid")) << error;
  EXPECT_TRUE(contains(error, "Sigmoid")) << error;
  EXPECT_TRUE(contains(error, "integer programs")) << error;
  expect_cli_refusal(model, {"float_sigmoid", "Sigmoid", "integer programs"}, "float operator");
}

TEST_F(OnnxBadInput, AnOpsetOutsideTenToNineteenIsRefused) {
  OnnxBuilder o(9);
  o.add_input("x", kFloat, {1, 4});
  o.add_output(o.qdq("x", 0.1f, 0, kInt8), kFloat, {1, 4});
  EXPECT_TRUE(contains(compile_error(o.finish()), "opset 9")) << compile_error(o.finish());
}

}  // namespace
}  // namespace tinyaot::test
