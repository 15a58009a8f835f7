// ONNX's own node tests of the quantized operators (Debian's
// libonnx-testdata): each model with its shipped inputs and outputs. The
// inputs that are parameters (scales, zero points, weights) become
// initializers, as a deployed model has them; the data inputs stay graph
// inputs. uint8 tensors are fed and read as int8 (value - 128).
//
// The programs use TINYAOT_ONNX_TEST_ROUNDING (tests/CMakeLists.txt). With
// TFLite's arithmetic (tflm, until the rounding mode onnx is merged) an
// output may be one step off where it and ONNX's float requantization
// differ, which the test allows and prints; with onnx every output must be
// the shipped one. QuantizeLinear / DequantizeLinear at the graph's edges
// must be exact either way.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <set>

#include "compiler/compile.h"
#include "compiler/import/onnx_constant.h"
#include "support/test_support.h"

namespace tinyaot::test {
namespace {

namespace fs = std::filesystem;
using Bytes = std::vector<uint8_t>;
using onnx_import::Constant;

const char* const kNodeTests = "/usr/share/libonnx-testdata/data/node";
const bool kOnnxRounding = std::strcmp(TINYAOT_ONNX_TEST_ROUNDING, "onnx") == 0;
// Steps an operator with a requantization may be off: none in onnx rounding.
const int kRequantizationSteps = kOnnxRounding ? 0 : 1;

onnx::TensorProto read_tensor(const std::string& path) {
  const Bytes bytes = read_file(path);
  onnx::TensorProto t;
  EXPECT_TRUE(t.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) << path;
  return t;
}

// The tensor's bytes as the program takes or gives them: uint8 as int8.
Bytes program_bytes(const Constant& c) {
  Bytes out;
  for (size_t i = 0; i < static_cast<size_t>(c.elements()); ++i) {
    if (c.type == onnx_import::kFloat) {
      const float v = static_cast<float>(c.reals[i]);
      const auto* p = reinterpret_cast<const uint8_t*>(&v);
      out.insert(out.end(), p, p + 4);
    } else {
      out.push_back(static_cast<uint8_t>(c.ints[i] - (c.type == onnx_import::kUint8 ? 128 : 0)));
    }
  }
  return out;
}

struct NodeTest {
  std::string name;
  std::set<int> data_inputs;  // graph inputs that stay inputs
  int max_steps;              // allowed difference from the shipped output, in output steps
};

struct Outcome {
  std::string error;  // compile error, empty when it compiled
  size_t values = 0, exact = 0, within = 0;
};

Outcome run_node_test(const NodeTest& t) {
  const std::string dir = std::string(kNodeTests) + "/" + t.name;
  const Bytes model_bytes = read_file(dir + "/model.onnx");
  onnx::ModelProto model;
  EXPECT_TRUE(model.ParseFromArray(model_bytes.data(), static_cast<int>(model_bytes.size())));
  onnx::GraphProto* g = model.mutable_graph();
  std::vector<Bytes> inputs;
  google::protobuf::RepeatedPtrField<onnx::ValueInfoProto> kept;
  for (int i = 0; i < g->input_size(); ++i) {
    onnx::TensorProto t_in =
        read_tensor(dir + "/test_data_set_0/input_" + std::to_string(i) + ".pb");
    if (t.data_inputs.count(i)) {
      inputs.push_back(program_bytes(onnx_import::read_constant(t_in, "input")));
      *kept.Add() = g->input(i);
    } else {
      t_in.set_name(g->input(i).name());
      *g->add_initializer() = t_in;
    }
  }
  g->mutable_input()->Swap(&kept);
  std::string serialized;
  model.SerializeToString(&serialized);
  CompileOptions options;
  options.target.rounding = parse_rounding(TINYAOT_ONNX_TEST_ROUNDING);
  Outcome outcome;
  Compilation c;
  try {
    c = compile_model(reinterpret_cast<const uint8_t*>(serialized.data()), serialized.size(),
                      options);
  } catch (const CompileError& e) {
    outcome.error = e.what();
    return outcome;
  }
  std::vector<Bytes> outputs;
  EXPECT_EQ(run_on_host(c.program, inputs, &outputs), Status::kOk);
  const Constant expected =
      onnx_import::read_constant(read_tensor(dir + "/test_data_set_0/output_0.pb"), "output");
  const Bytes want = program_bytes(expected);
  EXPECT_EQ(outputs.at(0).size(), want.size());
  const bool real = expected.type == onnx_import::kFloat;
  const size_t width = real ? 4 : 1;
  for (size_t i = 0; i + width <= std::min(want.size(), outputs[0].size()); i += width) {
    int64_t steps;
    if (real) {
      float a, b;
      std::memcpy(&a, &outputs[0][i], 4);
      std::memcpy(&b, &want[i], 4);
      steps = a == b ? 0 : 1000;  // a DequantizeLinear's float output must be exact
    } else {
      steps = std::abs(int64_t{static_cast<int8_t>(outputs[0][i])} -
                       int64_t{static_cast<int8_t>(want[i])});
    }
    ++outcome.values;
    outcome.exact += steps == 0;
    outcome.within += steps <= t.max_steps;
  }
  return outcome;
}

bool have_test_data() { return fs::exists(kNodeTests); }

TEST(OnnxNodeTests, QuantizedOperatorsCompileAndMatchTheShippedOutputs) {
  if (!have_test_data()) GTEST_SKIP() << "libonnx-testdata is not installed (" << kNodeTests << ")";
  const std::vector<NodeTest> tests = {
      {"test_quantizelinear", {0}, 0},
      {"test_dequantizelinear", {0}, 0},
      {"test_qlinearmatmul_2D", {0, 3}, kRequantizationSteps},
      {"test_qlinearmatmul_3D", {0, 3}, kRequantizationSteps},
  };
  for (const NodeTest& t : tests) {
    SCOPED_TRACE(t.name);
    const Outcome o = run_node_test(t);
    ASSERT_TRUE(o.error.empty()) << o.error;
    std::cout << "  " << t.name << ": " << o.exact << " of " << o.values
              << " outputs exact, all within " << t.max_steps
              << " step(s): " << (o.within == o.values ? "yes" : "NO") << "\n";
    EXPECT_GT(o.values, 0u);
    EXPECT_EQ(o.within, o.values);
  }
}

// What tinyaot refuses, by name: weights whose values minus their zero
// point leave int8 (the kernels take symmetric int8 weights), and per-axis
// quantization of activations (the program's boundary is per tensor).
TEST(OnnxNodeTests, TheOnesTinyaotCannotRunAreRefusedByName) {
  if (!have_test_data()) GTEST_SKIP() << "libonnx-testdata is not installed (" << kNodeTests << ")";
  const std::vector<std::pair<NodeTest, std::vector<std::string>>> refused = {
      {{"test_qlinearconv", {0}, 1}, {"QLinearConv", "weights 'w'", "asymmetric"}},
      {{"test_quantizelinear_axis", {0}, 0}, {"QuantizeLinear", "per axis"}},
      {{"test_dequantizelinear_axis", {0}, 0}, {"DequantizeLinear", "per axis"}},
  };
  for (const auto& [t, words] : refused) {
    SCOPED_TRACE(t.name);
    const Outcome o = run_node_test(t);
    for (const std::string& word : words)
      EXPECT_NE(o.error.find(word), std::string::npos)
          << "'" << o.error << "' lacks '" << word << "'";
  }
}

}  // namespace
}  // namespace tinyaot::test
