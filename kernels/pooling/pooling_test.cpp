// Pooling kernels through their descriptors: validate's refusals and
// hand-computed windows (SAME padding with a partial last row/column).
#include "kernels/pooling/pooling.h"

#include <gtest/gtest.h>

#include <vector>

#include "support/validate_support.h"

namespace tinyaot {
namespace {

// 1x3x3x1 input, 2x2 filter, stride 2, SAME: output 2x2, padding 0 before
// and 1 after on each axis, so the last row/column windows are partial.
Pool2dParams same_2x2_over_3x3() {
  Pool2dParams p{};
  p.batches = 1;
  p.input_h = p.input_w = 3;
  p.channels = 1;
  p.output_h = p.output_w = 2;
  p.filter_h = p.filter_w = 2;
  p.stride_h = p.stride_w = 2;
  p.pad_top = p.pad_left = 0;
  p.act_min = -128;
  p.act_max = 127;
  return p;
}

Status validate(const KernelDescriptor& k, const Pool2dParams& p, uint32_t in, uint32_t out) {
  return test::validate_sizes(k, &p, &in, 1, &out, 1);
}

std::vector<int8_t> run(const KernelDescriptor& k, const Pool2dParams& p, std::vector<int8_t> input,
                        Rounding rounding = Rounding::kDouble) {
  std::vector<int8_t> output(static_cast<size_t>(p.batches * p.output_h * p.output_w * p.channels));
  const uint32_t in_bytes = static_cast<uint32_t>(input.size());
  const uint32_t out_bytes = static_cast<uint32_t>(output.size());
  EXPECT_EQ(test::validate_sizes(k, &p, &in_bytes, 1, &out_bytes, 1), Status::kOk);
  Operand in{input.data(), in_bytes};
  Operand out{output.data(), out_bytes};
  KernelArgs args{&p, &in, 1, &out, 1, {nullptr, 0}, rounding};
  EXPECT_EQ(k.run(args), Status::kOk);
  return output;
}

const std::vector<int8_t> kGrid = {1, 2, 3, 4, 5, 6, 7, 8, 10};

TEST(Pooling, ValidateAcceptsConsistentParams) {
  EXPECT_EQ(validate(kernel_avg_pool2d_s8_ref, same_2x2_over_3x3(), 9, 4), Status::kOk);
  EXPECT_EQ(validate(kernel_max_pool2d_s8_ref, same_2x2_over_3x3(), 9, 4), Status::kOk);
}

TEST(Pooling, ValidateRejectsInconsistentParams) {
  for (const KernelDescriptor* k : {&kernel_avg_pool2d_s8_ref, &kernel_max_pool2d_s8_ref}) {
    EXPECT_NE(validate(*k, same_2x2_over_3x3(), 8, 4), Status::kOk);  // input size
    EXPECT_NE(validate(*k, same_2x2_over_3x3(), 9, 5), Status::kOk);  // output size
    Pool2dParams p = same_2x2_over_3x3();
    p.channels = 0;
    EXPECT_NE(validate(*k, p, 0, 0), Status::kOk);
    p = same_2x2_over_3x3();
    p.stride_w = -2;
    EXPECT_NE(validate(*k, p, 9, 4), Status::kOk);
    p = same_2x2_over_3x3();
    p.filter_h = 0;
    EXPECT_NE(validate(*k, p, 9, 4), Status::kOk);
    p = same_2x2_over_3x3();
    p.pad_left = -1;
    EXPECT_NE(validate(*k, p, 9, 4), Status::kOk);
    // The first window would lie entirely in the padding.
    p = same_2x2_over_3x3();
    p.pad_top = 2;
    EXPECT_NE(validate(*k, p, 9, 4), Status::kOk);
    // The last window would start past the input: 2 * 2 >= 3.
    p = same_2x2_over_3x3();
    p.output_h = 3;
    EXPECT_NE(validate(*k, p, 9, 6), Status::kOk);
    // A huge stride would overflow the window origin.
    p = same_2x2_over_3x3();
    p.stride_h = INT32_MAX;
    EXPECT_NE(validate(*k, p, 9, 4), Status::kOk);
    // Dimensions whose product overflows.
    p = same_2x2_over_3x3();
    p.batches = 1 << 20;
    p.channels = 1 << 20;
    EXPECT_NE(validate(*k, p, 0, 0), Status::kOk);
    p = same_2x2_over_3x3();
    p.act_min = 5;
    p.act_max = 4;
    EXPECT_NE(validate(*k, p, 9, 4), Status::kOk);
    const uint32_t bytes[2] = {9, 9};
    p = same_2x2_over_3x3();
    EXPECT_NE(test::validate_sizes(*k, &p, bytes, 2, bytes, 1), Status::kOk);
  }
}

TEST(Pooling, AverageDividesByCellsInsideTheInputAndRoundsAwayFromZero) {
  // Windows: {1,2,4,5} = 12/4 = 3; {3,6} = 9/2 = 4.5 -> 5; {7,8} = 15/2 =
  // 7.5 -> 8; {10} = 10.
  EXPECT_EQ(run(kernel_avg_pool2d_s8_ref, same_2x2_over_3x3(), kGrid),
            (std::vector<int8_t>{3, 5, 8, 10}));
  // Negated: -4.5 -> -5 and -7.5 -> -8 (away from zero, not up).
  std::vector<int8_t> negated;
  for (int8_t v : kGrid) negated.push_back(static_cast<int8_t>(-v));
  EXPECT_EQ(run(kernel_avg_pool2d_s8_ref, same_2x2_over_3x3(), negated),
            (std::vector<int8_t>{-3, -5, -8, -10}));
  // -1/4 = -0.25 -> 0; -5/2 = -2.5 -> -3; (-128 + 127)/2 = -0.5 -> -1; 0.
  Pool2dParams p = same_2x2_over_3x3();
  EXPECT_EQ(run(kernel_avg_pool2d_s8_ref, p, {-1, 0, -2, 0, 0, -3, -128, 127, 0}),
            (std::vector<int8_t>{0, -3, -1, 0}));
}

TEST(Pooling, AverageClampsToTheActivationRange) {
  Pool2dParams p = same_2x2_over_3x3();
  p.act_min = 4;
  p.act_max = 6;
  EXPECT_EQ(run(kernel_avg_pool2d_s8_ref, p, kGrid), (std::vector<int8_t>{4, 5, 6, 6}));
}

TEST(Pooling, MaxTakesTheLargestCellInsideTheInput) {
  EXPECT_EQ(run(kernel_max_pool2d_s8_ref, same_2x2_over_3x3(), kGrid),
            (std::vector<int8_t>{5, 6, 8, 10}));
  // All -128 except one cell: windows without it stay -128.
  EXPECT_EQ(run(kernel_max_pool2d_s8_ref, same_2x2_over_3x3(),
                {-128, -128, -128, -128, -128, -128, -128, -128, -127}),
            (std::vector<int8_t>{-128, -128, -128, -127}));
}

TEST(Pooling, MaxClampsToTheActivationRange) {
  Pool2dParams p = same_2x2_over_3x3();
  p.act_min = 6;
  p.act_max = 7;
  EXPECT_EQ(run(kernel_max_pool2d_s8_ref, p, kGrid), (std::vector<int8_t>{6, 6, 7, 7}));
}

TEST(Pooling, ChannelsAndBatchesAreIndependent) {
  // 2 batches of 1x2x2x2, 2x2 VALID filter: one output pixel per batch,
  // averaging each channel separately.
  Pool2dParams p{};
  p.batches = 2;
  p.input_h = p.input_w = 2;
  p.channels = 2;
  p.output_h = p.output_w = 1;
  p.filter_h = p.filter_w = 2;
  p.stride_h = p.stride_w = 1;
  p.act_min = -128;
  p.act_max = 127;
  // Batch 0: channel 0 = {1,2,3,4} -> 10/4 = 2.5 -> 3; channel 1 =
  // {-1,-1,-1,-2} -> -5/4 = -1.25 -> -1. Batch 1: channel 0 all 100 -> 100;
  // channel 1 = {-128,-128,-128,-127} -> -511/4 = -127.75 -> -128.
  const std::vector<int8_t> input = {1,   -1,   2,   -1,   3,   -1,   4,   -2,
                                     100, -128, 100, -128, 100, -128, 100, -127};
  EXPECT_EQ(run(kernel_avg_pool2d_s8_ref, p, input), (std::vector<int8_t>{3, -1, 100, -128}));
  EXPECT_EQ(run(kernel_max_pool2d_s8_ref, p, input), (std::vector<int8_t>{4, -1, 100, -127}));
}

}  // namespace
}  // namespace tinyaot
