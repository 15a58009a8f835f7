// DEPTHWISE_CONV_2D's 3x3, scalar and DSP variants, beyond the random
// sweep every variant gets against the reference (tests/variant_sweep/, on
// the host and on each emulated core): no scratch, shapes outside their
// case refused, and the DSP variant's weight order.
#include <gtest/gtest.h>

#include <vector>

#include "kernels/common/quant.h"
#include "kernels/depthwise_conv2d/depthwise_conv2d.h"
#include "kernels/depthwise_conv2d/depthwise_conv2d_cases.h"
#include "support/validate_support.h"
#include "tests/variant_sweep/variant_sweep.h"

namespace tinyaot {
namespace {

sweep::Workspace g_workspace;

int32_t output_depth(const DepthwiseConv2dParams& p) { return p.input_depth * p.depth_multiplier; }

Status validate_with(const KernelDescriptor& kernel, const DepthwiseConv2dParams& p,
                     uint32_t weight_bytes = 1) {
  const uint32_t depth = uint32_t(output_depth(p));
  const uint32_t in[3] = {uint32_t(p.batches * p.input_h * p.input_w * p.input_depth),
                          uint32_t(p.filter_h * p.filter_w) * depth * weight_bytes,
                          uint32_t(depth * sizeof(ChannelQuant))};
  const uint32_t out[1] = {uint32_t(p.batches * p.output_h * p.output_w) * depth};
  return test::validate_sizes_with_unit_quants(kernel, &p, in, 3, out, 1);
}

TEST(DepthwiseConv2dVariants, Filter3x3NeedsNoScratch) {
  EXPECT_EQ(kernel_depthwise_conv2d_s8_3x3.scratch_bytes, nullptr);
}

TEST(DepthwiseConv2dVariants, Filter3x3RefusesOtherShapes) {
  sweep::Case c;
  sweep::Text detail;
  ASSERT_EQ(sweep::draw_case(kernel_depthwise_conv2d_s8_3x3, sweep::kDefaultSeed, 0, g_workspace,
                             &c, &detail),
            nullptr)
      << detail.c_str();
  const DepthwiseConv2dParams& base = c.p.depthwise;
  EXPECT_EQ(validate_with(kernel_depthwise_conv2d_s8_3x3, base), Status::kOk);
  DepthwiseConv2dParams multiplied = base;
  multiplied.depth_multiplier = 2;
  EXPECT_EQ(validate_with(kernel_depthwise_conv2d_s8_ref, multiplied), Status::kOk);
  EXPECT_EQ(validate_with(kernel_depthwise_conv2d_s8_3x3, multiplied), Status::kBadParams);
  DepthwiseConv2dParams dilated = base;
  dilated.dilation_h = 2;
  dilated.input_h = 5;
  dilated.pad_top = 0;
  dilated.output_h = 1;
  EXPECT_EQ(validate_with(kernel_depthwise_conv2d_s8_ref, dilated), Status::kOk);
  EXPECT_EQ(validate_with(kernel_depthwise_conv2d_s8_3x3, dilated), Status::kBadParams);
  DepthwiseConv2dParams wide = base;
  wide.filter_w = 5;
  wide.input_w = 5;
  wide.pad_left = 0;
  wide.stride_w = 1;
  wide.output_w = 1;
  EXPECT_EQ(validate_with(kernel_depthwise_conv2d_s8_ref, wide), Status::kOk);
  EXPECT_EQ(validate_with(kernel_depthwise_conv2d_s8_3x3, wide), Status::kBadParams);
}

TEST(DepthwiseConv2dVariants, DspAndScalarNeedNoScratchAndTakeAnyMultiplier) {
  EXPECT_EQ(kernel_depthwise_conv2d_s8_dsp.scratch_bytes, nullptr);
  EXPECT_EQ(kernel_depthwise_conv2d_s8_dsp.isa, IsaClass::kDsp);
  EXPECT_EQ(kernel_depthwise_conv2d_s8_scalar.scratch_bytes, nullptr);
  EXPECT_EQ(kernel_depthwise_conv2d_s8_scalar.isa, IsaClass::kScalar);
  DepthwiseConv2dParams p{};
  p.batches = 1;
  p.input_h = p.input_w = 5;
  p.input_depth = 3;
  p.depth_multiplier = 6;
  p.filter_h = 2;
  p.filter_w = 3;
  p.output_h = 4;
  p.output_w = 3;
  p.stride_h = p.stride_w = 1;
  p.dilation_h = 1;
  p.dilation_w = 1;
  p.act_min = -128;
  p.act_max = 127;
  EXPECT_EQ(validate_with(kernel_depthwise_conv2d_s8_scalar, p), Status::kOk);
  // The DSP variant's weights are the model's bytes (int8), reordered.
  EXPECT_EQ(validate_with(kernel_depthwise_conv2d_s8_dsp, p), Status::kOk);
  EXPECT_EQ(validate_with(kernel_depthwise_conv2d_s8_dsp, p, 2), Status::kBadParams);
}

// The DSP variant widens a group's weights on its stack: up to
// kDepthwiseDspMaxTaps taps (7x7), larger filters go to the scalar one.
TEST(DepthwiseConv2dVariants, DspTakesFiltersUpToItsStackBlock) {
  DepthwiseConv2dParams p{};
  p.batches = 1;
  p.input_h = p.input_w = 9;
  p.input_depth = 4;
  p.depth_multiplier = 1;
  p.filter_h = p.filter_w = 7;
  p.output_h = p.output_w = 3;
  p.stride_h = p.stride_w = 1;
  p.dilation_h = p.dilation_w = 1;
  p.act_min = -128;
  p.act_max = 127;
  EXPECT_TRUE(is_depthwise_dsp_case(p));
  EXPECT_EQ(validate_with(kernel_depthwise_conv2d_s8_dsp, p), Status::kOk);
  DepthwiseConv2dParams larger = p;
  larger.filter_w = 8;
  larger.output_w = 2;
  EXPECT_FALSE(is_depthwise_dsp_case(larger));
  EXPECT_EQ(validate_with(kernel_depthwise_conv2d_s8_dsp, larger), Status::kBadParams);
  EXPECT_EQ(validate_with(kernel_depthwise_conv2d_s8_scalar, larger), Status::kOk);
}

// kws's depthwise layer: 25x5, 3x3, padding 1, stride 1: windows of 2
// (at the edges) and 3 taps, so the 3x3 build takes it; with one input
// row (one tap at most vertically), a 1x1 or 5x5 filter, multiplier 2 or
// its windows cut to one tap by the stride and padding it does not.
TEST(DepthwiseConv2dVariants, Dsp3x3TakesWindowsOfTwoOrThreeTapsOnly) {
  DepthwiseConv2dParams p{};
  p.batches = 1;
  p.input_h = p.output_h = 25;
  p.input_w = p.output_w = 5;
  p.input_depth = 6;  // one group and two singles
  p.depth_multiplier = 1;
  p.filter_h = p.filter_w = 3;
  p.stride_h = p.stride_w = 1;
  p.dilation_h = p.dilation_w = 1;
  p.pad_top = p.pad_left = 1;
  p.act_min = -128;
  p.act_max = 127;
  EXPECT_TRUE(is_depthwise_dsp_3x3_case(p));
  EXPECT_EQ(validate_with(kernel_depthwise_conv2d_s8_dsp_3x3, p), Status::kOk);
  EXPECT_EQ(validate_with(kernel_depthwise_conv2d_s8_dsp_3x3, p, 2), Status::kBadParams);
  DepthwiseConv2dParams one_row = p;
  one_row.input_h = one_row.output_h = 1;
  DepthwiseConv2dParams multiplied = p;
  multiplied.depth_multiplier = 2;
  DepthwiseConv2dParams wide = p;
  wide.filter_w = 5;
  wide.pad_left = 2;
  DepthwiseConv2dParams skipping = p;  // stride 3, padding 2: the first window holds one tap
  skipping.stride_w = 3;
  skipping.pad_left = 2;
  skipping.output_w = 2;
  for (const DepthwiseConv2dParams& q : {one_row, multiplied, wide, skipping}) {
    EXPECT_FALSE(is_depthwise_dsp_3x3_case(q));
    EXPECT_EQ(validate_with(kernel_depthwise_conv2d_s8_dsp, q), Status::kOk);
    EXPECT_EQ(validate_with(kernel_depthwise_conv2d_s8_dsp_3x3, q), Status::kBadParams);
  }
}

// The stride of the loader regression depthwise-dsp-stride-row-step-
// overflow: an input 3x64x64, a 3x3 filter, an output of 2x62 whose second
// row's window starts 2^20 rows down. Every window axis fits int32, but
// the DSP variant steps between output rows by stride_h * input_w * depth
// (2^32) and the MVE one forms each window's byte offset from the image
// (the same product): the plane the windows span (is_window_2d), 2^21 + 3
// rows (two strides and the filter) of 65 pixels of 64 bytes, is past
// int32, so every variant refuses it. With a stride of 2 the plane is 29 KB
// and each variant whose case it is takes it.
TEST(DepthwiseConv2dVariants, EveryVariantRefusesARowStepPastInt32) {
  DepthwiseConv2dParams p{};
  p.batches = 1;
  p.input_h = 3;
  p.input_w = p.input_depth = 64;
  p.depth_multiplier = 1;
  p.filter_h = p.filter_w = 3;
  p.output_h = 2;
  p.output_w = 62;
  p.stride_h = 2;
  p.stride_w = 1;
  p.dilation_h = p.dilation_w = 1;
  p.act_min = -128;
  p.act_max = 127;
  const KernelDescriptor* const taking[] = {
      &kernel_depthwise_conv2d_s8_ref, &kernel_depthwise_conv2d_s8_scalar,
      &kernel_depthwise_conv2d_s8_3x3, &kernel_depthwise_conv2d_s8_dsp,
      &kernel_depthwise_conv2d_s8_mve};
  for (const KernelDescriptor* kernel : taking)
    EXPECT_EQ(validate_with(*kernel, p), Status::kOk) << kernel->name;
  DepthwiseConv2dParams far = p;
  far.stride_h = 1 << 20;
  EXPECT_EQ(int64_t{far.stride_h} * far.input_w * far.input_depth, int64_t{1} << 32);
  for (const KernelDescriptor* kernel : taking)
    EXPECT_EQ(validate_with(*kernel, far), Status::kBadParams) << kernel->name;
  EXPECT_EQ(validate_with(kernel_depthwise_conv2d_s8_dsp_3x3, far), Status::kBadParams);
}

// 6 input channels, multiplier 1, one row of 2 taps: one channel group
// (per tap one word, its channels in order), then the two rest channels
// as a multiplier has no group of four: singles, each channel's taps
// together. The model's bytes, no more.
TEST(DepthwiseConv2dVariants, DspWeightOrderChannelGroupsThenSingles) {
  DepthwiseConv2dParams p{};
  p.filter_h = 1;
  p.filter_w = 2;
  p.input_depth = 6;
  p.depth_multiplier = 1;
  std::vector<int8_t> model(12), ordered(12, 99);
  for (int32_t i = 0; i < 12; ++i) model[i] = static_cast<int8_t>(i - 6);  // tap * 6 + o - 6
  order_depthwise_dsp_weights(p, model.data(), ordered.data());
  const std::vector<int8_t> expected = {-6, -5, -4, -3, 0, 1, 2, 3,  // group: tap 0, tap 1
                                        -2, 4,  -1, 5};              // channel 4, channel 5
  EXPECT_EQ(ordered, expected);
}

// 1 input channel, multiplier 5, one tap: the first four outputs a
// multiplier group (one word, o0..o3), the fifth a single.
TEST(DepthwiseConv2dVariants, DspWeightOrderMultiplierGroups) {
  DepthwiseConv2dParams p{};
  p.filter_h = 1;
  p.filter_w = 1;
  p.input_depth = 1;
  p.depth_multiplier = 5;
  const std::vector<int8_t> model = {10, 11, 12, 13, -14};
  std::vector<int8_t> ordered(5, 99);
  order_depthwise_dsp_weights(p, model.data(), ordered.data());
  EXPECT_EQ(ordered, model);
}

}  // namespace
}  // namespace tinyaot
