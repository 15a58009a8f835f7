// ADD, SUB, MUL, MAXIMUM, MINIMUM through their descriptors: broadcast
// planning, validate() refusals, and small cases whose expected values are
// worked out by hand in the comments.
#include "kernels/elementwise/elementwise.h"

#include <gtest/gtest.h>

#include <cstring>
#include <optional>
#include <vector>

#include "kernels/elementwise/elementwise_lower.h"
#include "kernels/lowerings.h"
#include "support/validate_support.h"

namespace tinyaot {
namespace {

constexpr int32_t kQ30 = int32_t{1} << 30;  // multiplier 0.5 in Q31

template <typename Params>
std::vector<int8_t> run(const KernelDescriptor& kernel, const Params& params, std::vector<int8_t> a,
                        std::vector<int8_t> b, size_t out_size,
                        Rounding rounding = Rounding::kDouble) {
  std::vector<int8_t> out(out_size, 0x55);
  const uint32_t in_bytes[2] = {static_cast<uint32_t>(a.size()), static_cast<uint32_t>(b.size())};
  const uint32_t out_bytes[1] = {static_cast<uint32_t>(out.size())};
  EXPECT_EQ(test::validate_sizes(kernel, &params, in_bytes, 2, out_bytes, 1), Status::kOk);
  const Operand inputs[2] = {{a.data(), in_bytes[0]}, {b.data(), in_bytes[1]}};
  const Operand outputs[1] = {{out.data(), out_bytes[0]}};
  KernelArgs args{&params, inputs, 2, outputs, 1, {nullptr, 0}, rounding};
  EXPECT_EQ(kernel.run(args), Status::kOk);
  return out;
}

template <typename Params>
Status validate(const KernelDescriptor& kernel, const Params& params, uint32_t a, uint32_t b,
                uint32_t out) {
  const uint32_t in_bytes[2] = {a, b};
  const uint32_t out_bytes[1] = {out};
  return test::validate_sizes(kernel, &params, in_bytes, 2, out_bytes, 1);
}

BroadcastShape plan(const std::vector<int32_t>& a, const std::vector<int32_t>& b) {
  const std::optional<BroadcastShape> shape = plan_broadcast(a, b);
  EXPECT_TRUE(shape.has_value());
  return shape.value_or(BroadcastShape{});
}

TEST(ElementwiseBroadcast, MergesContiguousAxesAndZeroesBroadcastStrides) {
  // [1,5,9,13] x [1,1,1,13]: the 5 and 9 axes are contiguous in both inputs
  // (input 2 repeats along both) and merge into 45; the last axis cannot
  // merge with them since input 2 steps 1 there but 0 above.
  const BroadcastShape s = plan({1, 5, 9, 13}, {1, 1, 1, 13});
  const int32_t dims[6] = {1, 1, 1, 1, 45, 13};
  const int32_t strides1[6] = {0, 0, 0, 0, 13, 1};
  const int32_t strides2[6] = {0, 0, 0, 0, 0, 1};
  for (int d = 0; d < 6; ++d) {
    EXPECT_EQ(s.dims[d], dims[d]) << d;
    EXPECT_EQ(s.strides1[d], strides1[d]) << d;
    EXPECT_EQ(s.strides2[d], strides2[d]) << d;
  }
}

TEST(ElementwiseBroadcast, SameShapesCollapseToOneAxis) {
  const BroadcastShape s = plan({2, 3, 4}, {2, 3, 4});
  EXPECT_EQ(s.dims[5], 24);
  EXPECT_EQ(s.dims[4], 1);
  EXPECT_EQ(s.strides1[5], 1);
  EXPECT_EQ(s.strides2[5], 1);
}

TEST(ElementwiseBroadcast, OuterProductKeepsTwoAxes) {
  // [3,1] x [1,4] -> [3,4]: input 1 steps 1 per row and 0 per column,
  // input 2 the other way round.
  const BroadcastShape s = plan({3, 1}, {1, 4});
  EXPECT_EQ(s.dims[4], 3);
  EXPECT_EQ(s.dims[5], 4);
  EXPECT_EQ(s.strides1[4], 1);
  EXPECT_EQ(s.strides1[5], 0);
  EXPECT_EQ(s.strides2[4], 0);
  EXPECT_EQ(s.strides2[5], 1);
}

TEST(ElementwiseBroadcast, RejectsIncompatibleShapes) {
  EXPECT_FALSE(plan_broadcast({2, 3}, {3, 2}).has_value());
  EXPECT_FALSE(plan_broadcast({1, 1, 1, 1, 1, 1, 2}, {2}).has_value());  // rank 7
  EXPECT_FALSE(plan_broadcast({2, 0}, {2, 1}).has_value());
  EXPECT_FALSE(plan_broadcast({-1}, {1}).has_value());
  EXPECT_FALSE(plan_broadcast({65536, 65536}, {1}).has_value());  // 2^32 elements
  // Rank 0 (a scalar) broadcasts against anything.
  EXPECT_TRUE(plan_broadcast({}, {2, 5}).has_value());
}

AddSubParams unit_add_params(const BroadcastShape& shape) {
  // All scales 1, zero points 0: twice the max input scale is 2, so each
  // input multiplier is 0.5 (Q31 2^30, shift 0) and the output multiplier
  // 2 / 2^20 = 0.5 * 2^-18.
  AddSubParams p{};
  p.shape = shape;
  p.left_shift = 20;
  p.input1_multiplier = kQ30;
  p.input2_multiplier = kQ30;
  p.output_multiplier = kQ30;
  p.output_shift = -18;
  p.act_min = -128;
  p.act_max = 127;
  return p;
}

TEST(ElementwiseAdd, UnitScalesAddAndSaturate) {
  const AddSubParams p = unit_add_params(plan({4}, {4}));
  // 3 + 4 = 7; 100 + 100 = 200 saturates at 127; -100 + -100 at -128.
  EXPECT_EQ(run(kernel_add_s8_ref, p, {3, 100, -100, -5}, {4, 100, -100, 5}, 4),
            (std::vector<int8_t>{7, 127, -128, 0}));
  // SUB with the same constants: 3 - 4 = -1, 100 - (-100) saturates.
  EXPECT_EQ(run(kernel_sub_s8_ref, p, {3, 100, -100, -5}, {4, -100, 100, 5}, 4),
            (std::vector<int8_t>{-1, 127, -128, -10}));
}

TEST(ElementwiseAdd, FusedActivationClamps) {
  AddSubParams p = unit_add_params(plan({3}, {3}));
  p.act_min = 0;
  p.act_max = 6;
  EXPECT_EQ(run(kernel_add_s8_ref, p, {-3, 2, 5}, {1, 2, 5}, 3), (std::vector<int8_t>{0, 4, 6}));
}

TEST(ElementwiseAdd, HalvesRoundAwayFromZeroInDoubleRounding) {
  // Output scale 2: the output multiplier is 2 / (2^20 * 2) = 0.5 * 2^-19.
  // x + 0 = 1 gives 0.5 (-> 1), -1 gives -0.5 (-> -1), 3 gives 1.5 (-> 2).
  AddSubParams p = unit_add_params(plan({3}, {3}));
  p.output_shift = -19;
  EXPECT_EQ(run(kernel_add_s8_ref, p, {1, -1, 3}, {0, 0, 0}, 3), (std::vector<int8_t>{1, -1, 2}));
  // Single rounding rounds half up: -0.5 -> 0.
  EXPECT_EQ(run(kernel_add_s8_ref, p, {1, -1, 3}, {0, 0, 0}, 3, Rounding::kSingle),
            (std::vector<int8_t>{1, 0, 2}));
}

TEST(ElementwiseAdd, BroadcastsRowAcrossMatrix) {
  const AddSubParams p = unit_add_params(plan({2, 3}, {3}));
  EXPECT_EQ(run(kernel_add_s8_ref, p, {0, 1, 2, 10, 11, 12}, {100, 50, -7}, 6),
            (std::vector<int8_t>{100, 51, -5, 110, 61, 5}));
}

TEST(ElementwiseAdd, ValidateRejectsInconsistentParams) {
  const AddSubParams good = unit_add_params(plan({2, 3}, {3}));
  EXPECT_EQ(validate(kernel_add_s8_ref, good, 6, 3, 6), Status::kOk);
  EXPECT_EQ(validate(kernel_add_s8_ref, good, 6, 6, 6), Status::kBadParams);  // input 2 size
  EXPECT_EQ(validate(kernel_add_s8_ref, good, 5, 3, 6), Status::kBadParams);  // input 1 size
  EXPECT_EQ(validate(kernel_add_s8_ref, good, 6, 3, 7), Status::kBadParams);  // output size
  const uint32_t one[1] = {6};
  EXPECT_EQ(test::validate_sizes(kernel_add_s8_ref, &good, one, 1, one, 1), Status::kBadParams);

  AddSubParams p = good;
  p.shape.dims[5] = 0;
  EXPECT_EQ(validate(kernel_add_s8_ref, p, 0, 0, 0), Status::kBadParams);
  p = good;
  p.shape.dims[5] = -3;
  EXPECT_EQ(validate(kernel_add_s8_ref, p, 6, 3, 6), Status::kBadParams);
  p = good;
  p.shape.strides2[4] = -3;  // would walk before the start of input 2
  EXPECT_EQ(validate(kernel_add_s8_ref, p, 6, 3, 6), Status::kBadParams);
  p = good;
  p.shape.dims[0] = 65536;
  p.shape.dims[1] = 65536;  // 2^32 * 6 elements
  EXPECT_EQ(validate(kernel_add_s8_ref, p, 6, 3, 0), Status::kBadParams);
  p = good;
  p.shape.strides1[0] = INT32_MAX;  // reach overflows int32 once dims[0] > 2
  p.shape.dims[0] = 3;
  EXPECT_EQ(validate(kernel_add_s8_ref, p, 6, 3, 18), Status::kBadParams);
  p = good;
  p.left_shift = 21;
  EXPECT_EQ(validate(kernel_add_s8_ref, p, 6, 3, 6), Status::kBadParams);
  p = good;
  p.input2_shift = 1;
  EXPECT_EQ(validate(kernel_add_s8_ref, p, 6, 3, 6), Status::kBadParams);
  p = good;
  p.input1_offset = 129;
  EXPECT_EQ(validate(kernel_add_s8_ref, p, 6, 3, 6), Status::kBadParams);
  p = good;
  p.act_min = 5;
  p.act_max = 4;
  EXPECT_EQ(validate(kernel_sub_s8_ref, p, 6, 3, 6), Status::kBadParams);
}

TEST(ElementwiseMul, ProductOfOffsetInputs) {
  // Scales 0.5 and 0.5 into 0.25: the real multiplier is 1 = 0.5 * 2^1.
  // Input 1 has zero point 1, so a = 4 means 3 steps: 3 * -4 = -12, and
  // 1.5 * -2.0 = -3.0 is indeed -12 steps of 0.25.
  MulParams p{};
  p.shape = plan({3}, {1});
  p.input1_offset = -1;
  p.output_multiplier = kQ30;
  p.output_shift = 1;
  p.act_min = -128;
  p.act_max = 127;
  EXPECT_EQ(run(kernel_mul_s8_ref, p, {4, 1, 127}, {-4}, 3), (std::vector<int8_t>{-12, 0, -128}));
  EXPECT_EQ(validate(kernel_mul_s8_ref, p, 3, 1, 3), Status::kOk);
  p.output_shift = 15;
  EXPECT_EQ(validate(kernel_mul_s8_ref, p, 3, 1, 3), Status::kBadParams);
}

TEST(ElementwiseMinMax, BroadcastColumnAgainstMatrix) {
  MinMaxParams p{};
  p.shape = plan({2, 3}, {2, 1});
  const std::vector<int8_t> a = {-5, 0, 5, 100, -100, 7};
  const std::vector<int8_t> b = {0, 8};
  EXPECT_EQ(run(kernel_maximum_s8_ref, p, a, b, 6), (std::vector<int8_t>{0, 0, 5, 100, 8, 8}));
  EXPECT_EQ(run(kernel_minimum_s8_ref, p, a, b, 6), (std::vector<int8_t>{-5, 0, 0, 8, -100, 7}));
  EXPECT_EQ(validate(kernel_minimum_s8_ref, p, 6, 3, 6), Status::kBadParams);
}

Tensor int8_tensor(std::vector<int32_t> shape, float scale, int32_t zero_point) {
  Tensor t;
  t.dtype = DType::kInt8;
  t.shape = std::move(shape);
  t.quant.scales = {scale};
  t.quant.zero_points = {zero_point};
  return t;
}

TEST(ElementwiseLowering, AddComputesTfliteMultipliers) {
  // Scales 0.5 and 0.25 into 0.5: twice the max input scale is 1.0, so the
  // input multipliers are 0.5 (2^30, shift 0) and 0.25 (2^30, shift -1),
  // the output one 1 / (2^20 * 0.5) = 0.5 * 2^-18.
  Graph graph;
  graph.tensors = {int8_tensor({2, 3}, 0.5f, 0), int8_tensor({3}, 0.25f, 0),
                   int8_tensor({2, 3}, 0.5f, 0)};
  Operation op;
  op.type = OpType::kAdd;
  op.inputs = {0, 1};
  op.outputs = {2};
  const LoweredOp lowered = lower_add(graph, op, Target{});
  ASSERT_EQ(lowered.kernel, KernelId::add_s8_ref);
  AddSubParams p;
  ASSERT_EQ(lowered.params.size(), sizeof(p));
  std::memcpy(&p, lowered.params.data(), sizeof(p));
  EXPECT_EQ(p.input1_multiplier, kQ30);
  EXPECT_EQ(p.input1_shift, 0);
  EXPECT_EQ(p.input2_multiplier, kQ30);
  EXPECT_EQ(p.input2_shift, -1);
  EXPECT_EQ(p.output_multiplier, kQ30);
  EXPECT_EQ(p.output_shift, -18);
  // 1.5 + 0.5 = 2.0 is 4 output steps; 0 + 0.25 * 3 = 0.75 is 1.5 -> 2.
  EXPECT_EQ(run(kernel_add_s8_ref, p, {3, 0, 0, 0, 0, 0}, {2, 3, 0}, 6),
            (std::vector<int8_t>{4, 2, 0, 1, 2, 0}));
}

TEST(ElementwiseLowering, MveTargetsTakeTheVectorVariantsForRowsContiguousInBothInputs) {
  // A row of input 2 repeated over input 1 (a per-channel operand), or a
  // scalar operand on either side: on MVE the vector variants, with the
  // references' bits.
  Graph graph;
  graph.tensors = {int8_tensor({2, 3}, 0.5f, 3), int8_tensor({3}, 0.25f, -7),
                   int8_tensor({2, 3}, 0.5f, 1), int8_tensor({1}, 0.25f, 0)};
  Operation op;
  op.type = OpType::kAdd;
  op.inputs = {0, 1};
  op.outputs = {2};
  Target mve;
  mve.core = Core::kCortexM55;
  mve.isa = IsaClass::kMve;
  const LoweredOp lowered = lower_add(graph, op, mve);
  ASSERT_EQ(lowered.kernel, KernelId::add_s8_mve);
  AddSubParams p;
  ASSERT_EQ(lowered.params.size(), sizeof(p));
  std::memcpy(&p, lowered.params.data(), sizeof(p));
  const std::vector<int8_t> a = {3, -128, 127, 0, 50, -3}, b = {2, 127, -128};
  EXPECT_EQ(run(kernel_add_s8_mve, p, a, b, 6), run(kernel_add_s8_ref, p, a, b, 6));
  op.type = OpType::kSub;
  EXPECT_EQ(lower_sub(graph, op, mve).kernel, KernelId::sub_s8_mve);
  op.type = OpType::kMul;
  EXPECT_EQ(lower_mul(graph, op, mve).kernel, KernelId::mul_s8_mve);
  const std::vector<int8_t> scalar = {-77};
  for (const std::vector<int32_t>& inputs : {std::vector<int32_t>{0, 3}, {3, 0}}) {
    op.inputs = inputs;
    const std::vector<int8_t>& first = inputs[0] == 0 ? a : scalar;
    const std::vector<int8_t>& second = inputs[0] == 0 ? scalar : a;
    op.type = OpType::kMul;
    const LoweredOp mul = lower_mul(graph, op, mve);
    ASSERT_EQ(mul.kernel, KernelId::mul_s8_mve);
    MulParams m;
    std::memcpy(&m, mul.params.data(), sizeof(m));
    EXPECT_EQ(run(kernel_mul_s8_mve, m, first, second, 6),
              run(kernel_mul_s8_ref, m, first, second, 6));
    op.type = OpType::kSub;
    const LoweredOp sub = lower_sub(graph, op, mve);
    ASSERT_EQ(sub.kernel, KernelId::sub_s8_mve);
    std::memcpy(&p, sub.params.data(), sizeof(p));
    EXPECT_EQ(run(kernel_sub_s8_mve, p, first, second, 6),
              run(kernel_sub_s8_ref, p, first, second, 6));
  }
}

TEST(ElementwiseLowering, RejectsBadOperands) {
  Graph graph;
  graph.tensors = {int8_tensor({2, 3}, 0.5f, 0), int8_tensor({3, 2}, 0.5f, 0),
                   int8_tensor({2, 3}, 0.5f, 0), int8_tensor({2, 3}, 0.25f, 0)};
  Operation op;
  op.type = OpType::kMaximum;
  op.inputs = {0, 1};
  op.outputs = {2};
  EXPECT_THROW(lower_maximum(graph, op, Target{}), CompileError);  // shapes do not broadcast
  op.inputs = {0, 2};
  op.outputs = {3};
  // TFLite Micro compares raw values whatever the quantization.
  EXPECT_NO_THROW(lower_maximum(graph, op, Target{}));
  op.outputs = {2};
  EXPECT_NO_THROW(lower_maximum(graph, op, Target{}));
  op.outputs = {1};
  EXPECT_THROW(lower_add(graph, op, Target{}), CompileError);  // output shape wrong
}

}  // namespace
}  // namespace tinyaot
