// FULLY_CONNECTED's MVE variant (input offset folded into the bias at
// compile time) against the reference kernel: bit-exact over random shapes
// in both rounding modes. (The reference accumulates with signed int32
// adds, so overflowing cases are left to the conv tests' wrapping checks.)
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "kernels/common/kernel_sums.h"
#include "kernels/common/quant.h"
#include "kernels/fully_connected/fully_connected.h"
#include "support/validate_support.h"

namespace tinyaot {
namespace {

int32_t uniform(std::mt19937& rng, int32_t lo, int32_t hi) {
  return std::uniform_int_distribution<int32_t>(lo, hi)(rng);
}

struct FcCase {
  FullyConnectedParams p{};
  std::vector<int8_t> input, filter;
  std::vector<ChannelQuant> quant;
};

FcCase random_case(std::mt19937& rng) {
  FcCase c;
  FullyConnectedParams& p = c.p;
  p.batches = uniform(rng, 1, 3);
  p.input_depth = uniform(rng, 1, 70);
  p.output_depth = uniform(rng, 1, 20);
  p.input_offset = uniform(rng, -127, 128);
  p.output_offset = uniform(rng, -128, 127);
  p.act_min = uniform(rng, -128, 20);
  p.act_max = uniform(rng, p.act_min, 127);
  c.input.resize(size_t(p.batches) * p.input_depth);
  c.filter.resize(size_t(p.output_depth) * p.input_depth);
  for (auto& v : c.input) v = int8_t(uniform(rng, -128, 127));
  for (auto& v : c.filter) v = int8_t(uniform(rng, -128, 127));
  for (int32_t o = 0; o < p.output_depth; ++o)
    c.quant.push_back(
        {uniform(rng, -20000, 20000), uniform(rng, 1 << 30, INT32_MAX), uniform(rng, -12, 1)});
  return c;
}

std::vector<int8_t> run_with(const KernelDescriptor& kernel, const FcCase& c,
                             const std::vector<ChannelQuant>& quant, Rounding rounding) {
  const FullyConnectedParams& p = c.p;
  const uint32_t in_bytes[3] = {uint32_t(c.input.size()), uint32_t(c.filter.size()),
                                uint32_t(quant.size() * sizeof(ChannelQuant))};
  std::vector<int8_t> output(size_t(p.batches) * p.output_depth, 99);
  const uint32_t out_bytes[1] = {uint32_t(output.size())};
  const void* constants[3] = {nullptr, nullptr, quant.data()};
  EXPECT_EQ(test::validate_sizes(kernel, &p, in_bytes, 3, out_bytes, 1, constants), Status::kOk)
      << kernel.name;
  const Operand ins[3] = {{const_cast<int8_t*>(c.input.data()), in_bytes[0]},
                          {const_cast<int8_t*>(c.filter.data()), in_bytes[1]},
                          {const_cast<ChannelQuant*>(quant.data()), in_bytes[2]}};
  const Operand outs[1] = {{output.data(), out_bytes[0]}};
  const KernelArgs args{&p, ins, 3, outs, 1, {nullptr, 0}, rounding};
  EXPECT_EQ(kernel.run(args), Status::kOk) << kernel.name;
  return output;
}

std::vector<ChannelQuant> folded(const FcCase& c) {
  std::vector<ChannelQuant> quant = c.quant;
  fold_input_offset(quant.data(), c.p.output_depth, c.filter.data(), c.p.input_depth,
                    c.p.input_offset);
  return quant;
}

// The folded variants against the reference, on random shapes (odd unit
// counts and depths exercise the pair and vector tails).
void check_folded_variant(const KernelDescriptor& kernel, uint32_t seed) {
  EXPECT_EQ(kernel.scratch_bytes, nullptr);
  std::mt19937 rng(seed);
  for (int iteration = 0; iteration < 500; ++iteration) {
    const FcCase c = random_case(rng);
    for (Rounding rounding : {Rounding::kDouble, Rounding::kSingle}) {
      ASSERT_EQ(run_with(kernel, c, folded(c), rounding),
                run_with(kernel_fully_connected_s8_ref, c, c.quant, rounding))
          << kernel.name << " iteration " << iteration << " rounding " << int(rounding);
    }
  }
}

TEST(FullyConnectedVariants, MveMatchesReference) {
  check_folded_variant(kernel_fully_connected_s8_mve, 31);
}

TEST(FullyConnectedVariants, DspMatchesReference) {
  check_folded_variant(kernel_fully_connected_s8_dsp, 32);
}

// 1 * 1 + 2 * (-3) = -5 raw; with input_offset 4 the reference adds
// 4 * (1 - 3) = -8, so the folded bias is 100 - 8 = 92.
TEST(FullyConnectedVariants, FoldAddsOffsetTimesRowSum) {
  const int8_t weights[2] = {1, -3};
  ChannelQuant quant{100, 1 << 30, 0};
  fold_input_offset(&quant, 1, weights, 2, 4);
  EXPECT_EQ(quant.bias, 92);
  EXPECT_EQ(kernel_sum(weights, 2), -2);
}

}  // namespace
}  // namespace tinyaot
