// Multiply-accumulates per operation: counted by hand for each family's
// shape (output elements x the weights each one meets), and carried through
// the program's debug info into `tinyaot report`.
#include "compiler/lower/operation_macs.h"

#include <gtest/gtest.h>

#include <map>

#include "compiler/compile.h"
#include "compiler/emit/report.h"
#include "tools/modelgen/layers.h"

namespace tinyaot::test {
namespace {

namespace mg = tinyaot::modelgen;

// x[1,8,8,3] -> conv 3x3, 4 channels, SAME -> [1,8,8,4]
//            -> depthwise 3x3, stride 2, SAME -> [1,4,4,4]
//            -> average pool 2x2, stride 2 -> [1,2,2,4] -> reshape [1,16]
//            -> fully connected 16 -> 10 -> [1,10]
Compilation small_network() {
  mg::ModelBuilder b;
  const mg::AffineQuant q{0.05f, -3};
  const int32_t x = b.add_int8("x", {1, 8, 8, 3}, q.scale, q.zero_point);
  mg::Window same;
  const int32_t conv =
      mg::conv2d(b, "conv", x, mg::patterned_weights({4, 3, 3, 3}), std::nullopt, same, q);
  mg::Window stride2;
  stride2.stride_h = stride2.stride_w = 2;
  const int32_t dw = mg::depthwise_conv2d(b, "dw", conv, mg::patterned_weights({1, 3, 3, 4}),
                                          std::nullopt, stride2, q);
  mg::Window pool_window;
  pool_window.stride_h = pool_window.stride_w = 2;
  pool_window.padding = mg::Padding::VALID;
  const int32_t pool = mg::pool2d(b, "pool", mg::PoolKind::kAverage, dw, 2, 2, pool_window);
  const int32_t flat = mg::reshape(b, "flat", pool, {1, 16});
  const int32_t fc = mg::fully_connected(b, "fc", flat, mg::patterned_weights({10, 16}),
                                         std::nullopt, mg::ActivationFunctionType::NONE, false, q);
  b.set_inputs({x});
  b.set_outputs({fc});
  const std::vector<uint8_t> model = b.finish();
  CompileOptions options;
  options.target.core = Core::kCortexM4;
  options.target.isa = IsaClass::kDsp;
  return compile_model(model.data(), model.size(), options);
}

// By hand: conv 8x8x4 outputs x 3x3x3 weights, depthwise 4x4x4 x 3x3,
// fully connected 10 x 16; pooling and reshape multiply no weights.
const std::map<OpType, uint64_t> kExpectedMacs = {{OpType::kConv2d, 8 * 8 * 4 * 27},
                                                  {OpType::kDepthwiseConv2d, 4 * 4 * 4 * 9},
                                                  {OpType::kAveragePool2d, 0},
                                                  {OpType::kReshape, 0},
                                                  {OpType::kFullyConnected, 10 * 16}};

TEST(OperationMacs, EachFamilyCountsOutputElementsTimesTheWeightsTheyMeet) {
  const Compilation c = small_network();
  ASSERT_GE(c.ops.size(), 4u);
  for (size_t i = 0; i < c.ops.size(); ++i) {
    const OpType type = c.graph.operations[static_cast<size_t>(c.op_of[i])].type;
    EXPECT_EQ(c.ops[i].macs, kExpectedMacs.at(type)) << op_type_name(type);
  }
}

TEST(OperationMacs, ReportShowsThemPerOperationAndInTotal) {
  const Compilation c = small_network();
  const nlohmann::json report = program_report(c.program);
  ASSERT_EQ(report["operations"].size(), c.ops.size());
  std::map<std::string, uint64_t> by_name;
  for (const auto& [type, macs] : kExpectedMacs) by_name[op_type_name(type)] = macs;
  for (const auto& op : report["operations"])
    EXPECT_EQ(op["macs"].get<uint64_t>(), by_name.at(op["type"].get<std::string>())) << op["type"];
  EXPECT_EQ(report["macs"].get<uint64_t>(), 6912u + 576 + 160);
  EXPECT_NE(report_text(report).find("7,648 MACs per inference"), std::string::npos);
}

// SVDF, 2 batches of 5 inputs, 6 filters (3 units of rank 2) remembering
// 4 steps: per batch 6 x 5 feature products and 6 x 4 time products.
TEST(OperationMacs, SvdfCountsItsFeatureAndTimeProducts) {
  mg::ModelBuilder b;
  const int32_t x = b.add_int8("x", {2, 5}, 0.05f, 0);
  const int32_t feature = b.add_int8_constant("feature", {6, 5}, std::vector<int8_t>(30, 1),
                                              mg::Quant::per_tensor(0.01f, 0));
  const int32_t time =
      b.add_constant("time", tflite::TensorType::INT16, {6, 4}, std::vector<uint8_t>(48, 1),
                     mg::Quant::per_tensor(0.001f, 0));
  const int32_t bias = b.add_bias("bias", {0, 0, 0}, {0.001f / 1024});
  const int32_t state = b.add_tensor("state", tflite::TensorType::INT16, {2, 24},
                                     mg::Quant::per_tensor(1.0f / 1024, 0));
  b.set_variable(state);
  const int32_t out = b.add_int8("out", {2, 3}, 0.5f, 0);
  tflite::SVDFOptionsT options;
  options.rank = 2;
  options.fused_activation_function = tflite::ActivationFunctionType::RELU;
  tflite::BuiltinOptionsUnion union_options;
  union_options.Set(std::move(options));
  b.add_operator(tflite::BuiltinOperator::SVDF, 3, {x, feature, time, bias, state}, {out},
                 std::move(union_options));
  b.set_inputs({x});
  b.set_outputs({out});
  const std::vector<uint8_t> model = b.finish();
  const Compilation c = compile_model(model.data(), model.size(), CompileOptions{});
  ASSERT_EQ(c.ops.size(), 1u);
  EXPECT_EQ(c.ops[0].macs, 2u * (6 * 5 + 6 * 4));
}

TEST(OperationMacs, StrippedProgramsClaimNone) {
  mg::ModelBuilder b;
  const mg::AffineQuant q{0.05f, 0};
  const int32_t x = b.add_int8("x", {1, 16}, q.scale, q.zero_point);
  const int32_t fc = mg::fully_connected(b, "fc", x, mg::patterned_weights({4, 16}), std::nullopt,
                                         mg::ActivationFunctionType::NONE, false, q);
  b.set_inputs({x});
  b.set_outputs({fc});
  const std::vector<uint8_t> model = b.finish();
  CompileOptions options;
  options.debug_info = false;
  const Compilation c = compile_model(model.data(), model.size(), options);
  const nlohmann::json report = program_report(c.program);
  EXPECT_FALSE(report["operations"][0].contains("macs"));
  EXPECT_FALSE(report.contains("macs"));
}

}  // namespace
}  // namespace tinyaot::test
