// The int16 unary kernels (LOGISTIC, TANH, LEAKY_RELU) through their
// descriptors and the int16 LOGISTIC / TANH Prepare, on values worked out
// by hand in the comments.
#include <gtest/gtest.h>

#include <vector>

#include "kernels/activation/activation.h"
#include "kernels/activation/activation_prepare.h"
#include "support/validate_support.h"

namespace tinyaot {
namespace {

std::vector<int16_t> run_s16(const KernelDescriptor& kernel, const void* params,
                             std::vector<int16_t> input) {
  std::vector<int16_t> output(input.size());
  const auto bytes = static_cast<uint32_t>(input.size() * 2);
  const uint32_t in_bytes[1] = {bytes};
  const uint32_t out_bytes[1] = {bytes};
  EXPECT_EQ(test::validate_sizes(kernel, params, in_bytes, 1, out_bytes, 1), Status::kOk);
  const Operand inputs[1] = {{input.data(), bytes}};
  const Operand outputs[1] = {{output.data(), bytes}};
  KernelArgs args{params, inputs, 1, outputs, 1, {nullptr, 0}, Rounding::kDouble};
  EXPECT_EQ(kernel.run(args), Status::kOk);
  return output;
}

TEST(ActivationS16Prepare, PowerOfTwoScalesTakeThreeShifted) {
  // 2^-12: left shift 12 - 12 = 0, multiplier 3 for both.
  EXPECT_EQ(activation::prepare_sigmoid16(1.0f / 4096, false).multiplier, 3);
  EXPECT_EQ(activation::prepare_sigmoid16(1.0f / 4096, true).multiplier, 3);
  // 2^-11: TANH's shortcut at left shift 1 gives 3 << 1 and no shift;
  // LOGISTIC's general path doubles 2^-11 * 12288 = 6 twelve times.
  const Sigmoid16Scale tanh = activation::prepare_sigmoid16(1.0f / 2048, true);
  EXPECT_EQ(tanh.multiplier, 6);
  EXPECT_EQ(tanh.right_shift, 0);
  const Sigmoid16Scale logistic = activation::prepare_sigmoid16(1.0f / 2048, false);
  EXPECT_EQ(logistic.multiplier, 6 << 12);
  EXPECT_EQ(logistic.right_shift, 12);
}

TEST(ActivationS16Prepare, OtherScalesDoubleIntoFifteenBits) {
  // 3e-4 * 12288 = 3.6864 (in float's 3e-4), doubled 13 times: 30198.99,
  // truncated.
  const Sigmoid16Scale s = activation::prepare_sigmoid16(3e-4f, false);
  EXPECT_EQ(s.multiplier, 30198);
  EXPECT_EQ(s.right_shift, 13);
  // 3.0 * 12288 is past 32767 without a shift: refused (multiplier 0).
  EXPECT_EQ(activation::prepare_sigmoid16(3.0f, true).multiplier, 0);
}

TEST(ActivationS16, LogisticAndTanhAtZeroAndSaturation) {
  // Multiplier 3 (input scale 2^-12): logistic(0) = 0.5 = 16384 in Q15,
  // tanh(0) = 0; tanh(+-8) is past the table's last entry (index 98301 >> 8
  // >= 255): (0xFFFF << 8) - 2^23 + 2^7 >> 8 = 32767, and -32767 below 0.
  const Sigmoid16Params p{3, 3, 0};
  EXPECT_EQ(run_s16(kernel_tanh_s16_ref, &p, {0, -32768, 32767}),
            (std::vector<int16_t>{0, -32767, 32767}));
  // logistic(+-8) is not (98301 >> 9 = 191); at multiplier 6 (2^-11 with
  // TANH's shortcut) it is: 0x7FFF << 10 rounds to 32767 above 0, to
  // 2^25 - (0x7FFF << 10) + 2^9 - 1 >> 10 = 1 below.
  const Sigmoid16Params wide{3, 6, 0};
  EXPECT_EQ(run_s16(kernel_logistic_s16_ref, &wide, {0, 32767, -32768}),
            (std::vector<int16_t>{16384, 32767, 1}));
}

TEST(ActivationS16, LeakyReluScalesEachSide) {
  // Identity 2^30 << 1 = 1.0, alpha 2^30 >> 1 = 0.25.
  const LeakyReluS16Params p{4, int32_t{1} << 30, 1, int32_t{1} << 30, -1};
  EXPECT_EQ(run_s16(kernel_leaky_relu_s16_ref, &p, {100, -100, 32767, -32768}),
            (std::vector<int16_t>{100, -25, 32767, -8192}));
}

TEST(ActivationS16, ValidateRefusesWideMultipliers) {
  const Sigmoid16Params p{2, 32768, 0};
  const uint32_t bytes[1] = {4};
  EXPECT_EQ(test::validate_sizes(kernel_logistic_s16_ref, &p, bytes, 1, bytes, 1),
            Status::kBadParams);
  const LeakyReluS16Params leaky{2, int32_t{1} << 30, 15, int32_t{1} << 30, 0};
  EXPECT_EQ(test::validate_sizes(kernel_leaky_relu_s16_ref, &leaky, bytes, 1, bytes, 1),
            Status::kBadParams);
}

}  // namespace
}  // namespace tinyaot
