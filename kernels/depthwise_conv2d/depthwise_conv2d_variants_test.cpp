// DEPTHWISE_CONV_2D's 3x3 and DSP variants, beyond the random sweep every
// variant gets against the reference (tests/variant_sweep/, on the host
// and on each emulated core): no scratch, shapes outside their case
// refused, and the DSP variant's weight order.
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

Status validate_with(const KernelDescriptor& kernel, const DepthwiseConv2dParams& p) {
  const uint32_t depth = uint32_t(output_depth(p));
  const uint32_t in[3] = {uint32_t(p.batches * p.input_h * p.input_w * p.input_depth),
                          uint32_t(p.filter_h * p.filter_w) * depth,
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

TEST(DepthwiseConv2dVariants, DspNeedsNoScratchAndRefusesMultipliers) {
  EXPECT_EQ(kernel_depthwise_conv2d_s8_dsp.scratch_bytes, nullptr);
  EXPECT_EQ(kernel_depthwise_conv2d_s8_dsp.isa, IsaClass::kDsp);
  sweep::Case c;
  sweep::Text detail;
  ASSERT_EQ(sweep::draw_case(kernel_depthwise_conv2d_s8_dsp, sweep::kDefaultSeed, 0, g_workspace,
                             &c, &detail),
            nullptr)
      << detail.c_str();
  const DepthwiseConv2dParams& base = c.p.depthwise;
  EXPECT_EQ(validate_with(kernel_depthwise_conv2d_s8_dsp, base), Status::kOk);
  DepthwiseConv2dParams multiplied = base;
  multiplied.depth_multiplier = 2;
  EXPECT_EQ(validate_with(kernel_depthwise_conv2d_s8_ref, multiplied), Status::kOk);
  EXPECT_EQ(validate_with(kernel_depthwise_conv2d_s8_dsp, multiplied), Status::kBadParams);
}

// Groups of four channels, each [ky][kx][4], then the rest [ky][kx][rest]:
// 2x2 taps of 6 channels, written out by hand.
TEST(DepthwiseConv2dVariants, DspWeightOrder) {
  DepthwiseConv2dParams p{};
  p.filter_h = 2;
  p.filter_w = 2;
  p.input_depth = 6;
  p.depth_multiplier = 1;
  std::vector<int8_t> model(24), ordered(24, -1);
  for (int32_t i = 0; i < 24; ++i) model[i] = static_cast<int8_t>(i);  // tap * 6 + channel
  order_depthwise_dsp_weights(p, model.data(), ordered.data());
  const std::vector<int8_t> expected = {0,  1,  2,  3,  6, 7, 8,  9,  12, 13, 14, 15,
                                        18, 19, 20, 21, 4, 5, 10, 11, 16, 17, 22, 23};
  EXPECT_EQ(ordered, expected);
}

}  // namespace
}  // namespace tinyaot
