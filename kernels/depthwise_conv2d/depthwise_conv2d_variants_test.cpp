// DEPTHWISE_CONV_2D's 3x3 variant against the reference kernel: bit-exact
// over random shapes, strides and paddings in both rounding modes, and
// refused outside its case.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "kernels/common/quant.h"
#include "kernels/depthwise_conv2d/depthwise_conv2d.h"
#include "kernels/depthwise_conv2d/depthwise_conv2d_cases.h"
#include "support/validate_support.h"

namespace tinyaot {
namespace {

int32_t uniform(std::mt19937& rng, int32_t lo, int32_t hi) {
  return std::uniform_int_distribution<int32_t>(lo, hi)(rng);
}

struct DepthwiseCase {
  DepthwiseConv2dParams p{};
  std::vector<int8_t> input, filter;
  std::vector<ChannelQuant> quant;
};

int32_t output_depth(const DepthwiseConv2dParams& p) { return p.input_depth * p.depth_multiplier; }

// A 3x3 window with random stride and padding on both sides (up to a
// whole window, so some pixels see no tap at all).
void random_axis(std::mt19937& rng, int32_t* input, int32_t* stride, int32_t* pad,
                 int32_t* output) {
  for (;;) {
    *input = uniform(rng, 1, 10);
    *stride = uniform(rng, 1, 3);
    *pad = uniform(rng, 0, 3);
    const int32_t span = *input + *pad + uniform(rng, 0, 3) - 3;
    if (span < 0) continue;
    *output = span / *stride + 1;
    return;
  }
}

DepthwiseCase random_case(std::mt19937& rng) {
  DepthwiseCase c;
  DepthwiseConv2dParams& p = c.p;
  p.batches = uniform(rng, 1, 2);
  p.filter_h = p.filter_w = 3;
  p.dilation_h = p.dilation_w = 1;
  p.depth_multiplier = 1;
  random_axis(rng, &p.input_h, &p.stride_h, &p.pad_top, &p.output_h);
  random_axis(rng, &p.input_w, &p.stride_w, &p.pad_left, &p.output_w);
  // Around the 16-channel block: below, at, across.
  const int32_t depths[] = {1, 3, 8, 15, 16, 17, 32, 40};
  p.input_depth = depths[uniform(rng, 0, 7)];
  p.input_offset = uniform(rng, -127, 128);
  p.output_offset = uniform(rng, -128, 127);
  p.act_min = uniform(rng, -128, 20);
  p.act_max = uniform(rng, p.act_min, 127);
  c.input.resize(size_t(p.batches) * p.input_h * p.input_w * p.input_depth);
  c.filter.resize(size_t(9) * output_depth(p));
  for (auto& v : c.input) v = int8_t(uniform(rng, -128, 127));
  for (auto& v : c.filter) v = int8_t(uniform(rng, -128, 127));
  for (int32_t o = 0; o < output_depth(p); ++o)
    c.quant.push_back(
        {uniform(rng, -20000, 20000), uniform(rng, 1 << 30, INT32_MAX), uniform(rng, -12, 1)});
  return c;
}

Status validate_with(const KernelDescriptor& kernel, const DepthwiseConv2dParams& p) {
  const uint32_t depth = uint32_t(output_depth(p));
  const uint32_t in[3] = {uint32_t(p.batches * p.input_h * p.input_w * p.input_depth),
                          uint32_t(p.filter_h * p.filter_w) * depth,
                          uint32_t(depth * sizeof(ChannelQuant))};
  const uint32_t out[1] = {uint32_t(p.batches * p.output_h * p.output_w) * depth};
  return test::validate_sizes_with_unit_quants(kernel, &p, in, 3, out, 1);
}

std::vector<int8_t> run_with(const KernelDescriptor& kernel, const DepthwiseCase& c,
                             Rounding rounding) {
  const DepthwiseConv2dParams& p = c.p;
  EXPECT_EQ(validate_with(kernel, p), Status::kOk) << kernel.name;
  std::vector<int8_t> output(size_t(p.batches) * p.output_h * p.output_w * output_depth(p), 99);
  const Operand ins[3] = {
      {const_cast<int8_t*>(c.input.data()), uint32_t(c.input.size())},
      {const_cast<int8_t*>(c.filter.data()), uint32_t(c.filter.size())},
      {const_cast<ChannelQuant*>(c.quant.data()), uint32_t(c.quant.size() * sizeof(ChannelQuant))}};
  const Operand outs[1] = {{output.data(), uint32_t(output.size())}};
  const KernelArgs args{&p, ins, 3, outs, 1, {nullptr, 0}, rounding};
  EXPECT_EQ(kernel.run(args), Status::kOk) << kernel.name;
  return output;
}

TEST(DepthwiseConv2dVariants, Filter3x3MatchesReference) {
  EXPECT_EQ(kernel_depthwise_conv2d_s8_3x3.scratch_bytes, nullptr);
  std::mt19937 rng(21);
  for (int iteration = 0; iteration < 400; ++iteration) {
    const DepthwiseCase c = random_case(rng);
    for (Rounding rounding : {Rounding::kDouble, Rounding::kSingle}) {
      ASSERT_EQ(run_with(kernel_depthwise_conv2d_s8_3x3, c, rounding),
                run_with(kernel_depthwise_conv2d_s8_ref, c, rounding))
          << "iteration " << iteration << " rounding " << int(rounding);
    }
  }
}

TEST(DepthwiseConv2dVariants, Filter3x3WrapsLikeTheReference) {
  std::mt19937 rng(22);
  DepthwiseCase c = random_case(rng);
  for (auto& q : c.quant) q.bias = INT32_MIN + 3;
  for (auto& v : c.input) v = -128;
  for (auto& v : c.filter) v = 127;
  c.p.input_offset = -127;
  EXPECT_EQ(run_with(kernel_depthwise_conv2d_s8_3x3, c, Rounding::kDouble),
            run_with(kernel_depthwise_conv2d_s8_ref, c, Rounding::kDouble));
}

TEST(DepthwiseConv2dVariants, Filter3x3RefusesOtherShapes) {
  std::mt19937 rng(23);
  const DepthwiseCase c = random_case(rng);
  EXPECT_EQ(validate_with(kernel_depthwise_conv2d_s8_3x3, c.p), Status::kOk);
  DepthwiseConv2dParams multiplied = c.p;
  multiplied.depth_multiplier = 2;
  EXPECT_EQ(validate_with(kernel_depthwise_conv2d_s8_ref, multiplied), Status::kOk);
  EXPECT_EQ(validate_with(kernel_depthwise_conv2d_s8_3x3, multiplied), Status::kBadParams);
  DepthwiseConv2dParams dilated = c.p;
  dilated.dilation_h = 2;
  dilated.input_h = 5;
  dilated.pad_top = 0;
  dilated.output_h = 1;
  EXPECT_EQ(validate_with(kernel_depthwise_conv2d_s8_ref, dilated), Status::kOk);
  EXPECT_EQ(validate_with(kernel_depthwise_conv2d_s8_3x3, dilated), Status::kBadParams);
  DepthwiseConv2dParams wide = c.p;
  wide.filter_w = 5;
  wide.input_w = 5;
  wide.pad_left = 0;
  wide.stride_w = 1;
  wide.output_w = 1;
  EXPECT_EQ(validate_with(kernel_depthwise_conv2d_s8_ref, wide), Status::kOk);
  EXPECT_EQ(validate_with(kernel_depthwise_conv2d_s8_3x3, wide), Status::kBadParams);
}

}  // namespace
}  // namespace tinyaot
