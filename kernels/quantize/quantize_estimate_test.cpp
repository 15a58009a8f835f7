// QuantizeEstimate (quantize_estimate.h) against the reference's float32
// chain (quantize_float.h) in both roundings: every float32 input of
// several exponent ranges around the scale's, elements on and next to
// every tie, and the classes the estimate leaves to the chain.
#include "kernels/quantize/quantize_estimate.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

#include "kernels/quantize/quantize_float.h"

namespace tinyaot {
namespace {

uint32_t bits_of(float value) {
  uint32_t bits;
  memcpy(&bits, &value, sizeof bits);
  return bits;
}

float float_of(uint32_t bits) {
  float value;
  memcpy(&value, &bits, sizeof value);
  return value;
}

// The estimate's int8 output, the chain where it cannot decide (as the
// variant computes it).
template <Rounding R>
int8_t estimated(const QuantizeEstimate& estimate, float x, float scale, int32_t zero_point) {
  const int32_t steps = estimate.steps(bits_of(x));
  if (steps == QuantizeEstimate::kUndecided) return quantize_one<R>(x, scale, zero_point);
  const int32_t value = steps + zero_point;
  return static_cast<int8_t>(value < -128 ? -128 : (value > 127 ? 127 : value));
}

struct Tally {
  int64_t elements = 0, undecided = 0;
};

void check(const QuantizeEstimate& estimate, float x, float scale, int32_t zero_point,
           Tally* tally) {
  ++tally->elements;
  if (estimate.steps(bits_of(x)) == QuantizeEstimate::kUndecided) ++tally->undecided;
  ASSERT_EQ(estimated<Rounding::kDouble>(estimate, x, scale, zero_point),
            quantize_one<Rounding::kDouble>(x, scale, zero_point))
      << "x " << x << " bits " << bits_of(x) << " scale " << scale << " zero point " << zero_point;
  ASSERT_EQ(estimated<Rounding::kOnnx>(estimate, x, scale, zero_point),
            quantize_one<Rounding::kOnnx>(x, scale, zero_point))
      << "x " << x << " bits " << bits_of(x) << " scale " << scale << " zero point " << zero_point;
}

// Every input whose exponent lies within [-4, 11] of the scale's (the
// estimate's whole computed range and its edges), a stride of significands.
TEST(QuantizeEstimate, EqualsTheChainOverTheScalesExponentRange) {
  const float scales[] = {1.0f / 255.0f, 0.0078125f,      0.1f,           1.5f,
                          3.0e-5f,       1.0f + 0x1p-23f, 2.0f - 0x1p-23f};
  for (float scale : scales) {
    const QuantizeEstimate estimate(scale);
    const int32_t scale_exponent = static_cast<int32_t>((bits_of(scale) >> 23) & 0xff);
    Tally tally;
    for (int32_t d = -4; d <= 11; ++d) {
      for (uint32_t significand = 0; significand < (1u << 23); significand += 61) {
        for (uint32_t sign = 0; sign < 2; ++sign) {
          const uint32_t bits =
              (sign << 31) | (static_cast<uint32_t>(scale_exponent + d) << 23) | significand;
          check(estimate, float_of(bits), scale, 3, &tally);
        }
      }
    }
    // The chain runs for about 10 fractions in 2^16 where |q| has them.
    EXPECT_LT(tally.undecided * 500, tally.elements) << scale;
  }
}

// Elements on and within a few float32 steps of every tie k + 1/2 (|k| <=
// 300), for many scales and zero points.
TEST(QuantizeEstimate, EqualsTheChainAtAndNearTies) {
  std::mt19937 random(18);
  for (int trial = 0; trial < 60; ++trial) {
    const float scale = trial < 6 ? std::ldexp(1.0f, trial - 8)
                                  : std::ldexp(1.0f + float(random() % (1u << 23)) * 0x1p-23f,
                                               int(random() % 60) - 40);
    const int32_t zero_point = int32_t(random() % 256) - 128;
    const QuantizeEstimate estimate(scale);
    Tally tally;
    for (int32_t k = -300; k <= 300; ++k) {
      const uint32_t tie = bits_of((static_cast<float>(k) + 0.5f) * scale);
      for (int32_t step = -4; step <= 4; ++step)
        check(estimate, float_of(tie + step), scale, zero_point, &tally);
    }
  }
}

TEST(QuantizeEstimate, EqualsTheChainForSpecialInputsAndScales) {
  const float inputs[] = {0.0f,          -0.0f,          INFINITY,   -INFINITY, NAN,
                          -NAN,          0x1p-149f,      -0x1p-149f, 0x1p-127f, 1.17549435e-38f,
                          3.4028235e38f, -3.4028235e38f, 1.0f};
  const float scales[] = {0x1p-149f, 0x1p-130f, 1.17549435e-38f, 1.0f, 3.4028235e38f,
                          0x1p100f,  0.5f};
  for (float scale : scales) {
    const QuantizeEstimate estimate(scale);
    Tally tally;
    for (float x : inputs)
      for (int32_t z : {-128, 0, 127}) check(estimate, x, scale, z, &tally);
    std::mt19937 random(7);
    for (int i = 0; i < 200000; ++i) check(estimate, float_of(random()), scale, 5, &tally);
  }
}

}  // namespace
}  // namespace tinyaot
