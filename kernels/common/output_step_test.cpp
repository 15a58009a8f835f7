// The shared output step: the values are derived by hand in the comments.
// Built with UBSan, a signed overflow anywhere in the step aborts the test.
#include "kernels/common/output_step.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "kernels/common/requantize_reference.h"

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
  const ChannelQuant q = make_channel_quant(4, kHalf, 0);
  EXPECT_EQ((output_step<Rounding::kDouble>(10u, q, Params{-3, -128, 127})), 4);
  EXPECT_EQ((output_step<Rounding::kDouble>(10u, q, Params{-3, 5, 127})), 5);
}

// TFLite's integer output step as its kernels write it: the requantization
// of the biased sum, the offset, std::max with act_min then std::min with
// act_max (int32 additions wrapping as on the hardware).
int8_t tflite_output_step(Rounding rounding, int32_t acc, int32_t bias, int32_t multiplier,
                          int32_t shift, int32_t offset, int32_t act_min, int32_t act_max) {
  const auto wrap_add = [](int32_t a, int32_t b) {
    return static_cast<int32_t>(static_cast<uint32_t>(a) + static_cast<uint32_t>(b));
  };
  const int32_t biased = wrap_add(acc, bias);
  const int32_t scaled = rounding == Rounding::kDouble
                             ? reference::tflite_double_rounding(biased, multiplier, shift)
                             : reference::tflite_single_rounding(biased, multiplier, shift);
  const int32_t value = std::min(std::max(wrap_add(scaled, offset), act_min), act_max);
  return static_cast<int8_t>(value);
}

TEST(OutputStep, EqualsTflitesStepOnRandomValues) {
  struct Params {
    int32_t output_offset, act_min, act_max;
  };
  std::mt19937 rng(8);
  std::uniform_int_distribution<int32_t> any(INT32_MIN, INT32_MAX);
  std::uniform_int_distribution<int32_t> small(-(1 << 20), 1 << 20);
  std::uniform_int_distribution<int32_t> multiplier(0, INT32_MAX);
  std::uniform_int_distribution<int32_t> shift(-31, 30);
  std::uniform_int_distribution<int32_t> int8(-128, 127);
  for (int i = 0; i < 1000000; ++i) {
    const int32_t acc = (i & 1) ? any(rng) : small(rng);
    const ChannelQuant q = make_channel_quant((i & 2) ? any(rng) : small(rng), multiplier(rng),
                                              (i & 4) ? shift(rng) : -(shift(rng) & 15));
    const int32_t a = int8(rng), b = int8(rng);
    const Params p{int8(rng), std::min(a, b), std::max(a, b)};
    for (const Rounding rounding : {Rounding::kDouble, Rounding::kSingle}) {
      const int8_t want = tflite_output_step(rounding, acc, q.bias, q.multiplier, q.shift,
                                             p.output_offset, p.act_min, p.act_max);
      const int8_t got = with_rounding(rounding, [&](auto mode) {
        return output_step<decltype(mode)::value>(static_cast<uint32_t>(acc), q, p);
      });
      ASSERT_EQ(got, want) << acc << " " << q.bias << " " << q.multiplier << " " << q.shift;
    }
  }
}

}  // namespace
}  // namespace tinyaot
