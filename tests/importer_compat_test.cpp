// What older and newer TFLite converters write, accepted exactly where
// TFLite Micro's int8 kernels accept it. Each irregularity is applied to one
// small network (conv, depthwise, fully connected, add) and must compile to
// a program whose outputs equal the regular model's; each refusal names the
// operator or tensor and the reason.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <functional>
#include <random>

#include "compiler/compile.h"
#include "support/test_support.h"
#include "tflite_schema_generated.h"
#include "tools/modelgen/layers.h"

namespace tinyaot::test {
namespace {

using Bytes = std::vector<uint8_t>;
using namespace tinyaot::modelgen;

modelgen::Weights random_weights(std::vector<int32_t> shape, size_t scales, std::mt19937& rng) {
  modelgen::Weights w;
  w.shape = std::move(shape);
  size_t count = 1;
  for (int32_t d : w.shape) count *= static_cast<size_t>(d);
  std::uniform_int_distribution<int> value(-127, 127);
  for (size_t i = 0; i < count; ++i) w.values.push_back(static_cast<int8_t>(value(rng)));
  for (size_t i = 0; i < scales; ++i) w.scales.push_back(0.002f + 0.001f * static_cast<float>(i));
  return w;
}

std::vector<int32_t> random_bias(size_t n, std::mt19937& rng) {
  std::uniform_int_distribution<int32_t> value(-2000, 2000);
  std::vector<int32_t> bias;
  for (size_t i = 0; i < n; ++i) bias.push_back(value(rng));
  return bias;
}

// input [1, 6, 6, 3] -> conv 3x3 (4 ch, per channel) -> depthwise 3x3
// (per channel) -> add with itself -> reshape -> fully connected (5 units)
// -> softmax.
Bytes regular_model() {
  std::mt19937 rng(7);
  ModelBuilder b;
  const int32_t input = b.add_int8("input", {1, 6, 6, 3}, 0.05f, -3);
  Window window;
  window.activation = ActivationFunctionType::RELU6;
  const int32_t conv = conv2d(b, "conv", input, random_weights({4, 3, 3, 3}, 4, rng),
                              random_bias(4, rng), window, {0.04f, -128});
  window.activation = ActivationFunctionType::NONE;
  const int32_t dw = depthwise_conv2d(b, "dw", conv, random_weights({1, 3, 3, 4}, 4, rng),
                                      random_bias(4, rng), window, {0.06f, 2});
  const int32_t sum = b.add_int8("sum", {1, 6, 6, 4}, 0.1f, 1);
  b.add_operator(tflite::BuiltinOperator::ADD, 1, {dw, dw}, {sum});
  const int32_t flat = reshape(b, "flat", sum, {1, 144});
  const int32_t fc =
      fully_connected(b, "fc", flat, random_weights({5, 144}, 5, rng), random_bias(5, rng),
                      ActivationFunctionType::NONE, false, {0.2f, 0});
  const int32_t probabilities = softmax(b, "softmax", fc, 1.0f);
  b.set_inputs({input});
  b.set_outputs({probabilities});
  return b.finish();
}

Bytes edit_model(const Bytes& model, const std::function<void(tflite::ModelT&)>& change) {
  std::unique_ptr<tflite::ModelT> m = tflite::UnPackModel(model.data());
  change(*m);
  flatbuffers::FlatBufferBuilder fbb;
  fbb.Finish(tflite::Model::Pack(fbb, m.get()), tflite::ModelIdentifier());
  return Bytes(fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize());
}

Bytes compile(const Bytes& model) {
  CompileOptions options;
  return compile_model(model.data(), model.size(), options).program;
}

std::vector<Bytes> run(const Bytes& program) {
  Bytes input(6 * 6 * 3);
  for (size_t i = 0; i < input.size(); ++i) input[i] = static_cast<uint8_t>(i * 37 + 11);
  std::vector<Bytes> outputs;
  EXPECT_EQ(run_on_host(program, {input}, &outputs), Status::kOk);
  return outputs;
}

class ImporterCompat : public ::testing::Test {
 protected:
  void expect_same_outputs(const std::function<void(tflite::ModelT&)>& change) {
    const Bytes model = edit_model(regular_, change);
    Bytes program;
    ASSERT_NO_THROW(program = compile(model)) << compile_error(model);
    EXPECT_EQ(run(program), baseline_);
  }
  void expect_refused(const std::function<void(tflite::ModelT&)>& change,
                      const std::vector<std::string>& words) {
    const std::string error = compile_error(edit_model(regular_, change));
    ASSERT_FALSE(error.empty()) << "the edited model compiled";
    for (const std::string& word : words)
      EXPECT_NE(error.find(word), std::string::npos) << "'" << word << "' not in: " << error;
  }
  // Applies `change` to every tensor whose name contains `part`.
  static std::function<void(tflite::ModelT&)> each_tensor(
      const std::string& part, const std::function<void(tflite::TensorT&)>& change) {
    return [part, change](tflite::ModelT& m) {
      for (auto& t : m.subgraphs[0]->tensors)
        if (t->name.find(part) != std::string::npos) change(*t);
    };
  }
  static std::function<void(tflite::ModelT&)> tensor_named(
      const std::string& name, const std::function<void(tflite::TensorT&)>& change) {
    return [name, change](tflite::ModelT& m) {
      for (auto& t : m.subgraphs[0]->tensors)
        if (t->name == name) change(*t);
    };
  }

