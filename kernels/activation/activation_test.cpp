// The unary operators: the lut_s8 kernel through its descriptor, and the
// reference functions that fill its tables, on values worked out by hand in
// the comments.
#include "kernels/activation/activation.h"

#include <gtest/gtest.h>

#include <vector>

#include "kernels/activation/activation_math.h"
#include "kernels/activation/activation_prepare.h"
#include "kernels/lowerings.h"
#include "support/validate_support.h"

namespace tinyaot {
namespace {

using namespace activation;

constexpr int32_t kQ30 = int32_t{1} << 30;  // 0.5 in Q31

Status validate_lut(int32_t size, uint32_t in, uint32_t table, uint32_t out) {
  const LutParams p{size};
  const uint32_t in_bytes[2] = {in, table};
  const uint32_t out_bytes[1] = {out};
  return test::validate_sizes(kernel_lut_s8_ref, &p, in_bytes, 2, out_bytes, 1);
}

TEST(ActivationLut, IndexesByUnsignedByte) {
  // table[i] = i - 128 read as int8 for byte i, i.e. the input value + 128
  // wrapped: -128 (byte 0x80) -> 0, -1 (0xff) -> 127, 0 -> -128, 127 -> -1.
  std::vector<int8_t> table(256);
  for (int i = 0; i < 256; ++i) table[i] = static_cast<int8_t>(i - 128);
  std::vector<int8_t> input = {-128, -1, 0, 127, 5};
  std::vector<int8_t> output(input.size());
  const LutParams p{static_cast<int32_t>(input.size())};
  const Operand inputs[2] = {{input.data(), 5}, {table.data(), 256}};
  const Operand outputs[1] = {{output.data(), 5}};
  KernelArgs args{&p, inputs, 2, outputs, 1, {nullptr, 0}, Rounding::kDouble};
  EXPECT_EQ(validate_lut(5, 5, 256, 5), Status::kOk);
  EXPECT_EQ(kernel_lut_s8_ref.run(args), Status::kOk);
  EXPECT_EQ(output, (std::vector<int8_t>{0, 127, -128, -1, -123}));
}

TEST(ActivationLut, ValidateRejectsInconsistentSizes) {
  EXPECT_EQ(validate_lut(5, 4, 256, 5), Status::kBadParams);
  EXPECT_EQ(validate_lut(5, 5, 255, 5), Status::kBadParams);
  EXPECT_EQ(validate_lut(5, 5, 256, 6), Status::kBadParams);
  EXPECT_EQ(validate_lut(0, 0, 256, 0), Status::kBadParams);
  EXPECT_EQ(validate_lut(-1, UINT32_MAX, 256, UINT32_MAX), Status::kBadParams);
  const LutParams p{5};
  const uint32_t bytes[2] = {5, 256};
  EXPECT_EQ(test::validate_sizes(kernel_lut_s8_ref, &p, bytes, 1, bytes, 1), Status::kBadParams);
}

TEST(ActivationMath, LogisticAndTanh) {
  // Scale 0.1: 0.1 * 2^27 = 0.8 * 2^24, so the left shift is 24 and the
  // radius floor(15 * 2^27 / 2^24) = 120 steps (12.0).
  const SigmoidParams p = prepare_sigmoid(0.1f, 0);
  EXPECT_EQ(p.input_left_shift, 24);
  EXPECT_EQ(p.input_range_radius, 120);
  // logistic(0) = 0.5 = 128/256 -> 128 - 128 = 0; logistic(1.0) = 0.731059
  // -> 187.15 -> 59; logistic(-1.0) = 0.268941 -> 68.85 -> 69 - 128 = -59.
  EXPECT_EQ(logistic_s8(0, p, Rounding::kDouble), 0);
  EXPECT_EQ(logistic_s8(10, p, Rounding::kDouble), 59);
  EXPECT_EQ(logistic_s8(-10, p, Rounding::kDouble), -59);
  EXPECT_EQ(logistic_s8(120, p, Rounding::kDouble), 127);    // at the radius
  EXPECT_EQ(logistic_s8(-120, p, Rounding::kDouble), -128);  // at minus the radius
  // tanh(0.5) = 0.462117 -> 59.15 steps of 1/128 -> 59; odd function.
  EXPECT_EQ(tanh_s8(0, p, Rounding::kDouble), 0);
  EXPECT_EQ(tanh_s8(5, p, Rounding::kDouble), 59);
  EXPECT_EQ(tanh_s8(-5, p, Rounding::kDouble), -59);
  EXPECT_EQ(tanh_s8(127, p, Rounding::kDouble), 127);
}

TEST(ActivationMath, ReluRequantizesAndClampsAtRealZero) {
  // In 0.5 / zp -10, out 0.25 / zp -128: multiplier 2 = 0.5 * 2^2.
  const RequantizeParams p = prepare_relu(0.5f, -10, 0.25f, -128, Rounding::kDouble);
  EXPECT_EQ(p.multiplier, kQ30);
  EXPECT_EQ(p.shift, 2);
  EXPECT_EQ(p.act_min, -128);
  EXPECT_EQ(requantize_s8(-10, p, Rounding::kDouble), -128);  // real 0
  EXPECT_EQ(requantize_s8(-20, p, Rounding::kDouble), -128);  // real -5, clamped
  EXPECT_EQ(requantize_s8(0, p, Rounding::kDouble), -108);    // real 5 = 20 steps
  EXPECT_EQ(requantize_s8(50, p, Rounding::kDouble), -8);     // real 30 = 120 steps
  EXPECT_EQ(requantize_s8(127, p, Rounding::kDouble), 127);   // real 68.5, saturates
  // A zero point above -128 moves the clamp: real 0 is the zero point 3.
  EXPECT_EQ(prepare_relu(0.5f, -10, 0.25f, 3, Rounding::kDouble).act_min, 3);
}

TEST(ActivationMath, Relu6OnlyClamps) {
  // Scale 0.5, zero point -10: 6.0 is 12 steps above -10, i.e. 2.
  const Relu6Params p = prepare_relu6(0.5f, -10);
  EXPECT_EQ(p.zero, -10);
  EXPECT_EQ(p.six, 2);
  EXPECT_EQ(relu6_s8(5, p), 2);
  EXPECT_EQ(relu6_s8(-20, p), -10);
  EXPECT_EQ(relu6_s8(0, p), 0);
  // Six beyond int8 saturates at 127.
  EXPECT_EQ(prepare_relu6(0.01f, 0).six, 127);
}

TEST(ActivationMath, LeakyReluRoundsPerMode) {
  // Scales 1 -> 1, alpha 0.25: identity 1 = 0.5 * 2^1, alpha 0.5 * 2^-1.
  const LeakyReluParams d = prepare_leaky_relu(1.0f, 0, 0.25f, 1.0f, 0, Rounding::kDouble);
  EXPECT_EQ(d.multiplier_identity, kQ30);
  EXPECT_EQ(d.shift_identity, 1);
  EXPECT_EQ(d.multiplier_alpha, kQ30);
  EXPECT_EQ(d.shift_alpha, -1);
  EXPECT_EQ(leaky_relu_s8(8, d, Rounding::kDouble), 8);
  EXPECT_EQ(leaky_relu_s8(-8, d, Rounding::kDouble), -2);
  // -6 * 0.25 = -1.5: double rounding goes away from zero (-2), single
  // rounding half up (-1). -2 * 0.25 = -0.5: the doubling high multiply
  // gives -1 (-2 * 2^30 / 2^31), the shift by 1 then rounds -0.5 to -1;
  // single rounding gives 0.
  EXPECT_EQ(leaky_relu_s8(-6, d, Rounding::kDouble), -2);
  EXPECT_EQ(leaky_relu_s8(-6, d, Rounding::kSingle), -1);
  EXPECT_EQ(leaky_relu_s8(-2, d, Rounding::kDouble), -1);
  EXPECT_EQ(leaky_relu_s8(-2, d, Rounding::kSingle), 0);
}

TEST(ActivationMath, RequantizeRoundsPerMode) {
  // In 1 / zp 5 -> out 4 / zp -3: multiplier 0.25 = 0.5 * 2^-1.
  const RequantizeParams p = prepare_requantize(1.0f, 5, 4.0f, -3, Rounding::kDouble);
  EXPECT_EQ(p.multiplier, kQ30);
  EXPECT_EQ(p.shift, -1);
  EXPECT_EQ(requantize_s8(5, p, Rounding::kDouble), -3);
  EXPECT_EQ(requantize_s8(11, p, Rounding::kDouble), -1);   // 6 / 4 = 1.5 -> 2
  EXPECT_EQ(requantize_s8(-1, p, Rounding::kDouble), -5);   // -1.5 -> -2
  EXPECT_EQ(requantize_s8(-1, p, Rounding::kSingle), -4);   // -1.5 -> -1
  EXPECT_EQ(requantize_s8(127, p, Rounding::kDouble), 28);  // 122 / 4 = 30.5 -> 31
}

TEST(ActivationMath, HardSwishOnSixteenthSteps) {
  // Scales 1/16 in and out, zero points 0. hires scale 1/2048; output
  // multiplier 1/128 = 0.5 * 2^-6 -> int16 16384, exponent -6; reluish
  // multiplier (1/2048) / (3/32768) = 16/3 = 0.6667 * 2^3 -> Q31 1431655765
  // -> int16 (1431655765 + 32768) >> 16 = 21845, exponent 3.
  const HardSwishParams p = prepare_hard_swish(0.0625f, 0, 0.0625f, 0, Rounding::kDouble);
  EXPECT_EQ(p.output_multiplier_fixedpoint_int16, 16384);
  EXPECT_EQ(p.output_multiplier_exponent, -6);
  EXPECT_EQ(p.reluish_multiplier_fixedpoint_int16, 21845);
  EXPECT_EQ(p.reluish_multiplier_exponent, 3);
  // x = 3.0 (48): hires 6144, preshift 3072; reluish 6144 << 2 = 24576,
  // * 21845 -> 16383, << 1 -> 32766, to [0,1] -> 32767; 32767 * 3072 >> 15
  // truncated = 3071; / 64 rounded = 48 (= 3.0, hard_swish(3) = 3).
  EXPECT_EQ(hard_swish_s8(48, p), 48);
  // x = 1.0 (16): preshift 1024; reluish 8192 -> 5461 -> 10922 -> 21845;
  // 21845 * 1024 >> 15 = 682; / 64 = 10.66 -> 11 (hard_swish(1) = 0.667).
  EXPECT_EQ(hard_swish_s8(16, p), 11);
  // x = -3.0 and below: reluish saturates to 0 -> output 0. x = 0 -> 0.
  EXPECT_EQ(hard_swish_s8(-48, p), 0);
  EXPECT_EQ(hard_swish_s8(-128, p), 0);
  EXPECT_EQ(hard_swish_s8(0, p), 0);
}

TEST(ActivationMath, BuildTableClampsAndIndexesByByte) {
  const auto table = build_table([](int8_t x) { return int32_t{x} * 2; }, -10, 50);
  EXPECT_EQ(table[0], 0);       // x = 0
  EXPECT_EQ(table[3], 6);       // x = 3
  EXPECT_EQ(table[100], 50);    // x = 100 -> 200, clamped
  EXPECT_EQ(table[0xff], -2);   // x = -1
  EXPECT_EQ(table[0x80], -10);  // x = -128 -> -256, clamped
}

Tensor int8_tensor(float scale, int32_t zero_point) {
  Tensor t;
  t.dtype = DType::kInt8;
  t.shape = {1, 4};
  t.quant.scales = {scale};
  t.quant.zero_points = {zero_point};
  return t;
}

TEST(ActivationLowering, RejectsOutputQuantizationTfliteAssumes) {
  Graph graph;
  graph.tensors = {int8_tensor(0.1f, 0), int8_tensor(1.0f / 256, -128), int8_tensor(1.0f / 128, 0)};
  Operation op;
  op.type = OpType::kLogistic;
  op.inputs = {0};
  op.outputs = {1};
  const LoweredOp lowered = lower_logistic(graph, op, Target{});
  EXPECT_EQ(lowered.kernel, KernelId::lut_s8_ref);
  ASSERT_EQ(lowered.inputs.size(), 2u);
  EXPECT_EQ(lowered.inputs[1].constant.size(), 256u);
  op.outputs = {2};
  EXPECT_THROW(lower_logistic(graph, op, Target{}), CompileError);
  op.type = OpType::kTanh;
  EXPECT_NO_THROW(lower_tanh(graph, op, Target{}));
  op.outputs = {1};
  EXPECT_THROW(lower_tanh(graph, op, Target{}), CompileError);
}

}  // namespace
}  // namespace tinyaot
