// The flat ADD / SUB variants: both of their arithmetic forms (long
// multiply and 32-bit halves; the host compiles only the first into the
// kernel, so both are checked here directly) against quant.h's requantize
// over every input value and many constants, in both rounding modes; the
// case predicate; a run in place. The random sweeps against the reference
// are in tests/variant_sweep.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "kernels/common/quant.h"
#include "kernels/elementwise/add_sub_cases.h"
#include "kernels/elementwise/add_sub_flat_math.h"
#include "kernels/elementwise/elementwise.h"
#include "support/validate_support.h"

namespace tinyaot {
namespace {

using add_sub_flat::scale_long;
using add_sub_flat::scale_split;

// Significands at both ends and in between.
std::vector<int32_t> significands(std::mt19937& rng) {
  std::vector<int32_t> m = {int32_t{1} << 30, INT32_MAX, (int32_t{1} << 30) + 1, 0x5A5A5A5A};
  std::uniform_int_distribution<int32_t> any(int32_t{1} << 30, INT32_MAX);
  for (int i = 0; i < 60; ++i) m.push_back(any(rng));
  return m;
}

template <Rounding R>
void check_input_rescale() {
  std::mt19937 rng(7);
  for (int32_t m : significands(rng)) {
    for (int32_t s = 1; s <= 31; ++s) {
      for (int32_t v = -256; v <= 255; ++v) {
        const int32_t expected = requantize<R>(v * (int32_t{1} << 20), m, -s);
        ASSERT_EQ(scale_long<R>(v * (int32_t{1} << 21), m, int32_t{1} << (s - 1), s), expected)
            << "long v " << v << " m " << m << " s " << s;
        ASSERT_EQ(scale_split<R>(v, m >> 11, m & 2047, int32_t{1} << (s - 1), s), expected)
            << "split v " << v << " m " << m << " s " << s;
      }
    }
  }
}

TEST(AddSubFlatMath, InputRescaleMatchesRequantizeDouble) {
  check_input_rescale<Rounding::kDouble>();
}
TEST(AddSubFlatMath, InputRescaleMatchesRequantizeSingle) {
  check_input_rescale<Rounding::kSingle>();
}

template <Rounding R>
void check_output_step() {
  std::mt19937 rng(11);
  std::uniform_int_distribution<int32_t> raw_any(-(int32_t{1} << 28), int32_t{1} << 28);
  std::uniform_int_distribution<int32_t> tie(-100, 100);
  std::uniform_int_distribution<int32_t> near(-2, 2);
  for (int32_t m : significands(rng)) {
    for (int32_t s = 1; s <= 23; ++s) {
      for (int32_t offset : {-128, -1, 0, 5, 127}) {
        const int32_t base = (int32_t{1} << (s - 1)) + offset * (int32_t{1} << s);
        for (int i = 0; i < 400; ++i) {
          // Anywhere, or next to where raw * m / 2^31 is halfway between
          // two multiples of 2^s (the second rounding's ties).
          int64_t candidate = raw_any(rng);
          if (i % 2 == 0)
            candidate = int64_t{2 * tie(rng) + 1} * (int64_t{1} << (s + 30)) / m + near(rng);
          if (candidate > (int64_t{1} << 28) || candidate < -(int64_t{1} << 28)) continue;
          const auto raw = static_cast<int32_t>(candidate);
          const int32_t expected = requantize<R>(raw, m, -s) + offset;
          ASSERT_EQ(scale_long<R>(2 * raw, m, base, s), expected)
              << "raw " << raw << " m " << m << " s " << s << " offset " << offset;
        }
      }
    }
  }
}

TEST(AddSubFlatMath, OutputStepMatchesRequantizeDouble) { check_output_step<Rounding::kDouble>(); }
TEST(AddSubFlatMath, OutputStepMatchesRequantizeSingle) { check_output_step<Rounding::kSingle>(); }

AddSubParams flat_params(int32_t elements) {
  AddSubParams p{};
  for (int d = 0; d < kBroadcastRank; ++d) p.shape.dims[d] = 1;
  p.shape.dims[kBroadcastRank - 1] = elements;
  p.shape.strides1[kBroadcastRank - 1] = p.shape.strides2[kBroadcastRank - 1] = 1;
  // resnet's first ADD: scales 0.039394 and 0.104195, output 0.050946.
  p.input1_offset = 128;
  p.input2_offset = -4;
  p.output_offset = -128;
  p.left_shift = 20;
  p.input1_multiplier = 1623839356;  // 0.039394 / (2 * 0.104195) = 0.75616 * 2^-2
  p.input1_shift = -2;
  p.input2_multiplier = kAddExactMultiplier;
  p.input2_shift = 0;
  p.output_multiplier = 1098010927;  // 2 * 0.104195 / (2^20 * 0.050946) = 0.5113 * 2^-17
  p.output_shift = -17;
  p.act_min = -128;
  p.act_max = 127;
  return p;
}

TEST(AddSubFlatCases, TakesSameShapesWithOneExactInput) {
  AddSubParams p = flat_params(16);
  EXPECT_TRUE(is_add_sub_flat_case(p));
  std::swap(p.input1_multiplier, p.input2_multiplier);
  std::swap(p.input1_shift, p.input2_shift);
  EXPECT_TRUE(is_add_sub_flat_case(p));
  p.input1_multiplier = kAddExactMultiplier + 1;  // neither input exact
  EXPECT_FALSE(is_add_sub_flat_case(p));
}

TEST(AddSubFlatCases, RefusesBroadcastAndOutOfRangeShifts) {
  AddSubParams p = flat_params(16);
  p.shape.strides2[kBroadcastRank - 1] = 0;
  EXPECT_FALSE(is_add_sub_flat_case(p));
  p = flat_params(16);
  p.output_shift = -24;  // offset * 2^24 could leave int32
  EXPECT_FALSE(is_add_sub_flat_case(p));
  p.output_shift = 0;
  EXPECT_FALSE(is_add_sub_flat_case(p));
  p = flat_params(16);
  p.input1_shift = 0;  // a rescale of 0.5 or more that is not exactly 0.5
  EXPECT_FALSE(is_add_sub_flat_case(p));
  // Contiguous axes are flat however the compiler split them.
  p = flat_params(24);
  p.shape.dims[kBroadcastRank - 1] = 4;
  p.shape.dims[kBroadcastRank - 2] = 6;
  p.shape.strides1[kBroadcastRank - 2] = p.shape.strides2[kBroadcastRank - 2] = 4;
  EXPECT_TRUE(is_add_sub_flat_case(p));
}

// The compiler lets ADD write over an input of its size: the flat loop
// reads both inputs of an element before it writes it.
TEST(AddSubFlatKernel, RunsInPlaceLikeTheReference) {
  const int32_t n = 300;
  const AddSubParams p = flat_params(n);
  for (const KernelDescriptor* flat : {&kernel_add_s8_flat, &kernel_sub_s8_flat}) {
    const KernelDescriptor& ref =
        flat == &kernel_add_s8_flat ? kernel_add_s8_ref : kernel_sub_s8_ref;
    for (Rounding rounding : {Rounding::kDouble, Rounding::kSingle}) {
      std::vector<int8_t> a(n), b(n), expected(n);
      for (int32_t i = 0; i < n; ++i) {
        a[i] = static_cast<int8_t>(i * 37 - 128);
        b[i] = static_cast<int8_t>(i * 91 + 5);
      }
      const uint32_t bytes[2] = {uint32_t(n), uint32_t(n)};
      ASSERT_EQ(test::validate_sizes(*flat, &p, bytes, 2, bytes, 1), Status::kOk);
      const Operand ref_in[2] = {{a.data(), bytes[0]}, {b.data(), bytes[1]}};
      const Operand ref_out[1] = {{expected.data(), bytes[0]}};
      KernelArgs ref_args{&p, ref_in, 2, ref_out, 1, {nullptr, 0}, rounding};
      ASSERT_EQ(ref.run(ref_args), Status::kOk);
      const Operand in[2] = {{a.data(), bytes[0]}, {b.data(), bytes[1]}};
      const Operand out[1] = {{b.data(), bytes[1]}};  // over input 2
      KernelArgs args{&p, in, 2, out, 1, {nullptr, 0}, rounding};
      ASSERT_EQ(flat->run(args), Status::kOk);
      EXPECT_EQ(b, expected) << flat->name;
    }
  }
}

}  // namespace
}  // namespace tinyaot
