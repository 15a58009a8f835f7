// The estimate of add_sub_onnx_fast.h against onnxruntime's float32 chain
// (onnx_add_sub, the host's float32): every pair of int8 inputs, ADD and
// SUB, for scale sets drawn at random and placed where the bound is
// tightest (ratios at and next to powers of two, 1/3, exact ties), with
// random zero points and activation ranges. The sweeps on the emulated
// cores run the flat variants against the reference too
// (tests/variant_sweep).
#include "kernels/elementwise/add_sub_onnx_fast.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "kernels/elementwise/add_sub_cases.h"
#include "kernels/elementwise/add_sub_onnx.h"
#include "kernels/elementwise/elementwise.h"

namespace tinyaot {
namespace {

struct Scales {
  float sa, sb, sc;
};

int32_t bits_of(float value) {
  int32_t bits;
  memcpy(&bits, &value, sizeof bits);
  return bits;
}

// `value` moved by `ulps` units in the last place.
float nudged(float value, int ulps) {
  for (; ulps > 0; --ulps) value = std::nextafter(value, 2 * value);
  for (; ulps < 0; ++ulps) value = std::nextafter(value, 0.0f);
  return value;
}

std::vector<Scales> scale_sets(std::mt19937& rng) {
  std::vector<Scales> sets;
  std::uniform_real_distribution<float> significand(1.0f, 2.0f);
  std::uniform_int_distribution<int> exponent(-14, 2), ulps(-3, 3), power(-6, 6);
  const float kRatios[] = {1.0f, 0.5f, 0.25f, 2.0f, 4.0f, 1.0f / 3, 2.0f / 3, 0.75f, 1.5f, 0.1f};
  for (float ra : kRatios) {
    for (float rb : kRatios) {
      const float sc = significand(rng) * std::ldexp(1.0f, exponent(rng));
      // Exact ratios (ties wherever a*ra + b*rb is a half-integer), and
      // the same a few units off.
      sets.push_back({ra * sc, rb * sc, sc});
      sets.push_back({nudged(ra * sc, ulps(rng)), nudged(rb * sc, ulps(rng)), sc});
    }
  }
  for (int i = 0; i < 60; ++i) {  // powers of two apart, a few units off
    const float sc = significand(rng) * std::ldexp(1.0f, exponent(rng));
    sets.push_back({nudged(std::ldexp(sc, power(rng)), ulps(rng)),
                    nudged(std::ldexp(sc, power(rng)), ulps(rng)), sc});
  }
  for (int i = 0; i < 120; ++i) {  // anywhere, ratios up to 2^16 either way
    const float sc = significand(rng) * std::ldexp(1.0f, exponent(rng));
    std::uniform_int_distribution<int> spread(-16, 16);
    sets.push_back({significand(rng) * std::ldexp(sc, spread(rng)),
                    significand(rng) * std::ldexp(sc, spread(rng)), sc});
  }
  // The ends of the fast range and beyond.
  const float kTiny = std::ldexp(1.0f, -40), kHuge = std::ldexp(1.0f, 40);
  sets.push_back({kTiny, kTiny, kTiny});
  sets.push_back({kHuge, kHuge, kHuge});
  sets.push_back({nudged(kTiny, -1), kTiny, kTiny});
  sets.push_back({kTiny * 3, kTiny, kTiny * 5});
  return sets;
}

AddSubParams params_for(const Scales& s, int sign, std::mt19937& rng) {
  std::uniform_int_distribution<int32_t> zero_point(-128, 127), bound(-128, 127);
  AddSubParams p{};
  for (int d = 0; d < kBroadcastRank; ++d) p.shape.dims[d] = 1;
  p.shape.dims[kBroadcastRank - 1] = 256 * 256;
  p.shape.strides1[kBroadcastRank - 1] = p.shape.strides2[kBroadcastRank - 1] = 1;
  p.input1_offset = -zero_point(rng);
  p.input2_offset = -zero_point(rng);
  p.output_offset = zero_point(rng);
  p.input1_multiplier = bits_of(s.sa);
  p.input2_multiplier = bits_of(s.sb);
  p.output_multiplier = bits_of(s.sc);
  p.act_min = -128;
  p.act_max = 127;
  if (rng() % 3 == 0) {  // a fused activation's range
    const int32_t x = bound(rng), y = bound(rng);
    p.act_min = std::min(x, y);
    p.act_max = std::max(x, y);
  }
  p.onnx_fast = onnx_add_sub_fast_constants(s.sa, s.sb, s.sc, sign);
  return p;
}

// Every pair of inputs through the flat loop against the chain per
// element; returns whether the estimate ran.
template <int kSign>
bool check_all_pairs(const AddSubParams& p) {
  std::vector<int8_t> a(256 * 256), b(256 * 256), out(256 * 256);
  for (int i = 0; i < 256 * 256; ++i) {
    a[size_t(i)] = static_cast<int8_t>(i & 255);
    b[size_t(i)] = static_cast<int8_t>(i >> 8);
  }
  EXPECT_TRUE(is_add_sub_onnx_flat_case(p));
  onnx_add_sub_flat<kSign>(a.data(), b.data(), out.data(), 256 * 256, p);
  for (size_t i = 0; i < a.size(); ++i) {
    const int8_t expected = onnx_add_sub<kSign>(a[i], b[i], p);
    if (out[i] != expected) {
      ADD_FAILURE() << (kSign > 0 ? "ADD" : "SUB") << " qa " << int(a[i]) << " qb " << int(b[i])
                    << " got " << int(out[i]) << " expected " << int(expected) << " shift "
                    << p.onnx_fast.shift << " margin " << p.onnx_fast.margin;
      return false;
    }
  }
  return p.onnx_fast.shift != 0;
}

TEST(AddSubOnnxFast, EveryInputPairMatchesTheFloat32Chain) {
  std::mt19937 rng(18);
  int estimated = 0, sets = 0;
  for (const Scales& s : scale_sets(rng)) {
    for (int repeat = 0; repeat < 2; ++repeat) {
      estimated += check_all_pairs<+1>(params_for(s, +1, rng));
      estimated += check_all_pairs<-1>(params_for(s, -1, rng));
      sets += 2;
      if (HasFailure()) return;
    }
  }
  // Most sets are close enough in scale for the estimate: it must have run.
  EXPECT_GT(estimated, sets * 3 / 4) << estimated << " of " << sets;
}

TEST(AddSubOnnxFast, ConstantsStayWithinTheirRange) {
  // Usual scales: a high shift and a margin of a few units in 2^20 and more.
  const OnnxAddSubFast usual = onnx_add_sub_fast_constants(0.02f, 0.03f, 0.04f, 1);
  EXPECT_GE(usual.shift, 20);
  EXPECT_LT(int64_t{usual.margin} * 1000, int64_t{1} << usual.shift);
  EXPECT_TRUE(is_valid_onnx_add_sub_fast(usual));
  EXPECT_EQ(onnx_add_sub_fast_constants(0.02f, 0.03f, 0.04f, -1).multiplier2, -usual.multiplier2);
  // Ratios too far apart, or scales outside the range: the chain.
  EXPECT_EQ(onnx_add_sub_fast_constants(1.0f, 1.0f, 1e-6f, 1).shift, 0);
  EXPECT_EQ(onnx_add_sub_fast_constants(1e-20f, 1.0f, 1.0f, 1).shift, 0);
  EXPECT_EQ(onnx_add_sub_fast_constants(0.0f, 1.0f, 1.0f, 1).shift, 0);
  EXPECT_EQ(onnx_add_sub_fast_constants(std::nanf(""), 1.0f, 1.0f, 1).shift, 0);
  // A program's constants that could overflow are refused.
  EXPECT_FALSE(is_valid_onnx_add_sub_fast({INT32_MAX, 1, 20, 1}));
  EXPECT_FALSE(is_valid_onnx_add_sub_fast({1, 1, 31, 1}));
  EXPECT_FALSE(is_valid_onnx_add_sub_fast({1, 1, 20, 1 << 19}));
  EXPECT_FALSE(is_valid_onnx_add_sub_fast({1, 1, 20, -1}));
}

}  // namespace
}  // namespace tinyaot
