// conv2d_s8_ref through its descriptor: validate's refusals and small cases
// whose expected values are derived by hand in the comments.
#include "kernels/conv2d/conv2d.h"

#include <gtest/gtest.h>

#include <vector>

#include "kernels/common/quant.h"
#include "support/validate_support.h"

namespace tinyaot {
namespace {

// Multiplier 2^30 with shift 1 is exactly x * 2 * 0.5: requantization is the
// identity, so outputs are the raw accumulators.
constexpr ChannelQuant kIdentity = make_channel_quant(0, 1 << 30, 1);

Conv2dParams base_params() {
  Conv2dParams p{};
  p.batches = 1;
  p.input_h = p.input_w = 3;
  p.input_depth = 1;
  p.filter_h = p.filter_w = 3;
  p.filter_depth = 1;
  p.output_h = p.output_w = 3;
  p.output_depth = 1;
  p.stride_h = p.stride_w = 1;
  p.dilation_h = p.dilation_w = 1;
  p.pad_top = p.pad_left = 1;
  p.input_offset = 0;
  p.output_offset = 0;
  p.act_min = -128;
  p.act_max = 127;
  return p;
}

uint32_t input_bytes(const Conv2dParams& p) {
  return uint32_t(p.batches * p.input_h * p.input_w * p.input_depth);
}
uint32_t filter_bytes(const Conv2dParams& p) {
  return uint32_t(p.output_depth * p.filter_h * p.filter_w * p.filter_depth);
}
uint32_t output_bytes(const Conv2dParams& p) {
  return uint32_t(p.batches * p.output_h * p.output_w * p.output_depth);
}

Status validate(const Conv2dParams& p) {
  const uint32_t in[3] = {input_bytes(p), filter_bytes(p),
                          uint32_t(p.output_depth * sizeof(ChannelQuant))};
  const uint32_t out[1] = {output_bytes(p)};
  return test::validate_sizes_with_unit_quants(kernel_conv2d_s8_ref, &p, in, 3, out, 1);
}

// Validates with these constants, as the loader does, then runs; returns
// the output.
std::vector<int8_t> run(const Conv2dParams& p, std::vector<int8_t> input,
                        std::vector<int8_t> filter, std::vector<ChannelQuant> quant,
                        Rounding rounding = Rounding::kDouble) {
  const uint32_t in[3] = {input_bytes(p), filter_bytes(p),
                          uint32_t(quant.size() * sizeof(ChannelQuant))};
  const uint32_t out[1] = {output_bytes(p)};
  const void* constants[3] = {nullptr, nullptr, quant.data()};
  EXPECT_EQ(test::validate_sizes(kernel_conv2d_s8_ref, &p, in, 3, out, 1, constants), Status::kOk);
  EXPECT_EQ(input.size(), input_bytes(p));
  EXPECT_EQ(filter.size(), filter_bytes(p));
  EXPECT_EQ(quant.size(), size_t(p.output_depth));
  std::vector<int8_t> output(output_bytes(p), 99);
  const Operand ins[3] = {{input.data(), uint32_t(input.size())},
                          {filter.data(), uint32_t(filter.size())},
                          {quant.data(), uint32_t(quant.size() * sizeof(ChannelQuant))}};
  const Operand outs[1] = {{output.data(), uint32_t(output.size())}};
  const KernelArgs args{&p, ins, 3, outs, 1, {nullptr, 0}, rounding};
  EXPECT_EQ(kernel_conv2d_s8_ref.run(args), Status::kOk);
  return output;
}

TEST(Conv2dS8Ref, ValidateAcceptsConsistentParams) {
  EXPECT_EQ(validate(base_params()), Status::kOk);
}

TEST(Conv2dS8Ref, ValidateRejectsInconsistentSizes) {
  const Conv2dParams p = base_params();
  const uint32_t quant = sizeof(ChannelQuant);
  const uint32_t good_out[1] = {9};
  const uint32_t short_input[3] = {8, 9, quant};
  const uint32_t short_filter[3] = {9, 8, quant};
  const uint32_t short_quant[3] = {9, 9, quant - 1};
  const uint32_t big_out[1] = {10};
  const uint32_t good_in[3] = {9, 9, quant};
  EXPECT_EQ(
      test::validate_sizes_with_unit_quants(kernel_conv2d_s8_ref, &p, short_input, 3, good_out, 1),
      Status::kBadParams);
  EXPECT_EQ(
      test::validate_sizes_with_unit_quants(kernel_conv2d_s8_ref, &p, short_filter, 3, good_out, 1),
      Status::kBadParams);
  EXPECT_EQ(
      test::validate_sizes_with_unit_quants(kernel_conv2d_s8_ref, &p, short_quant, 3, good_out, 1),
      Status::kBadParams);
  EXPECT_EQ(test::validate_sizes_with_unit_quants(kernel_conv2d_s8_ref, &p, good_in, 3, big_out, 1),
            Status::kBadParams);
  EXPECT_EQ(
      test::validate_sizes_with_unit_quants(kernel_conv2d_s8_ref, &p, good_in, 2, good_out, 1),
      Status::kBadParams);
  EXPECT_EQ(
      test::validate_sizes_with_unit_quants(kernel_conv2d_s8_ref, &p, good_in, 3, good_out, 0),
      Status::kBadParams);
}

TEST(Conv2dS8Ref, ValidateChecksTheChannelConstantsOnce) {
  // The per-channel constants are checked at load time, by validate, so the
  // kernel never re-checks them: they must be a program constant (a buffer
  // in the arena could hold anything at run time), with shifts in [-31, 30]
  // and non-negative multipliers.
  const Conv2dParams p = base_params();
  const uint32_t in[3] = {9, 9, sizeof(ChannelQuant)};
  const uint32_t out[1] = {9};
  auto validate_with = [&](ChannelQuant q) {
    const void* constants[3] = {nullptr, nullptr, &q};
    return test::validate_sizes(kernel_conv2d_s8_ref, &p, in, 3, out, 1, constants);
  };
  EXPECT_EQ(validate_with(make_channel_quant(0, 1 << 30, 30)), Status::kOk);
  EXPECT_EQ(validate_with(make_channel_quant(0, 1 << 30, -31)), Status::kOk);
  EXPECT_EQ(validate_with(make_channel_quant(0, 1 << 30, 31)), Status::kBadParams);
  EXPECT_EQ(validate_with(make_channel_quant(0, 1 << 30, -32)), Status::kBadParams);
  EXPECT_EQ(validate_with(make_channel_quant(0, -1, 0)), Status::kBadParams);
  EXPECT_EQ(test::validate_sizes(kernel_conv2d_s8_ref, &p, in, 3, out, 1), Status::kBadParams)
      << "channel constants in the arena cannot be checked before the run";
}

TEST(Conv2dS8Ref, ValidateRejectsBadDimsAndValues) {
  auto refused = [](void (*change)(Conv2dParams&)) {
    Conv2dParams p = base_params();
    change(p);
    return validate(p) == Status::kBadParams;
  };
  EXPECT_TRUE(refused([](Conv2dParams& p) { p.batches = 0; }));
  EXPECT_TRUE(refused([](Conv2dParams& p) { p.input_h = -3; }));
  EXPECT_TRUE(refused([](Conv2dParams& p) { p.filter_w = 0; }));
  EXPECT_TRUE(refused([](Conv2dParams& p) { p.output_h = 0; }));
  EXPECT_TRUE(refused([](Conv2dParams& p) { p.stride_h = 0; }));
  EXPECT_TRUE(refused([](Conv2dParams& p) { p.dilation_w = -1; }));
  EXPECT_TRUE(refused([](Conv2dParams& p) { p.pad_top = -1; }));
  EXPECT_TRUE(refused([](Conv2dParams& p) { p.input_offset = 129; }));
  EXPECT_TRUE(refused([](Conv2dParams& p) { p.output_offset = -129; }));
  EXPECT_TRUE(refused([](Conv2dParams& p) { p.act_min = 10, p.act_max = 9; }));
  // 3 input channels cannot split into groups of 2.
  EXPECT_TRUE(refused([](Conv2dParams& p) { p.input_depth = 3, p.filter_depth = 2; }));
  // 2 groups of 1 channel, but 3 filters do not split over 2 groups.
  EXPECT_TRUE(refused([](Conv2dParams& p) { p.input_depth = 2, p.output_depth = 3; }));
}

TEST(Conv2dS8Ref, ValidateRejectsOverflowingDims) {
  Conv2dParams p = base_params();
  p.input_h = p.input_w = 1 << 16;  // 2^32 elements
  const uint32_t in[3] = {0, 9, sizeof(ChannelQuant)};
  const uint32_t out[1] = {9};
  EXPECT_EQ(test::validate_sizes_with_unit_quants(kernel_conv2d_s8_ref, &p, in, 3, out, 1),
            Status::kBadParams);
  // Window reach (output - 1) * stride past int32.
  p = base_params();
  p.stride_h = 1 << 30;
  EXPECT_EQ(validate(p), Status::kBadParams);
  p = base_params();
  p.dilation_w = 1 << 30;
  EXPECT_EQ(validate(p), Status::kBadParams);
}

TEST(Conv2dS8Ref, SamePaddingSkipsOutsideTaps) {
  // 3x3 image 1..9, 3x3 box filter of ones, padding 1: each output is the
  // sum of the pixel's in-image neighbourhood.
  //   1 2 3      12 21 16
  //   4 5 6  ->  27 45 33
  //   7 8 9      24 39 28
  // e.g. corner (0,0): 1+2+4+5 = 12; centre: 1+...+9 = 45.
  const auto out =
      run(base_params(), {1, 2, 3, 4, 5, 6, 7, 8, 9}, std::vector<int8_t>(9, 1), {kIdentity});
  EXPECT_EQ(out, (std::vector<int8_t>{12, 21, 16, 27, 45, 33, 24, 39, 28}));
}

TEST(Conv2dS8Ref, OffsetsBiasAndClamp) {
  // Input row [5, 3] with zero point 3 -> real [2, 0]; filter 1x3 [1, 2, 3],
  // padding 1 on the left, two outputs:
  //   out0: taps x=-1 (skipped), x=0: 2*2, x=1: 0*3          = 4
  //   out1: taps x=0: 2*1, x=1: 0*2, x=2 (skipped)          = 2
  // + bias 10 -> 14, 12; + output offset -5 -> 9, 7; clamp to max 8 -> 8, 7.
  Conv2dParams p = base_params();
  p.input_h = 1, p.input_w = 2;
  p.filter_h = 1, p.filter_w = 3;
  p.output_h = 1, p.output_w = 2;
  p.pad_top = 0, p.pad_left = 1;
  p.input_offset = -3;
  p.output_offset = -5;
  p.act_max = 8;
  const auto out = run(p, {5, 3}, {1, 2, 3}, {make_channel_quant(10, 1 << 30, 1)});
  EXPECT_EQ(out, (std::vector<int8_t>{8, 7}));
}

TEST(Conv2dS8Ref, DilationAndStride) {
  // 5x5 image v(y,x) = 5y + x, 2x2 filter of ones, dilation 2 (a 3x3 span),
  // stride 2, no padding: 2x2 outputs, each the sum of the 4 corners of its
  // 3x3 span:
  //   (0,0): v00+v02+v20+v22 = 0+2+10+12  = 24
  //   (0,1): v02+v04+v22+v24 = 2+4+12+14  = 32
  //   (1,0): v20+v22+v40+v42 = 10+12+20+22 = 64
  //   (1,1): v22+v24+v42+v44 = 12+14+22+24 = 72
  Conv2dParams p = base_params();
  p.input_h = p.input_w = 5;
  p.filter_h = p.filter_w = 2;
  p.output_h = p.output_w = 2;
  p.stride_h = p.stride_w = 2;
  p.dilation_h = p.dilation_w = 2;
  p.pad_top = p.pad_left = 0;
  std::vector<int8_t> image(25);
  for (int i = 0; i < 25; ++i) image[size_t(i)] = int8_t(i);
  const auto out = run(p, image, {1, 1, 1, 1}, {kIdentity});
  EXPECT_EQ(out, (std::vector<int8_t>{24, 32, 64, 72}));
}

TEST(Conv2dS8Ref, GroupedChannels) {
  // One pixel [1, 2, 3, 4], filters of depth 2: 2 groups, one filter each.
  //   filter 0 [1, 1] reads channels 0-1: 1 + 2         = 3
  //   filter 1 [1, 10] reads channels 2-3: 3 + 4 * 10  = 43
  Conv2dParams p = base_params();
  p.input_h = p.input_w = p.filter_h = p.filter_w = p.output_h = p.output_w = 1;
  p.pad_top = p.pad_left = 0;
  p.input_depth = 4;
  p.filter_depth = 2;
  p.output_depth = 2;
  const auto out = run(p, {1, 2, 3, 4}, {1, 1, 1, 10}, {kIdentity, kIdentity});
  EXPECT_EQ(out, (std::vector<int8_t>{3, 43}));
}

TEST(Conv2dS8Ref, RoundingModeReachesRequantization) {
  // acc = -2 (input -2, weight 1), scale 2^30 * 2^-1 / 2^31 = 0.25: -0.5.
  // Double rounding: SRDHM(-2, 2^30) = -1 (gemmlowp), then a rounding shift
  // by 1 of -1 rounds half away from zero -> -1.
  // Single rounding: (-2 * 2^30 + 2^31) >> 32 = 0.
  Conv2dParams p = base_params();
  p.input_h = p.input_w = p.filter_h = p.filter_w = p.output_h = p.output_w = 1;
  p.pad_top = p.pad_left = 0;
  const std::vector<ChannelQuant> quarter = {make_channel_quant(0, 1 << 30, -1)};
  EXPECT_EQ(run(p, {-2}, {1}, quarter, Rounding::kDouble), (std::vector<int8_t>{-1}));
  EXPECT_EQ(run(p, {-2}, {1}, quarter, Rounding::kSingle), (std::vector<int8_t>{0}));
}

}  // namespace
}  // namespace tinyaot
