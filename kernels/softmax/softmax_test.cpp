// SOFTMAX through its descriptor and its compile-time table, and the
// fixed-point helpers of kernels/common/fixed_point.h it is built on.
#include "kernels/softmax/softmax.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "kernels/common/fixed_point.h"
#include "kernels/copy/data_movement_test_support.h"
#include "kernels/lowerings.h"
#include "kernels/softmax/softmax_lower.h"
#include "kernels/softmax/softmax_table.h"
#include "support/validate_support.h"

namespace tinyaot {
namespace {

constexpr double kQ31 = 2147483648.0;

Operation softmax_op() {
  Operation op;
  op.type = OpType::kSoftmax;
  return op;
}

Status validate(const SoftmaxParams& p, uint32_t in, uint32_t table, uint32_t out) {
  const uint32_t in_bytes[2] = {in, table};
  return test::validate_sizes(kernel_softmax_s8_ref, &p, in_bytes, 2, &out, 1);
}

Status run(const SoftmaxParams& p, std::vector<int8_t> input, std::vector<int32_t> table,
           std::vector<int8_t>* output) {
  output->assign(input.size(), 0);
  Operand in[2] = {{input.data(), static_cast<uint32_t>(input.size())},
                   {table.data(), static_cast<uint32_t>(table.size() * 4)}};
  Operand out{output->data(), static_cast<uint32_t>(output->size())};
  EXPECT_EQ(validate(p, in[0].bytes, in[1].bytes, out.bytes), Status::kOk);
  KernelArgs args{&p, in, 2, &out, 1, {nullptr, 0}, Rounding::kDouble};
  return kernel_softmax_s8_ref.run(args);
}

TEST(Softmax, ValidateRejectsInconsistentParams) {
  const SoftmaxParams p{3, 5};
  EXPECT_EQ(validate(p, 15, 1024, 15), Status::kOk);
  EXPECT_NE(validate(p, 14, 1024, 15), Status::kOk);
  EXPECT_NE(validate(p, 15, 1024, 16), Status::kOk);
  EXPECT_EQ(validate(p, 15, 4, 15), Status::kOk);  // a table cut after its first entry
  EXPECT_EQ(validate(p, 15, 500, 15), Status::kOk);
  EXPECT_NE(validate(p, 15, 0, 15), Status::kOk);  // table sizes
  EXPECT_NE(validate(p, 15, 1028, 15), Status::kOk);
  EXPECT_NE(validate(p, 15, 1022, 15), Status::kOk);
  EXPECT_NE(validate({0, 5}, 0, 1024, 0), Status::kOk);
  EXPECT_NE(validate({3, -5}, 15, 1024, 15), Status::kOk);
  EXPECT_NE(validate({1 << 16, 1 << 16}, 0, 1024, 0), Status::kOk);  // overflow
  const uint32_t bytes[1] = {15};
  EXPECT_NE(test::validate_sizes(kernel_softmax_s8_ref, &p, bytes, 1, bytes, 1), Status::kOk);
}

TEST(Softmax, TableFollowsTfliteScalingAndRadius) {
  // input scale 1, beta 1: beta * scale * 2^26 = 2^26 = 0.5 * 2^27, so the
  // multiplier is 2^30 with left shift 27, and the input radius is
  // floor(31 * 2^26 / 2^27) = 15: differences beyond 15 are skipped (0).
  const std::vector<int32_t> table = softmax_exp_table(1.0, 1.0, Rounding::kDouble, softmax_op());
  ASSERT_EQ(table.size(), 256u);
  EXPECT_EQ(table[0], INT32_MAX);  // exp(0) is Q0's largest value
  // gemmlowp's exp is within about 1e-7 of the real one.
  EXPECT_NEAR(table[1], 0.36787944 * kQ31, 1e-6 * kQ31);  // exp(-1)
  EXPECT_NEAR(table[2], 0.13533528 * kQ31, 1e-6 * kQ31);  // exp(-2)
  EXPECT_GT(table[15], 0);
  EXPECT_EQ(table[16], 0);
  EXPECT_EQ(table[255], 0);
  for (int d = 1; d < 16; ++d) EXPECT_LT(table[d], table[d - 1]);
  // Single rounding gives the same multiplier here (no tie to round).
  EXPECT_EQ(softmax_exp_table(1.0, 1.0, Rounding::kSingle, softmax_op()), table);
}

TEST(Softmax, TableRejectsTooSmallScales) {
  // beta * scale * 2^26 <= 1: TFLite's QuantizeMultiplierGreaterThanOne fails.
  EXPECT_THROW(softmax_exp_table(1.0, 1e-9, Rounding::kDouble, softmax_op()), CompileError);
}

TEST(Softmax, EqualLogitsShareTheProbability) {
  // Two equal values: each exp is 1.0, sum 2.0 in Q12; the reciprocal is
  // 0.5 and each output is 0.5 * 256 - 128 = 0.
  const std::vector<int32_t> table = softmax_exp_table(1.0, 1.0, Rounding::kDouble, softmax_op());
  std::vector<int8_t> out;
  ASSERT_EQ(run({1, 2}, {7, 7}, table, &out), Status::kOk);
  EXPECT_EQ(out, (std::vector<int8_t>{0, 0}));
  // Four equal values: 0.25 * 256 - 128 = -64.
  ASSERT_EQ(run({1, 4}, {-3, -3, -3, -3}, table, &out), Status::kOk);
  EXPECT_EQ(out, (std::vector<int8_t>{-64, -64, -64, -64}));
}

TEST(Softmax, SkippedDifferencesGiveTheLowestOutput) {
  // A difference of 100 is past the radius (15): its output is -128 and the
  // maximum takes probability 1.0, 256 - 128 = 128, saturated to 127.
  const std::vector<int32_t> table = softmax_exp_table(1.0, 1.0, Rounding::kDouble, softmax_op());
  std::vector<int8_t> out;
  ASSERT_EQ(run({2, 2}, {50, -50, -128, 127}, table, &out), Status::kOk);
  EXPECT_EQ(out, (std::vector<int8_t>{127, -128, -128, 127}));
}

TEST(Softmax, ATableCutAfterItsLastNonzeroEntryGivesTheSameOutputs) {
  // The program stores the table up to its last nonzero entry (16 of 256
  // here); every difference past the end reads 0, as the full table holds.
  const std::vector<int32_t> table = softmax_exp_table(1.0, 1.0, Rounding::kDouble, softmax_op());
  const std::vector<int32_t> cut(table.begin(), table.begin() + 16);
  ASSERT_EQ(cut.back(), table[15]);
  ASSERT_NE(cut.back(), 0);
  const std::vector<int8_t> input = {127, 120, 113, 112, 111, 100, 0, -128, 126, 127};
  std::vector<int8_t> full_out, cut_out;
  ASSERT_EQ(run({2, 5}, input, table, &full_out), Status::kOk);
  ASSERT_EQ(run({2, 5}, input, cut, &cut_out), Status::kOk);
  EXPECT_EQ(cut_out, full_out);
  EXPECT_EQ(cut_out[3], -128);  // difference 15, the table's last entry: exp(-15) * 256 < 0.5
  EXPECT_EQ(cut_out[5], -128);  // difference 27: past the end
}

TEST(Softmax, ExponentialsUnderTheNegligibleBoundChangeNoOutput) {
  // What lets the compiler cut the table after its last exponential at or
  // above kSoftmaxNegligibleExp: with input scale 0.1 more than ten of the
  // table's nonzero entries lie under the bound (checked below). Rows of
  // every spread, each value's difference from the maximum in 0..255.
  const std::vector<int32_t> table = softmax_exp_table(1.0, 0.1, Rounding::kDouble, softmax_op());
  std::vector<int32_t> cut = table;
  while (cut.back() < kSoftmaxNegligibleExp) cut.pop_back();
  ASSERT_GT(cut.back(), 0);
  ASSERT_GT(std::count_if(table.begin() + static_cast<long>(cut.size()), table.end(),
                          [](int32_t e) { return e > 0; }),
            10);
  uint32_t seed = 12345;
  auto next = [&] { return seed = seed * 1664525u + 1013904223u; };
  for (int trial = 0; trial < 2000; ++trial) {
    const int32_t depth = 1 + static_cast<int32_t>(next() % 40);
    const int32_t spread = 1 + static_cast<int32_t>(next() % 256);
    const int32_t top = -128 + spread - 1 + static_cast<int32_t>(next() % (257 - spread));
    std::vector<int8_t> input(static_cast<size_t>(depth));
    for (auto& x : input) x = static_cast<int8_t>(top - static_cast<int32_t>(next() % spread));
    std::vector<int8_t> full_out, cut_out;
    ASSERT_EQ(run({1, depth}, input, table, &full_out), Status::kOk);
    ASSERT_EQ(run({1, depth}, input, cut, &cut_out), Status::kOk);
    ASSERT_EQ(cut_out, full_out) << "trial " << trial;
  }
}

TEST(Softmax, FailsWhereTfliteWouldAbort) {
  // 600 equal values sum to 600.0 >= 2^9 in Q12: TFLite's exponent check
  // (num_bits_over_unit + 23 <= 31) fails, and so does the kernel.
  const std::vector<int32_t> table = softmax_exp_table(1.0, 1.0, Rounding::kDouble, softmax_op());
  std::vector<int8_t> out;
  EXPECT_NE(run({1, 600}, std::vector<int8_t>(600, 0), table, &out), Status::kOk);
  // 511 of them still fit: 1/511 * 256 = 0.5 -> the -128 + 0 or + 1 step.
  ASSERT_EQ(run({1, 511}, std::vector<int8_t>(511, 0), table, &out), Status::kOk);
  EXPECT_GE(out[0], -128);
  EXPECT_LE(out[0], -127);
}

// The lowering's variant: the MVE one on a Helium core, the reference
// elsewhere; both read the same stored table.
TEST(SoftmaxLowering, MveTargetsTakeTheVectorVariant) {
  Graph graph;
  const int32_t input = test::add_tensor(graph, {3, 10}, 0.1f, 5);
  const int32_t output = test::add_tensor(graph, {3, 10}, 1.0f / 256, -128);
  Operation op = test::make_op(OpType::kSoftmax, {input}, output);
  op.attrs.beta = 1.0f;
  Target m4;  // the default target: Cortex-M4, DSP
  Target m55;
  m55.core = Core::kCortexM55;
  m55.isa = IsaClass::kMve;
  const LoweredOp scalar = lower_softmax(graph, op, m4);
  const LoweredOp vector = lower_softmax(graph, op, m55);
  EXPECT_EQ(scalar.kernel, KernelId::softmax_s8_ref);
  EXPECT_EQ(vector.kernel, KernelId::softmax_s8_mve);
  ASSERT_EQ(vector.inputs.size(), 2u);
  EXPECT_EQ(vector.inputs[1].constant, scalar.inputs[1].constant);
}

// Up to 8191 values a row the Q12 sum cannot wrap to a positive value
// (8191 * 2^19 < 2^32); the MVE variant refuses longer rows, which the
// compiler gives the reference.
TEST(SoftmaxMve, ValidateTakesRowsUpToTheUnwrappedDepth) {
  const uint32_t table = 4 * kSoftmaxExpTableSize;
  auto validate_mve = [&](SoftmaxParams p) {
    const uint32_t bytes = static_cast<uint32_t>(p.rows * p.depth);
    const uint32_t in_bytes[2] = {bytes, table};
    return test::validate_sizes(kernel_softmax_s8_mve, &p, in_bytes, 2, &bytes, 1);
  };
  EXPECT_EQ(validate_mve({2, 8191}), Status::kOk);
  EXPECT_EQ(validate_mve({1, 1}), Status::kOk);
  EXPECT_NE(validate_mve({1, 8192}), Status::kOk);
  EXPECT_LT(int64_t{8191} * (int64_t{1} << (31 - kSoftmaxSumIntegerBits)), int64_t{1} << 32);
  EXPECT_GE(int64_t{8192} * (int64_t{1} << (31 - kSoftmaxSumIntegerBits)), int64_t{1} << 32);
}

// The stored part of a table: up to its last exponential at or above the
// negligible bound, at least one entry.
TEST(SoftmaxTable, StoredEntriesEndAtTheLastNonNegligibleExponential) {
  int32_t table[kSoftmaxExpTableSize] = {};
  table[0] = INT32_MAX;
  EXPECT_EQ(softmax_stored_entries(table), 1);
  table[1] = kSoftmaxNegligibleExp;
  table[2] = kSoftmaxNegligibleExp - 1;
  EXPECT_EQ(softmax_stored_entries(table), 2);
  // input scale 1, beta 1: shift 27, radius 15 (TableFollowsTfliteScalingAndRadius).
  EXPECT_EQ(softmax_input_radius(27), 15);
  fill_softmax_exp_table(1 << 30, 27, Rounding::kDouble, table);
  EXPECT_EQ(std::vector<int32_t>(table, table + kSoftmaxExpTableSize),
            softmax_exp_table(1.0, 1.0, Rounding::kDouble, softmax_op()));
}

TEST(FixedPoint, ExactValues) {
  EXPECT_EQ(fixed_point::exp_on_negative_values(0, 5), INT32_MAX);
  EXPECT_EQ(fixed_point::logistic(0, 4), 1 << 30);
  EXPECT_EQ(fixed_point::tanh(0, 4), 0);
  // Saturating / rounding power-of-two products.
  EXPECT_EQ(fixed_point::saturating_rounding_mul_by_pot(1 << 29, 2), INT32_MAX);
  EXPECT_EQ(fixed_point::saturating_rounding_mul_by_pot(-(1 << 29), 2), INT32_MIN);
  EXPECT_EQ(fixed_point::saturating_rounding_mul_by_pot(3, -1), 2);
  EXPECT_EQ(fixed_point::saturating_rounding_mul_by_pot(-3, -1), -2);
  EXPECT_EQ(fixed_point::rounding_half_sum(3, 4), 4);
  EXPECT_EQ(fixed_point::rounding_half_sum(-3, -4), -4);
  // 1/x of 2.0 in Q12 (raw 2^20): 0.5, returned as ~1.0 with one bit over unit.
  int bits = 0;
  const int32_t r = fixed_point::reciprocal(1 << 20, 12, &bits);
  EXPECT_EQ(bits, 1);
  EXPECT_GE(r, INT32_MAX - 2);
}

TEST(FixedPoint, ApproximatesTheRealFunctions) {
  for (int i = 0; i <= 64; ++i) {
    const double x = -i / 4.0;                                // 0 .. -16
    const int32_t raw = static_cast<int32_t>(x * (1 << 26));  // Q5.26
    EXPECT_NEAR(fixed_point::exp_on_negative_values(raw, 5) / kQ31, std::exp(x), 1e-6) << x;
  }
  for (int i = -28; i <= 28; ++i) {
    const double x = i / 4.0;  // -7 .. 7 in Q4.27
    const int32_t raw = static_cast<int32_t>(x * (1 << 27));
    EXPECT_NEAR(fixed_point::logistic(raw, 4) / kQ31, 1.0 / (1.0 + std::exp(-x)), 1e-6) << x;
    EXPECT_NEAR(fixed_point::tanh(raw, 4) / kQ31, std::tanh(x), 1e-6) << x;
  }
  for (int i = 0; i < 16; ++i) {
    const double x = i / 16.0;
    const int32_t raw = static_cast<int32_t>(x * kQ31);
    EXPECT_NEAR(fixed_point::one_over_one_plus_x_for_x_in_0_1(raw) / kQ31, 1.0 / (1.0 + x), 1e-6);
    EXPECT_NEAR(fixed_point::one_minus_x_over_one_plus_x_for_x_in_0_1(raw) / kQ31,
                (1.0 - x) / (1.0 + x), 1e-6);
  }
}

}  // namespace
}  // namespace tinyaot
