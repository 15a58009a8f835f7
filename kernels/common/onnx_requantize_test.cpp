// The onnx step (onnx_requantize.h): the integer emulation that cores
// without an FPU run (its fast path and the full emulation it falls back
// to), and the host's float path, against the host's IEEE
// float32 multiply and std::nearbyint (round half to even), which is
// onnxruntime's MlasRequantizeOutput on these values. Tens of millions of
// cases: random accumulators and multipliers over every magnitude, and the
// adversarial ones (exact ties, products a few float32 steps from a tie,
// |acc| around 2^24 to 2^31, subnormal, huge and zero multipliers).
#include "kernels/common/onnx_requantize.h"

#include <gtest/gtest.h>

#include <cfenv>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include "kernels/common/output_step.h"

namespace tinyaot {
namespace {

uint32_t bits_of(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

// onnxruntime's arithmetic, written with the C library: f32(f32(acc) * m),
// round half to even, clamped to the step's range.
int32_t reference_step(int32_t acc, float m) {
  const float product = static_cast<float>(acc) * m;
  const double rounded = std::nearbyint(static_cast<double>(product));
  if (rounded < kOnnxStepMin) return kOnnxStepMin;
  if (rounded > kOnnxStepMax) return kOnnxStepMax;
  return static_cast<int32_t>(rounded);
}

struct Counts {
  uint64_t cases = 0, mismatches = 0;
};

void check(int32_t acc, float m, Counts& counts) {
  ++counts.cases;
  const int32_t want = reference_step(acc, m);
  const int32_t emulated = onnx_requantize_detail::scale_and_round_emulated(acc, bits_of(m));
  const int32_t integer = onnx_requantize_detail::scale_and_round_integer(acc, bits_of(m));
  const int32_t host = requantize_onnx(acc, static_cast<int32_t>(bits_of(m)));
  if (emulated != want || integer != want || host != want) {
    if (++counts.mismatches <= 10)
      ADD_FAILURE() << "acc " << acc << " m " << m << " (bits 0x" << std::hex << bits_of(m)
                    << std::dec << "): float32 " << want << ", emulated " << emulated
                    << ", integer " << integer << ", host step " << host;
  }
}

// A multiplier's neighbours: `steps` float32 values either side.
void check_neighbours(int32_t acc, float m, int steps, Counts& counts) {
  float below = m, above = m;
  check(acc, m, counts);
  for (int i = 0; i < steps; ++i) {
    below = std::nextafter(below, 0.0f);
    above = std::nextafter(above, std::numeric_limits<float>::max());
    check(acc, below, counts);
    check(acc, above, counts);
  }
}

TEST(OnnxRequantize, HandPicked) {
  ASSERT_EQ(std::fegetround(), FE_TONEAREST);
  // 3 * 0.5 = 1.5 -> 2, 5 * 0.5 = 2.5 -> 2 (ties to even), -3 * 0.5 -> -2.
  EXPECT_EQ(requantize_onnx(3, static_cast<int32_t>(bits_of(0.5f))), 2);
  EXPECT_EQ(requantize_onnx(5, static_cast<int32_t>(bits_of(0.5f))), 2);
  EXPECT_EQ(requantize_onnx(-3, static_cast<int32_t>(bits_of(0.5f))), -2);
  EXPECT_EQ(onnx_requantize_detail::scale_and_round_emulated(5, bits_of(0.5f)), 2);
  EXPECT_EQ(onnx_requantize_detail::scale_and_round_emulated(-5, bits_of(0.5f)), -2);
  // 2^24 + 1 becomes 2^24 as a float32 (ties to even): times 2^-25 is
  // exactly 0.5 -> 0, where the exact product would round to 1.
  EXPECT_EQ(onnx_requantize_detail::scale_and_round_emulated((1 << 24) + 1, bits_of(0x1p-25f)), 0);
  // Saturation, and the step inside output_step in mode onnx.
  EXPECT_EQ(requantize_onnx(INT32_MAX, static_cast<int32_t>(bits_of(1.0f))), kOnnxStepMax);
  EXPECT_EQ(requantize_onnx(INT32_MIN, static_cast<int32_t>(bits_of(1.0f))), kOnnxStepMin);
  const ChannelQuant q{4, static_cast<int32_t>(bits_of(0.25f)), -1};
  // (6 + 4) * 0.25 = 2.5 -> 2, + 3 = 5, within [-128, 127].
  EXPECT_EQ((output_step<Rounding::kOnnx>(6u, q, OutputRange{3, -128, 127})), 5);
  // (-1000 + 4) * 0.25 = -249 -> clamped: -249 + 3 below -128.
  EXPECT_EQ(
      (output_step<Rounding::kOnnx>(static_cast<uint32_t>(-1000), q, OutputRange{3, -128, 127})),
      -128);
}

TEST(OnnxRequantize, EmulationEqualsFloat32OnRandomCases) {
  std::mt19937_64 rng(18);
  Counts counts;
  std::uniform_int_distribution<int> magnitude(0, 31);
  std::uniform_int_distribution<uint32_t> any32;
  // Multipliers whose products land in the step's range and around it:
  // exponent chosen so |acc| * m is about 2^-2 .. 2^12.
  for (int i = 0; i < 12000000; ++i) {
    const int bits = magnitude(rng);
    int32_t acc = static_cast<int32_t>(any32(rng) >> (31 - bits));
    if (any32(rng) & 1) acc = -acc;
    const int target = static_cast<int>(any32(rng) % 15) - 2;
    const int exponent = target - bits;
    const float m =
        std::ldexp(1.0f + static_cast<float>(any32(rng) & 0x7fffff) * 0x1p-23f, exponent);
    check(acc, m, counts);
  }
  // Any finite non-negative multiplier bits at all (subnormal to huge).
  for (int i = 0; i < 4000000; ++i) {
    const uint32_t m_bits = any32(rng) % 0x7f800000u;
    float m;
    std::memcpy(&m, &m_bits, sizeof m);
    check(static_cast<int32_t>(any32(rng)), m, counts);
  }
  EXPECT_EQ(counts.mismatches, 0u) << "of " << counts.cases << " cases";
  std::printf("random: %llu cases, %llu mismatches\n",
              static_cast<unsigned long long>(counts.cases),
              static_cast<unsigned long long>(counts.mismatches));
}

TEST(OnnxRequantize, EmulationEqualsFloat32OnAdversarialCases) {
  std::mt19937_64 rng(1818);
  std::uniform_int_distribution<uint32_t> any32;
  Counts counts;
  // Products at and a few float32 steps from every half-integer tie: m =
  // f32((k + 1/2) / acc) and its neighbours, for accumulators of every
  // size (around 2^24 .. 2^31 the accumulator itself rounds).
  for (int i = 0; i < 1500000; ++i) {
    const int bits = static_cast<int>(any32(rng) % 32);
    int32_t acc = static_cast<int32_t>((any32(rng) >> (31 - bits)) | 1);
    if (any32(rng) & 1) acc = -acc;
    const double tie = static_cast<double>(static_cast<int>(any32(rng) % 600) - 300) + 0.5;
    const float m = static_cast<float>(std::fabs(tie / static_cast<double>(acc)));
    check_neighbours(acc, m, 3, counts);
  }
  // Exact ties: power-of-two multipliers and odd accumulators.
  for (int shift = 1; shift <= 40; ++shift)
    for (int32_t acc = -4099; acc <= 4099; acc += 2)
      check(acc * (shift > 12 ? 1 << 12 : 1), std::ldexp(1.0f, -shift), counts);
  // Accumulators around the powers of two from 2^23 to 2^31 and the
  // extremes, with multipliers that bring them into the step's range.
  for (int p = 23; p <= 31; ++p) {
    for (int64_t d = -70; d <= 70; ++d) {
      const int64_t value = (int64_t{1} << p) + d;
      for (const int64_t signed_value : {value, -value}) {
        if (signed_value > INT32_MAX || signed_value < INT32_MIN) continue;
        for (int e = -p - 3; e <= -p + 11; ++e)
          check_neighbours(static_cast<int32_t>(signed_value), std::ldexp(1.0f, e), 4, counts);
      }
    }
  }
  for (const int32_t acc : {INT32_MIN, INT32_MIN + 1, INT32_MAX, INT32_MAX - 1, -1, 1, 0}) {
    for (const float m :
         {0.0f, std::numeric_limits<float>::denorm_min(), std::numeric_limits<float>::min(),
          0x1p-31f, 0x1p-30f, 0.5f, 1.0f, std::numeric_limits<float>::max()})
      check_neighbours(acc, m, 8, counts);
  }
  EXPECT_EQ(counts.mismatches, 0u) << "of " << counts.cases << " cases";
  std::printf("adversarial: %llu cases, %llu mismatches\n",
              static_cast<unsigned long long>(counts.cases),
              static_cast<unsigned long long>(counts.mismatches));
}

}  // namespace
}  // namespace tinyaot
