// FULLY_CONNECTED lowering: the requantization constants as TFLite Micro
// derives them, and the weights it refuses.
#include <gtest/gtest.h>

#include <cstring>

#include "kernels/common/quant.h"
#include "kernels/common/quantize_multiplier.h"
#include "kernels/copy/data_movement_test_support.h"
#include "kernels/lowerings.h"

namespace tinyaot {
namespace {

// input [1, 4] -> FC with weights [2, 4] (one scale, or one per unit).
struct FcGraph {
  Graph graph;
  Operation op;
};

FcGraph fc_graph(float input_scale, std::vector<float> weight_scales, float output_scale) {
  FcGraph g;
  const int32_t input = test::add_tensor(g.graph, {1, 4}, input_scale, 0);
  const int32_t weights = test::add_tensor(g.graph, {2, 4}, weight_scales[0], 0);
  Tensor& w = g.graph.tensors[static_cast<size_t>(weights)];
  w.quant.scales = weight_scales;
  w.quant.zero_points.assign(weight_scales.size(), 0);
  w.data = std::vector<uint8_t>{1, 2, 3, 4, 255, 254, 253, 252};
  const int32_t output = test::add_tensor(g.graph, {1, 2}, output_scale, 0);
  g.op = test::make_op(OpType::kFullyConnected, {input, weights}, output);
  return g;
}

ChannelQuant first_channel(const LoweredOp& lowered) {
  ChannelQuant q{};
  std::memcpy(&q, lowered.inputs.at(2).constant.data(), sizeof(q));
  return q;
}

// Scales whose product rounds differently in float and in double (found by
// search): TFLite Micro's per-tensor path takes the float product.
constexpr float kInputScale = 0.014302060008049011f;
constexpr float kWeightScale = 0.01702495850622654f;
constexpr float kOutputScale = 0.38424956798553467f;

TEST(FullyConnectedLowering, PerTensorScalesMultiplyInFloatAsTfliteMicro) {
  const FcGraph g = fc_graph(kInputScale, {kWeightScale}, kOutputScale);
  const ChannelQuant q = first_channel(lower_fully_connected(g.graph, g.op, Target{}));
  const QuantizedMultiplier in_float = quantize_multiplier(
      static_cast<double>(kInputScale * kWeightScale) / kOutputScale, Rounding::kDouble);
  const QuantizedMultiplier in_double = quantize_multiplier(
      static_cast<double>(kInputScale) * kWeightScale / kOutputScale, Rounding::kDouble);
  ASSERT_NE(in_float.multiplier, in_double.multiplier);  // the case discriminates
  EXPECT_EQ(q.multiplier, in_float.multiplier);
  EXPECT_EQ(q.shift, in_float.shift);
}

TEST(FullyConnectedLowering, PerChannelScalesMultiplyInDouble) {
  const FcGraph g = fc_graph(kInputScale, {kWeightScale, kWeightScale}, kOutputScale);
  const ChannelQuant q = first_channel(lower_fully_connected(g.graph, g.op, Target{}));
  EXPECT_EQ(q.multiplier,
            quantize_multiplier(static_cast<double>(kInputScale) * kWeightScale / kOutputScale,
                                Rounding::kDouble)
                .multiplier);
}

// A scale ratio of 1/2 or more (no right shift) has no precomputed
// rescale: such an operation gets the reference variant on every core,
// whose output step takes any channel; 1/4 still gets the fast ones.
TEST(FullyConnectedLowering, ChannelsWithoutAPrecomputedRescaleGetTheReference) {
  Target dsp;
  dsp.core = Core::kCortexM4;
  dsp.isa = IsaClass::kDsp;
  const FcGraph large = fc_graph(0.5f, {1.0f}, 0.5f);  // ratio 1: shift 1
  const LoweredOp reference = lower_fully_connected(large.graph, large.op, dsp);
  EXPECT_FALSE(has_fast_rescale(first_channel(reference)));
  EXPECT_EQ(reference.kernel, KernelId::fully_connected_s8_ref);
  const FcGraph quarter = fc_graph(0.5f, {0.25f}, 0.5f);  // ratio 1/4: shift -1
  const LoweredOp fast = lower_fully_connected(quarter.graph, quarter.op, dsp);
  EXPECT_TRUE(has_fast_rescale(first_channel(fast)));
  EXPECT_NE(fast.kernel, KernelId::fully_connected_s8_ref);
}

// Each ISA class's variant takes the weights in its own layout: 2 units
// are lone rows (model order); the scalar variant adds 128 to each.
TEST(FullyConnectedLowering, StoresWeightsInTheChosenVariantsLayout) {
  const FcGraph g = fc_graph(kInputScale, {kWeightScale}, kOutputScale);
  Target scalar;
  scalar.core = Core::kCortexM0;
  scalar.isa = IsaClass::kScalar;
  const LoweredOp blocked = lower_fully_connected(g.graph, g.op, scalar);
  EXPECT_EQ(blocked.kernel, KernelId::fully_connected_s8_blocked);
  EXPECT_EQ(blocked.inputs.at(1).constant,
            (std::vector<uint8_t>{129, 130, 131, 132, 127, 126, 125, 124}));
  const LoweredOp dsp = lower_fully_connected(g.graph, g.op, Target{});
  EXPECT_EQ(dsp.kernel, KernelId::fully_connected_s8_dsp);
  EXPECT_EQ(dsp.inputs.at(1).constant, (std::vector<uint8_t>{1, 2, 3, 4, 255, 254, 253, 252}));
}

TEST(FullyConnectedLowering, RefusesAsymmetricWeights) {
  FcGraph g = fc_graph(kInputScale, {kWeightScale}, kOutputScale);
  g.graph.tensors[1].quant.zero_points = {3};
  try {
    lower_fully_connected(g.graph, g.op, Target{});
    FAIL() << "asymmetric weights were accepted";
  } catch (const CompileError& e) {
    EXPECT_NE(std::string(e.what()).find("zero point 0"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace tinyaot
