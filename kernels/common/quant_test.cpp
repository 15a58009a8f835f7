// The rescale arithmetic against gemmlowp's definitions, written here in
// their original form (sign-dependent nudge, division truncating toward
// zero) so that quant.h's faster equivalent is checked, not restated.
#include "kernels/common/quant.h"

#include <gtest/gtest.h>

#include <random>

namespace tinyaot {
namespace {

int32_t gemmlowp_doubling_high_mul(int32_t a, int32_t b) {
  if (a == b && a == INT32_MIN) return INT32_MAX;
  const int64_t ab = static_cast<int64_t>(a) * static_cast<int64_t>(b);
  const int64_t nudge = ab >= 0 ? (int64_t{1} << 30) : (1 - (int64_t{1} << 30));
  return static_cast<int32_t>((ab + nudge) / (int64_t{1} << 31));
}

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

}  // namespace
}  // namespace tinyaot