  Bytes regular_ = regular_model();
  std::vector<Bytes> baseline_ = run(compile(regular_));
};

TEST_F(ImporterCompat, TheRegularModelRuns) {
  ASSERT_EQ(baseline_.size(), 1u);
  EXPECT_EQ(baseline_[0].size(), 5u);
}

// person_detect.tflite: the converter copied the weights' quantized
// dimension (3) onto the 1-D bias. TFLite never reads a bias's dimension.
TEST_F(ImporterCompat, BiasQuantizedDimensionIsIgnored) {
  expect_same_outputs(
      each_tensor("/bias", [](tflite::TensorT& t) { t.quantization->quantized_dimension = 3; }));
  expect_same_outputs(
      each_tensor("/bias", [](tflite::TensorT& t) { t.quantization->quantized_dimension = -7; }));
}

TEST_F(ImporterCompat, BiasWithoutQuantizationOrWithOneScale) {
  expect_same_outputs(each_tensor("/bias", [](tflite::TensorT& t) { t.quantization.reset(); }));
  expect_same_outputs(each_tensor("/bias", [](tflite::TensorT& t) {
    t.quantization->scale.resize(1);
    t.quantization->zero_point.resize(1);
  }));
}

// TFLite Micro sizes per-channel scales against the operator's own channel
// dimension and never reads quantized_dimension of the weights either.
TEST_F(ImporterCompat, WeightsQuantizedDimensionIsNotRead) {
  expect_same_outputs(each_tensor(
      "conv/weights", [](tflite::TensorT& t) { t.quantization->quantized_dimension = 3; }));
  expect_same_outputs(each_tensor(
      "dw/weights", [](tflite::TensorT& t) { t.quantization->quantized_dimension = 0; }));
}

TEST_F(ImporterCompat, PerChannelScalesWithOneZeroPoint) {
  expect_same_outputs(
      each_tensor("weights", [](tflite::TensorT& t) { t.quantization->zero_point.resize(1); }));
}

TEST_F(ImporterCompat, PerTensorScaleAsOneElementVectorWithAnAxis) {
  // Activations carry one scale; a quantized_dimension there means nothing.
  expect_same_outputs(
      tensor_named("sum", [](tflite::TensorT& t) { t.quantization->quantized_dimension = 2; }));
}

TEST_F(ImporterCompat, TensorsWithoutNames) {
  expect_same_outputs([](tflite::ModelT& m) {
    for (auto& t : m.subgraphs[0]->tensors) t->name.clear();
  });
}

TEST_F(ImporterCompat, OptionalOptionsLeftOut) {
  // ADD, RESHAPE and FULLY_CONNECTED have usable defaults (no activation,
  // the new shape from the shape operand, default weights format).
  expect_same_outputs([](tflite::ModelT& m) {
    for (auto& op : m.subgraphs[0]->operators) {
      const auto code = m.operator_codes[op->opcode_index]->builtin_code;
      if (code == tflite::BuiltinOperator::ADD || code == tflite::BuiltinOperator::RESHAPE ||
          code == tflite::BuiltinOperator::FULLY_CONNECTED)
        op->builtin_options.Reset();
    }
  });
}

TEST_F(ImporterCompat, RefusesOptionsTfliteMicroCannotDoWithout) {
  expect_refused(
      [](tflite::ModelT& m) {
        for (auto& op : m.subgraphs[0]->operators)
          if (m.operator_codes[op->opcode_index]->builtin_code == tflite::BuiltinOperator::CONV_2D)
            op->builtin_options.Reset();
      },
      {"operator 0 (CONV_2D)", "missing Conv2DOptions"});
  expect_refused(
      [](tflite::ModelT& m) {
        for (auto& op : m.subgraphs[0]->operators)
          if (m.operator_codes[op->opcode_index]->builtin_code == tflite::BuiltinOperator::SOFTMAX)
            op->builtin_options.Reset();
      },
      {"(SOFTMAX)", "missing SoftmaxOptions"});
}

TEST_F(ImporterCompat, OldAndNewOperatorCodeFields) {
  // Before schema 2.3 only the 8-bit deprecated_builtin_code existed.
  expect_same_outputs([](tflite::ModelT& m) {
    for (auto& code : m.operator_codes) {
      code->deprecated_builtin_code = static_cast<int8_t>(code->builtin_code);
      code->builtin_code = tflite::BuiltinOperator::ADD;  // 0: the field absent
    }
  });
  // A writer that fills only the 32-bit field.
  expect_same_outputs([](tflite::ModelT& m) {
    for (auto& code : m.operator_codes) code->deprecated_builtin_code = 0;
  });
}

TEST_F(ImporterCompat, RefusesScalesThatDoNotMatchTheChannels) {
  expect_refused(each_tensor("conv/weights",
                             [](tflite::TensorT& t) {
                               t.quantization->scale.resize(3);
                               t.quantization->zero_point.resize(3);
                             }),
                 {"operation 0 (CONV_2D)", "one per output channel"});
  expect_refused(each_tensor("fc/weights",
                             [](tflite::TensorT& t) {
                               t.quantization->scale.resize(2);
                               t.quantization->zero_point.resize(2);
                             }),
                 {"FULLY_CONNECTED", "one scale or one per unit"});
}

TEST_F(ImporterCompat, RefusesZeroPointCountsThatFitNeitherForm) {
  expect_refused(
      each_tensor("conv/weights", [](tflite::TensorT& t) { t.quantization->zero_point.resize(2); }),
      {"conv/weights", "4 scales but 2 zero points"});
}

// A scale so small that the activation bound 6 / scale leaves every integer
// range (shared/regressions/importer-inf-activation-bound.tflite).
TEST_F(ImporterCompat, RefusesSubnormalScales) {
  expect_refused(tensor_named("conv", [](tflite::TensorT& t) { t.quantization->scale = {1e-42f}; }),
                 {"'conv'", "subnormal"});
}

TEST_F(ImporterCompat, RefusesActivationBoundsOutsideTheIntegerRange) {
  // Normal, but 6 / 1e-37 = 6e37 is far outside int32.
  expect_refused(tensor_named("conv", [](tflite::TensorT& t) { t.quantization->scale = {1e-37f}; }),
                 {"CONV_2D", "RELU6", "outside"});
}

// Inputs found outside this suite: each is refused by name (or compiles);
// the sanitizers in the test build turn any undefined behaviour into a
// failure.
TEST(ImporterRegressions, SharedRegressionsAreRefusedByName) {
  const auto shared = shared_dir();
  if (!shared) GTEST_SKIP() << "../shared not found: the regression inputs live there";
  const Bytes inf_bound = read_file(*shared + "/regressions/importer-inf-activation-bound.tflite");
  const std::string error = compile_error(inf_bound);
  EXPECT_NE(error.find("subnormal scale"), std::string::npos) << error;
  for (const auto& entry : std::filesystem::directory_iterator(*shared + "/regressions")) {
    if (entry.path().extension() != ".tflite") continue;
    SCOPED_TRACE(entry.path().filename().string());
    const Bytes model = read_file(entry.path().string());
    const std::string message = compile_error(model);
    if (!message.empty()) {
      EXPECT_NE(message.find(' '), std::string::npos) << message;
    }
  }
}

}  // namespace
}  // namespace tinyaot::test
