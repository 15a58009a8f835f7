// The channel-vectorized pooling variants, beyond the random sweep every
// variant gets against its reference (tests/variant_sweep/, on the host and
// on each emulated core): the reciprocal division over every sum it can
// meet, the 16-bit sums at their bounds, the cases each variant takes.
#include <gtest/gtest.h>

#include <vector>

#include "kernels/pooling/average_divider.h"
#include "kernels/pooling/pool_cases.h"
#include "kernels/pooling/pooling.h"
#include "support/validate_support.h"

namespace tinyaot {
namespace {

// round(sum / count), ties away from zero, in exact rationals: 2|sum| +
// count over 2 count, floored, with the sign put back.
int32_t rounded_quotient(int32_t sum, int32_t count) {
  const int64_t magnitude = sum < 0 ? -int64_t{sum} : sum;
  const int64_t quotient = (2 * magnitude + count) / (2 * int64_t{count});
  return static_cast<int32_t>(sum < 0 ? -quotient : quotient);
}

TEST(AverageDivider, ReciprocalEqualsRoundedDivisionForEverySumOfInt8Cells) {
  AverageDivider divider;
  for (int32_t count = 1; count <= kReciprocalMaxCount; ++count) {
    divider.set_count(count);
    for (int32_t sum = -128 * count; sum <= 127 * count; ++sum) {
      const int32_t expected = rounded_quotient(sum, count);
      ASSERT_EQ(divider.average<true>(sum), expected) << "sum " << sum << " count " << count;
      ASSERT_EQ(divide_rounded(sum, count), expected) << "sum " << sum << " count " << count;
    }
  }
}

TEST(AverageDivider, LargeCountsDivide) {
  AverageDivider divider;
  for (int32_t count : {257, 1000, 1 << 16, 1 << 23}) {
    divider.set_count(count);
    for (int32_t sum : {-128 * count, -count / 2 - 1, -count / 2, 0, count / 2, count / 2 + 1,
                        127 * count, 3 * count + count / 2})
      EXPECT_EQ(divider.average<false>(sum), rounded_quotient(sum, count))
          << "sum " << sum << " count " << count;
  }
}

Pool2dParams global_pool(int32_t h, int32_t w, int32_t channels) {
  Pool2dParams p{};
  p.batches = 1;
  p.input_h = p.filter_h = h;
  p.input_w = p.filter_w = w;
  p.channels = channels;
  p.output_h = p.output_w = 1;
  p.stride_h = p.stride_w = 1;
  p.act_min = -128;
  p.act_max = 127;
  return p;
}

Status validate(const KernelDescriptor& k, const Pool2dParams& p) {
  const uint32_t in = uint32_t(p.batches * p.input_h * p.input_w * p.channels);
  const uint32_t out = uint32_t(p.batches * p.output_h * p.output_w * p.channels);
  return test::validate_sizes(k, &p, &in, 1, &out, 1);
}

std::vector<int8_t> run(const KernelDescriptor& k, const Pool2dParams& p,
                        const std::vector<int8_t>& input) {
  std::vector<int8_t> output(size_t(p.batches * p.output_h * p.output_w * p.channels), 99);
  EXPECT_EQ(validate(k, p), Status::kOk) << k.name;
  Operand in{const_cast<int8_t*>(input.data()), uint32_t(input.size())};
  Operand out{output.data(), uint32_t(output.size())};
  KernelArgs args{&p, &in, 1, &out, 1, {nullptr, 0}, Rounding::kDouble};
  EXPECT_EQ(k.run(args), Status::kOk);
  return output;
}

TEST(PoolingVariants, NeedNoScratchAndRunOnEveryCore) {
  for (const KernelDescriptor* k :
       {&kernel_avg_pool2d_s8_sum16, &kernel_avg_pool2d_s8_sum32, &kernel_max_pool2d_s8_words}) {
    EXPECT_EQ(k->scratch_bytes, nullptr) << k->name;
    EXPECT_EQ(k->isa, IsaClass::kScalar) << k->name;
  }
}

TEST(PoolingVariants, Sum16TakesWindowsOfAtMost256CellsInsideTheInput) {
  EXPECT_EQ(validate(kernel_avg_pool2d_s8_sum16, global_pool(16, 16, 3)), Status::kOk);
  EXPECT_EQ(validate(kernel_avg_pool2d_s8_sum16, global_pool(16, 17, 3)), Status::kBadParams);
  EXPECT_EQ(validate(kernel_avg_pool2d_s8_sum32, global_pool(16, 17, 3)), Status::kOk);
  // A 17x17 filter over a 16x15 input never holds more than 240 cells.
  Pool2dParams clipped = global_pool(16, 15, 3);
  clipped.filter_h = clipped.filter_w = 17;
  EXPECT_EQ(validate(kernel_avg_pool2d_s8_sum16, clipped), Status::kOk);
  EXPECT_TRUE(is_avg_pool2d_sum16_case(clipped));
  // Windows the reference refuses, the variants refuse too.
  Pool2dParams empty_window = global_pool(4, 4, 3);
  empty_window.pad_top = 4;
  for (const KernelDescriptor* k :
       {&kernel_avg_pool2d_s8_sum16, &kernel_avg_pool2d_s8_sum32, &kernel_max_pool2d_s8_words})
    EXPECT_EQ(validate(*k, empty_window), Status::kBadParams) << k->name;
}

// 256 cells at either end of int8 fill the 16-bit sums to their bounds
// (-32768, 32512); one cell off changes the rounding of some channels.
TEST(PoolingVariants, Sum16AveragesAtTheBoundsOfItsSums) {
  const Pool2dParams p = global_pool(16, 16, 9);
  for (int8_t fill : {int8_t{-128}, int8_t{127}}) {
    std::vector<int8_t> input(16 * 16 * 9, fill);
    EXPECT_EQ(run(kernel_avg_pool2d_s8_sum16, p, input), std::vector<int8_t>(9, fill));
    EXPECT_EQ(run(kernel_avg_pool2d_s8_sum32, p, input), std::vector<int8_t>(9, fill));
    EXPECT_EQ(run(kernel_max_pool2d_s8_words, p, input), std::vector<int8_t>(9, fill));
  }
  // Channel c: 128 cells of -128 and 128 of 127 plus c cells moved by one:
  // (-128 + 127) * 128 / 256 = -0.5 -> -1 (away from zero) for channel 0.
  std::vector<int8_t> input(16 * 16 * 9);
  for (int32_t cell = 0; cell < 256; ++cell)
    for (int32_t c = 0; c < 9; ++c)
      input[size_t(cell * 9 + c)] = static_cast<int8_t>(cell % 2 == 0 ? -128 : 127);
  input[1 * 9 + 1] = 126;   // channel 1: sum -129 -> -0.504 -> -1
  input[0 * 9 + 2] = -127;  // channel 2: sum -127 -> -0.496 -> 0
  const std::vector<int8_t> expected = run(kernel_avg_pool2d_s8_ref, p, input);
  EXPECT_EQ(expected[0], -1);
  EXPECT_EQ(expected[1], -1);
  EXPECT_EQ(expected[2], 0);
  EXPECT_EQ(run(kernel_avg_pool2d_s8_sum16, p, input), expected);
  EXPECT_EQ(run(kernel_avg_pool2d_s8_sum32, p, input), expected);
}

}  // namespace
}  // namespace tinyaot
