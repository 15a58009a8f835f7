// The shared output step: the values are derived by hand in the comments.
// Built with UBSan, a signed overflow anywhere in the step aborts the test.
#include "kernels/common/output_step.h"

#include <gtest/gtest.h>

namespace tinyaot {
namespace {

constexpr int32_t kHalf = 1 << 30;  // multiplier 0.5 in Q31

TEST(OutputStep, OutputOffsetWrapsLikeTheHardware) {
  // SRDHM(2^31 - 1, 2^31 - 1) = (2^62 - 2^32 + 1 + 2^30) / 2^31, truncated:
  // 2^31 - 2. Adding 127 wraps to 2^31 + 125 - 2^32 < 0, clamped to -128
  // (TFLite's plain int32 + on a Cortex-M gives the same bits).
  EXPECT_EQ((output_step<Rounding::kDouble>(INT32_MAX, 0, INT32_MAX, 0, 127, -128, 127)), -128);
  // Without the offset the same value saturates high.
  EXPECT_EQ((output_step<Rounding::kDouble>(INT32_MAX, 0, INT32_MAX, 0, 0, -128, 127)), 127);
}

TEST(OutputStep, BiasAddWraps) {
  // INT32_MAX + 1 wraps to -2^31; times 0.5 is -2^30, clamped to -128.
  EXPECT_EQ((output_step<Rounding::kDouble>(INT32_MAX, 1, kHalf, 0, 0, -128, 127)), -128);
  EXPECT_EQ((output_step<Rounding::kSingle>(INT32_MAX, 1, kHalf, 0, 0, -128, 127)), -128);
}

TEST(OutputStep, RoundingModesDifferOnATie) {
  // -6 * 0.5 * 2^-1 = -1.5. Double rounding: SRDHM gives -3 exactly, the
  // rounding shift takes -1.5 away from zero to -2. Single rounding:
  // (-6 * 2^30 + 2^31) >> 32 = -2^32 >> 32 = -1 (half up).
  EXPECT_EQ((output_step<Rounding::kDouble>(-6, 0, kHalf, -1, 0, -128, 127)), -2);
  EXPECT_EQ((output_step<Rounding::kSingle>(-6, 0, kHalf, -1, 0, -128, 127)), -1);
  // Then the offset and the activation range: -2 + 5 = 3, clamped to [4, 9].
  EXPECT_EQ((output_step<Rounding::kDouble>(-6, 0, kHalf, -1, 5, 4, 9)), 4);
}

TEST(OutputStep, WithRoundingCallsTheBodyForTheProgramsMode) {
  for (const Rounding rounding : {Rounding::kDouble, Rounding::kSingle}) {
    const int8_t value = with_rounding(rounding, [](auto mode) {
      return output_step<decltype(mode)::value>(-6, 0, kHalf, -1, 0, -128, 127);
    });
    EXPECT_EQ(value, rounding == Rounding::kDouble ? -2 : -1);
  }
}

TEST(OutputStep, ChannelFormReadsTheChannelAndTheParameters) {
  struct Params {
    int32_t output_offset, act_min, act_max;
  };
  // Accumulator 10 + bias 4 = 14, times 0.5 = 7, + offset -3 = 4.
  const ChannelQuant q{4, kHalf, 0};
  EXPECT_EQ((output_step<Rounding::kDouble>(10u, q, Params{-3, -128, 127})), 4);
  EXPECT_EQ((output_step<Rounding::kDouble>(10u, q, Params{-3, 5, 127})), 5);
}

}  // namespace
}  // namespace tinyaot
