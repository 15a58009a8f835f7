// The rescale arithmetic against TFLite's and gemmlowp's definitions,
// written in their original form in requantize_reference.h (sign-dependent
// nudge, division truncating toward zero, exact int64 divisions) so that
// quant.h's faster equivalents are checked, not restated.
#include "kernels/common/quant.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "kernels/common/requantize_reference.h"

namespace tinyaot {
namespace {

using reference::gemmlowp_doubling_high_mul;
using reference::tflite_double_rounding;
using reference::tflite_single_rounding;

TEST(Quant, DoublingHighMulEqualsGemmlowpForEveryKindOfOperand) {
  const int32_t edges[] = {INT32_MIN,
                           INT32_MIN + 1,
                           -(1 << 30) - 1,
                           -(1 << 30),
                           -(1 << 30) + 1,
                           -65536,
                           -3,
                           -2,
                           -1,
                           0,
                           1,
                           2,
                           3,
                           65536,
                           (1 << 30) - 1,
                           1 << 30,
                           (1 << 30) + 1,
                           INT32_MAX - 1,
                           INT32_MAX};
  for (int32_t a : edges)
    for (int32_t b : edges)
      ASSERT_EQ(saturating_rounding_doubling_high_mul(a, b), gemmlowp_doubling_high_mul(a, b))
          << a << " * " << b;
  std::mt19937 rng(12345);
  std::uniform_int_distribution<int32_t> any(INT32_MIN, INT32_MAX);
  std::uniform_int_distribution<int32_t> small(-70000, 70000);
  for (int i = 0; i < 2000000; ++i) {
    const int32_t a = (i & 1) ? any(rng) : small(rng);
    const int32_t b = any(rng);
    ASSERT_EQ(saturating_rounding_doubling_high_mul(a, b), gemmlowp_doubling_high_mul(a, b))
        << a << " * " << b;
  }
  // Products exactly at the rounding ties (p = k * 2^31 +- 2^30).
  for (int32_t k = -5; k <= 5; ++k) {
    const int32_t a = 1 << 30;
    for (int32_t b : {2 * k + 1, 2 * k - 1, 2 * k})
      ASSERT_EQ(saturating_rounding_doubling_high_mul(a, b), gemmlowp_doubling_high_mul(a, b))
          << a << " * " << b;
  }
}

// x values where rounding and overflow change: the extremes, 0 and +-1, and
// +-2^k +-1 for every k.
std::vector<int32_t> edge_accumulators() {
  std::vector<int32_t> values = {INT32_MIN, INT32_MIN + 1, INT32_MIN + 2, -1, 0,
                                 1,         INT32_MAX - 1, INT32_MAX};
  for (int k = 1; k <= 30; ++k) {
    const int32_t p = int32_t{1} << k;
    for (int32_t v : {p - 1, p, p + 1, -p - 1, -p, -p + 1}) values.push_back(v);
  }
  return values;
}

const int32_t kEdgeMultipliers[] = {0,
                                    1,
                                    2,
                                    3,
                                    65535,
                                    65536,
                                    65537,
                                    (1 << 30) - 1,
                                    1 << 30,
                                    (1 << 30) + 1,
                                    (1 << 30) + (1 << 29),
                                    INT32_MAX - 1,
                                    INT32_MAX};

// Negative multipliers reach requantize only from compile-time tables (a
// LEAKY_RELU with a negative alpha); they take the general path.
const int32_t kNegativeMultipliers[] = {INT32_MIN, INT32_MIN + 1, -(1 << 30), -1};

void expect_all_paths_match(int32_t x, int32_t m, int shift) {
  const int32_t want_double = tflite_double_rounding(x, m, shift);
  const int32_t want_single = tflite_single_rounding(x, m, shift);
  ASSERT_EQ(requantize<Rounding::kDouble>(x, m, shift), want_double)
      << x << " " << m << " " << shift;
  ASSERT_EQ(requantize<Rounding::kSingle>(x, m, shift), want_single)
      << x << " " << m << " " << shift;
  ASSERT_EQ(requantize_double(x, m, shift), want_double);
  ASSERT_EQ(requantize_single(x, m, shift), want_single);
  ASSERT_EQ(requantize(x, m, shift, Rounding::kDouble), want_double);
  ASSERT_EQ(requantize(x, m, shift, Rounding::kSingle), want_single);
  const ChannelQuant q = make_channel_quant(0, m, shift);
  ASSERT_EQ(requantize<Rounding::kDouble>(x, q), want_double) << x << " " << m << " " << shift;
  ASSERT_EQ(requantize<Rounding::kSingle>(x, q), want_single) << x << " " << m << " " << shift;
  if (shift >= 0 || m < 0) return;
  // Both forms of the usual case, whichever one this host's requantize uses.
  using namespace requantize_detail;
  ASSERT_EQ(right_shift_by_long_multiply<Rounding::kDouble>(x, m, shift), want_double)
      << x << " " << m << " " << shift;
  ASSERT_EQ(right_shift_by_long_multiply<Rounding::kSingle>(x, m, shift), want_single)
      << x << " " << m << " " << shift;
  ASSERT_EQ(right_shift_by_halves<Rounding::kDouble>(x, m, shift), want_double)
      << x << " " << m << " " << shift;
  ASSERT_EQ(right_shift_by_halves<Rounding::kSingle>(x, m, shift), want_single)
      << x << " " << m << " " << shift;
  if (!has_fast_rescale(q)) return;
  ASSERT_EQ(rounding_term(shift), int32_t{1} << (-shift - 1)) << shift;
  ASSERT_EQ(right_shift_by_rounding<Rounding::kDouble>(x, m, rounding_term(shift), shift),
            want_double)
      << x << " " << m << " " << shift;
  ASSERT_EQ(right_shift_by_rounding<Rounding::kSingle>(x, m, rounding_term(shift), shift),
            want_single)
      << x << " " << m << " " << shift;
}

TEST(Quant, UsualCaseIsARightShiftWithANonNegativeMultiplier) {
  EXPECT_TRUE(has_fast_rescale(make_channel_quant(0, 1 << 30, -1)));
  EXPECT_TRUE(has_fast_rescale(make_channel_quant(0, 1 << 30, -31)));
  EXPECT_FALSE(has_fast_rescale(make_channel_quant(0, 1 << 30, 0)));  // no right shift
  EXPECT_FALSE(has_fast_rescale(make_channel_quant(0, 1 << 30, 3)));
  EXPECT_FALSE(has_fast_rescale(make_channel_quant(0, 1 << 30, -32)));
  EXPECT_FALSE(has_fast_rescale(make_channel_quant(0, -1, -8)));
  EXPECT_EQ(sizeof(ChannelQuant), 12u);  // program format 3's per-channel record
  // A zero multiplier is stored with a shift that has a rescale: 0 either way.
  EXPECT_TRUE(has_fast_rescale(make_channel_quant(5, 0, 0)));
  EXPECT_EQ(requantize<Rounding::kDouble>(-123456, make_channel_quant(5, 0, 0)), 0);
}

TEST(Quant, RequantizeEqualsTfliteOnEveryShiftAndEdgeOperand) {
  const std::vector<int32_t> xs = edge_accumulators();
  for (int shift = -31; shift <= 30; ++shift) {
    for (int32_t m : kEdgeMultipliers)
      for (int32_t x : xs) ASSERT_NO_FATAL_FAILURE(expect_all_paths_match(x, m, shift));
    for (int32_t m : kNegativeMultipliers)
      for (int32_t x : xs) ASSERT_NO_FATAL_FAILURE(expect_all_paths_match(x, m, shift));
  }
}

TEST(Quant, RequantizeEqualsTfliteAtTheRoundingTies) {
  // m = 2^30 halves x exactly for even x, so with a right shift every
  // remainder, the ties included, occurs among small x; 2^30 +- 1 moves
  // the products just off the ties.
  for (int shift = -31; shift <= 30; ++shift)
    for (int32_t m : {(1 << 30) - 1, 1 << 30, (1 << 30) + 1})
      for (int32_t x = -5000; x <= 5000; ++x)
        ASSERT_NO_FATAL_FAILURE(expect_all_paths_match(x, m, shift));
}

TEST(Quant, RequantizeEqualsTfliteOnRandomOperands) {
  std::mt19937 rng(20261201);
  std::uniform_int_distribution<int32_t> any(INT32_MIN, INT32_MAX);
  std::uniform_int_distribution<int32_t> accumulator(-(1 << 22), 1 << 22);
  std::uniform_int_distribution<int32_t> multiplier(0, INT32_MAX);
  std::uniform_int_distribution<int32_t> compiled_multiplier(1 << 30, INT32_MAX);
  std::uniform_int_distribution<int> shift_any(-31, 30);
  std::uniform_int_distribution<int> shift_usual(-20, 0);
  for (int i = 0; i < 3000000; ++i) {
    const int32_t x = (i & 1) ? any(rng) : accumulator(rng);
    const int32_t m = (i & 2) ? multiplier(rng) : compiled_multiplier(rng);
    const int shift = (i & 4) ? shift_any(rng) : shift_usual(rng);
    ASSERT_NO_FATAL_FAILURE(expect_all_paths_match(x, m, shift));
  }
}

}  // namespace
}  // namespace tinyaot
