// UNIDIRECTIONAL_SEQUENCE_LSTM's lowering: a regular LSTM compiles to the
// kernel with its states after the output; the variants TFLite Micro's
// kernel refuses are refused by name.
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "compiler/compile.h"
#include "support/test_support.h"
#include "tools/modelgen/layers.h"
#include "tools/modelgen/model_builder.h"

namespace tinyaot {
namespace {

namespace mg = tinyaot::modelgen;
using tflite::BuiltinOperator;
using tflite::TensorType;

constexpr int32_t kUnits = 3, kDepth = 2, kSteps = 4;

// What a test changes in the regular model before it is written.
struct LstmEdit {
  std::function<void(mg::ModelBuilder&, std::vector<int32_t>&)> inputs;
  tflite::ActivationFunctionType activation = tflite::ActivationFunctionType::TANH;
  bool per_channel = false;
};

std::vector<uint8_t> lstm_model(const LstmEdit& edit = {}) {
  mg::ModelBuilder b;
  const int32_t x = b.add_int8("input", {1, kSteps, kDepth}, 0.02f, 3);
  std::vector<int32_t> inputs(24, -1);
  inputs[0] = x;
  for (int k = 0; k < 8; ++k) {
    const int32_t cols = k < 4 ? kDepth : kUnits;
    mg::Weights w = mg::patterned_weights({kUnits, cols}, 0.01f);
    if (edit.per_channel) w.scales = {0.01f, 0.02f, 0.03f};
    inputs[static_cast<size_t>(1 + k)] = mg::add_weights(b, "w" + std::to_string(k), w, 0);
  }
  for (int k = 0; k < 4; ++k)
    inputs[static_cast<size_t>(12 + k)] =
        b.add_bias("bias" + std::to_string(k), {100, -200, 300}, {0.0002f});
  inputs[18] =
      b.add_tensor("hidden", TensorType::INT8, {1, kUnits}, mg::Quant::per_tensor(1 / 128.f, -5));
  inputs[19] =
      b.add_tensor("cell", TensorType::INT16, {1, kUnits}, mg::Quant::per_tensor(1 / 2048.f, 0));
  b.set_variable(inputs[18]);
  b.set_variable(inputs[19]);
  if (edit.inputs) edit.inputs(b, inputs);
  const int32_t out = b.add_int8("output", {1, kSteps, kUnits}, 1 / 128.f, -5);
  tflite::UnidirectionalSequenceLSTMOptionsT options;
  options.fused_activation_function = edit.activation;
  options.cell_clip = 4.0f;
  tflite::BuiltinOptionsUnion u;
  u.Set(std::move(options));
  b.add_operator(BuiltinOperator::UNIDIRECTIONAL_SEQUENCE_LSTM, 1, inputs, {out}, u);
  b.set_inputs({x});
  b.set_outputs({out});
  return b.finish();
}

// A tensor in an optional slot: its presence is what is refused (the
// model's would be int16; modelgen writes int8).
int32_t optional_constant(mg::ModelBuilder& b, const std::string& name) {
  return b.add_int8_constant(name, {kUnits}, std::vector<int8_t>(kUnits, 1),
                             mg::Quant::per_tensor(0.001f, 0));
}

void expect_refused(const std::vector<uint8_t>& model, const std::string& words) {
  const std::string error = test::compile_error(model);
  EXPECT_NE(error.find(words), std::string::npos) << error;
}

TEST(LstmLowering, RegularLstmCompilesAndRunsTwiceFromReset) {
  const std::vector<uint8_t> model = lstm_model();
  std::vector<uint8_t> program;
  ASSERT_EQ(test::compile_error(model, &program), "");
  const std::vector<uint8_t> input(kSteps * kDepth, 7);
  std::vector<std::vector<uint8_t>> first, second;
  ASSERT_EQ(test::run_on_host(program, {input}, &first), Status::kOk);
  ASSERT_EQ(test::run_on_host(program, {input}, &second), Status::kOk);
  EXPECT_EQ(first, second);
}

// Each ISA class gets its variant (the weights in its layout), and every
// variant's program gives the reference's outputs on the host (the DSP and
// MVE variants' portable paths; their core paths are in the variant
// sweeps).
TEST(LstmLowering, EachIsaClassGetsItsVariantWithTheSameOutputs) {
  const std::vector<uint8_t> model = lstm_model();
  const struct {
    Core core;
    IsaClass isa;
    KernelId kernel;
  } cases[] = {{Core::kCortexM3, IsaClass::kScalar, KernelId::unidirectional_lstm_s8_ref},
               {Core::kCortexM4, IsaClass::kDsp, KernelId::unidirectional_lstm_s8_dsp},
               {Core::kCortexM55, IsaClass::kMve, KernelId::unidirectional_lstm_s8_mve}};
  std::vector<uint8_t> input(kSteps * kDepth);
  for (size_t i = 0; i < input.size(); ++i) input[i] = static_cast<uint8_t>(i * 37 + 5);
  std::vector<std::vector<uint8_t>> expected;
  for (const auto& c : cases) {
    CompileOptions options;
    options.target.core = c.core;
    options.target.isa = c.isa;
    const Compilation compiled = compile_model(model.data(), model.size(), options);
    ASSERT_EQ(compiled.ops.size(), 1u);
    EXPECT_EQ(compiled.ops[0].kernel, c.kernel);
    std::vector<std::vector<uint8_t>> outputs;
    ASSERT_EQ(test::run_on_host(compiled.program, {input}, &outputs), Status::kOk);
    if (expected.empty()) expected = outputs;
    EXPECT_EQ(outputs, expected) << isa_name(c.isa);
  }
}

TEST(LstmLowering, RefusesCifg) {
  LstmEdit edit;
  edit.inputs = [](mg::ModelBuilder&, std::vector<int32_t>& in) { in[1] = in[5] = in[12] = -1; };
  expect_refused(lstm_model(edit), "CIFG");
}

TEST(LstmLowering, RefusesPeepholeProjectionAndLayerNorm) {
  LstmEdit peephole;
  peephole.inputs = [](mg::ModelBuilder& b, std::vector<int32_t>& in) {
    in[10] = optional_constant(b, "peephole");
  };
  expect_refused(lstm_model(peephole), "peephole");
  LstmEdit layer_norm;
  layer_norm.inputs = [](mg::ModelBuilder& b, std::vector<int32_t>& in) {
    in[21] = optional_constant(b, "layer_norm");
  };
  expect_refused(lstm_model(layer_norm), "layer normalization");
}

TEST(LstmLowering, RefusesPerChannelWeightsAndOtherActivations) {
  LstmEdit per_channel;
  per_channel.per_channel = true;
  expect_refused(lstm_model(per_channel), "per tensor");
  LstmEdit relu;
  relu.activation = tflite::ActivationFunctionType::RELU;
  expect_refused(lstm_model(relu), "TANH");
}

}  // namespace
}  // namespace tinyaot
