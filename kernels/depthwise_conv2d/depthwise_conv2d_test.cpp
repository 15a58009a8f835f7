// depthwise_conv2d_s8_ref through its descriptor: validate's refusals and
// small cases whose expected values are derived by hand in the comments.
#include "kernels/depthwise_conv2d/depthwise_conv2d.h"

#include <gtest/gtest.h>

#include <vector>

#include "kernels/common/quant.h"
#include "support/validate_support.h"

namespace tinyaot {
namespace {

// Multiplier 2^30 with shift 1 is exactly x * 2 * 0.5: requantization is the
// identity, so outputs are the raw accumulators.
constexpr ChannelQuant kIdentity = make_channel_quant(0, 1 << 30, 1);

DepthwiseConv2dParams base_params() {
  DepthwiseConv2dParams p{};
  p.batches = 1;
  p.input_h = 1;
  p.input_w = 2;
  p.input_depth = 2;
  p.depth_multiplier = 2;
  p.filter_h = 1;
  p.filter_w = 2;
  p.output_h = p.output_w = 1;
  p.stride_h = p.stride_w = 1;
  p.dilation_h = p.dilation_w = 1;
  p.pad_top = p.pad_left = 0;
  p.input_offset = 0;
  p.output_offset = 0;
  p.act_min = -128;
  p.act_max = 127;
  return p;
}

uint32_t depth(const DepthwiseConv2dParams& p) {
  return uint32_t(p.input_depth * p.depth_multiplier);
}

Status validate(const DepthwiseConv2dParams& p) {
  const uint32_t in[3] = {uint32_t(p.batches * p.input_h * p.input_w * p.input_depth),
                          uint32_t(p.filter_h * p.filter_w) * depth(p),
                          uint32_t(depth(p) * sizeof(ChannelQuant))};
  const uint32_t out[1] = {uint32_t(p.batches * p.output_h * p.output_w) * depth(p)};
  return test::validate_sizes_with_unit_quants(kernel_depthwise_conv2d_s8_ref, &p, in, 3, out, 1);
}

// Validates with these constants, as the loader does, then runs; returns
// the output.
std::vector<int8_t> run(const DepthwiseConv2dParams& p, std::vector<int8_t> input,
                        std::vector<int8_t> filter, std::vector<ChannelQuant> quant) {
  const uint32_t in[3] = {uint32_t(input.size()), uint32_t(filter.size()),
                          uint32_t(quant.size() * sizeof(ChannelQuant))};
  const uint32_t out[1] = {uint32_t(p.batches * p.output_h * p.output_w) * depth(p)};
  const void* constants[3] = {nullptr, nullptr, quant.data()};
  EXPECT_EQ(test::validate_sizes(kernel_depthwise_conv2d_s8_ref, &p, in, 3, out, 1, constants),
            Status::kOk);
  std::vector<int8_t> output(size_t(p.batches * p.output_h * p.output_w) * depth(p), 99);
  const Operand ins[3] = {{input.data(), uint32_t(input.size())},
                          {filter.data(), uint32_t(filter.size())},
                          {quant.data(), uint32_t(quant.size() * sizeof(ChannelQuant))}};
  const Operand outs[1] = {{output.data(), uint32_t(output.size())}};
  const KernelArgs args{&p, ins, 3, outs, 1, {nullptr, 0}, Rounding::kDouble};
  EXPECT_EQ(kernel_depthwise_conv2d_s8_ref.run(args), Status::kOk);
  return output;
}

TEST(DepthwiseConv2dS8Ref, ValidateAcceptsConsistentParams) {
  EXPECT_EQ(validate(base_params()), Status::kOk);
}

TEST(DepthwiseConv2dS8Ref, ValidateRejectsInconsistentSizes) {
  const DepthwiseConv2dParams p = base_params();  // input 4, filter 8, 4 channels
  const uint32_t quant = 4 * sizeof(ChannelQuant);
  const uint32_t good_in[3] = {4, 8, quant};
  const uint32_t good_out[1] = {4};
  EXPECT_EQ(test::validate_sizes_with_unit_quants(kernel_depthwise_conv2d_s8_ref, &p, good_in, 3,
                                                  good_out, 1),
            Status::kOk);
  const uint32_t long_input[3] = {5, 8, quant};
  const uint32_t short_filter[3] = {4, 4, quant};  // as if the multiplier were 1
  const uint32_t short_quant[3] = {4, 8, 2 * sizeof(ChannelQuant)};
  const uint32_t short_out[1] = {2};
  EXPECT_EQ(test::validate_sizes_with_unit_quants(kernel_depthwise_conv2d_s8_ref, &p, long_input, 3,
                                                  good_out, 1),
            Status::kBadParams);
  EXPECT_EQ(test::validate_sizes_with_unit_quants(kernel_depthwise_conv2d_s8_ref, &p, short_filter,
                                                  3, good_out, 1),
            Status::kBadParams);
  EXPECT_EQ(test::validate_sizes_with_unit_quants(kernel_depthwise_conv2d_s8_ref, &p, short_quant,
                                                  3, good_out, 1),
            Status::kBadParams);
  EXPECT_EQ(test::validate_sizes_with_unit_quants(kernel_depthwise_conv2d_s8_ref, &p, good_in, 3,
                                                  short_out, 1),
            Status::kBadParams);
  EXPECT_EQ(test::validate_sizes_with_unit_quants(kernel_depthwise_conv2d_s8_ref, &p, good_in, 2,
                                                  good_out, 1),
            Status::kBadParams);
}

TEST(DepthwiseConv2dS8Ref, ValidateRejectsBadDimsAndValues) {
  auto refused = [](void (*change)(DepthwiseConv2dParams&)) {
    DepthwiseConv2dParams p = base_params();
    change(p);
    return validate(p) == Status::kBadParams;
  };
  EXPECT_TRUE(refused([](DepthwiseConv2dParams& p) { p.depth_multiplier = 0; }));
  EXPECT_TRUE(refused([](DepthwiseConv2dParams& p) { p.input_depth = -2; }));
  EXPECT_TRUE(refused([](DepthwiseConv2dParams& p) { p.batches = 0; }));
  EXPECT_TRUE(refused([](DepthwiseConv2dParams& p) { p.filter_h = 0; }));
  EXPECT_TRUE(refused([](DepthwiseConv2dParams& p) { p.stride_w = 0; }));
  EXPECT_TRUE(refused([](DepthwiseConv2dParams& p) { p.dilation_h = 0; }));
  EXPECT_TRUE(refused([](DepthwiseConv2dParams& p) { p.pad_left = -1; }));
  EXPECT_TRUE(refused([](DepthwiseConv2dParams& p) { p.input_offset = -128; }));
  EXPECT_TRUE(refused([](DepthwiseConv2dParams& p) { p.act_max = 128; }));
  // A one-row window accepts any vertical dilation, but the kernels step
  // rows by dilation * row bytes in int32 (the loader fuzzer's case).
  EXPECT_FALSE(refused([](DepthwiseConv2dParams& p) { p.dilation_h = 1000; }));
  EXPECT_TRUE(refused([](DepthwiseConv2dParams& p) { p.dilation_h = 1476395019; }));
}

TEST(DepthwiseConv2dS8Ref, ValidateRejectsOverflowingDims) {
  DepthwiseConv2dParams p = base_params();
  p.input_depth = 1 << 16;
  p.depth_multiplier = 1 << 16;  // 2^32 output channels
  const uint32_t in[3] = {0, 0, 0};
  const uint32_t out[1] = {0};
  EXPECT_EQ(
      test::validate_sizes_with_unit_quants(kernel_depthwise_conv2d_s8_ref, &p, in, 3, out, 1),
      Status::kBadParams);
  p = base_params();
  p.output_w = 3;
  p.stride_w = 1 << 30;  // (3 - 1) * 2^30 past int32
  EXPECT_EQ(validate(p), Status::kBadParams);
}

TEST(DepthwiseConv2dS8Ref, DepthMultiplierTwo) {
  // Pixels [1, 2] and [3, 4] (2 channels), a 1x2 filter with 4 output
  // channels, o = c * 2 + m; taps kx=0 [1, 2, 3, 4], kx=1 [5, 6, 7, 8]:
  //   o0 (c0): 1*1 + 3*5 = 16    o1 (c0): 1*2 + 3*6 = 20
  //   o2 (c1): 2*3 + 4*7 = 34    o3 (c1): 2*4 + 4*8 = 40
  const auto out = run(base_params(), {1, 2, 3, 4}, {1, 2, 3, 4, 5, 6, 7, 8},
                       {kIdentity, kIdentity, kIdentity, kIdentity});
  EXPECT_EQ(out, (std::vector<int8_t>{16, 20, 34, 40}));
}

TEST(DepthwiseConv2dS8Ref, PaddingSkipsOutsideTapsWithInputOffset) {
  // Row [5, 7] with zero point 1 -> real [4, 6]; 1x3 filter [1, 2, 3],
  // padding 1 on the left, two outputs:
  //   out0: x=-1 skipped, 4*2 + 6*3 = 26
  //   out1: 4*1 + 6*2, x=2 skipped  = 16
  // bias -6 -> 20, 10; output offset 3 -> 23, 13.
  DepthwiseConv2dParams p = base_params();
  p.input_depth = 1;
  p.depth_multiplier = 1;
  p.filter_w = 3;
  p.output_w = 2;
  p.pad_left = 1;
  p.input_offset = -1;
  p.output_offset = 3;
  const auto out = run(p, {5, 7}, {1, 2, 3}, {make_channel_quant(-6, 1 << 30, 1)});
  EXPECT_EQ(out, (std::vector<int8_t>{23, 13}));
}

TEST(DepthwiseConv2dS8Ref, StrideAndDilation) {
  // 1x5 row [1, 2, 3, 4, 5], 1 channel, 1x2 filter [1, 10] with dilation 2
  // (taps x and x+2), stride 2, no padding: outputs at x = 0 and 2:
  //   1 + 3*10 = 31,  3 + 5*10 = 53
  DepthwiseConv2dParams p = base_params();
  p.input_w = 5;
  p.input_depth = 1;
  p.depth_multiplier = 1;
  p.output_w = 2;
  p.stride_w = 2;
  p.dilation_w = 2;
  const auto out = run(p, {1, 2, 3, 4, 5}, {1, 10}, {kIdentity});
  EXPECT_EQ(out, (std::vector<int8_t>{31, 53}));
}

TEST(DepthwiseConv2dS8Ref, ValidateRefusesACorruptShiftInTheConstants) {
  // Checked once, at load time: the kernel itself no longer re-checks.
  const DepthwiseConv2dParams p = base_params();
  const std::vector<ChannelQuant> quant = {kIdentity, kIdentity,
                                           make_channel_quant(0, 1 << 30, -32), kIdentity};
  const uint32_t in[3] = {4, 8, uint32_t(quant.size() * sizeof(ChannelQuant))};
  const uint32_t out[1] = {uint32_t(p.batches * p.output_h * p.output_w) * depth(p)};
  const void* constants[3] = {nullptr, nullptr, quant.data()};
  EXPECT_EQ(test::validate_sizes(kernel_depthwise_conv2d_s8_ref, &p, in, 3, out, 1, constants),
            Status::kBadParams);
  std::vector<ChannelQuant> good = quant;
  good[2] = kIdentity;
  constants[2] = good.data();
  EXPECT_EQ(test::validate_sizes(kernel_depthwise_conv2d_s8_ref, &p, in, 3, out, 1, constants),
            Status::kOk);
}

}  // namespace
}  // namespace tinyaot
