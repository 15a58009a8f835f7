// FULLY_CONNECTED's folded input offset (the MVE, DSP and blocked variants
// take it) and the row-blocked weight layout (DSP and blocked variants).
// Every variant is swept against the reference in tests/variant_sweep/, on
// the host and on each emulated core.
#include <gtest/gtest.h>

#include <vector>

#include "kernels/common/kernel_sums.h"
#include "kernels/common/quant.h"
#include "kernels/fully_connected/fully_connected_blocks.h"
#include "tinyaot/kernel_abi.h"
#include "tinyaot/status.h"

namespace tinyaot {
namespace {

// 1 * 1 + 2 * (-3) = -5 raw; with input_offset 4 the reference adds
// 4 * (1 - 3) = -8, so the folded bias is 100 - 8 = 92.
TEST(FullyConnectedVariants, FoldAddsOffsetTimesRowSum) {
  const int8_t weights[2] = {1, -3};
  ChannelQuant quant = make_channel_quant(100, 1 << 30, 0);
  fold_input_offset(&quant, 1, weights, 2, 4);
  EXPECT_EQ(quant.bias, 92);
  EXPECT_EQ(kernel_sum(weights, 2), -2);
}

// Weight [unit][d] = 10 * unit + d, 5 units of depth 6: units 0-3 form a
// block (a group of four depths, four bytes per row, then each row's last
// two), unit 4 stays as it is.
std::vector<int8_t> model_5x6() {
  std::vector<int8_t> model;
  for (int unit = 0; unit < 5; ++unit)
    for (int d = 0; d < 6; ++d) model.push_back(static_cast<int8_t>(10 * unit + d));
  return model;
}

const std::vector<int8_t> kBlocked5x6 = {0,  1, 2, 3,  10, 11, 12, 13, 20, 21, 22, 23, 30, 31, 32,
                                         33, 4, 5, 14, 15, 24, 25, 34, 35, 40, 41, 42, 43, 44, 45};

TEST(FullyConnectedVariants, BlockedLayoutInterleavesFourRowsByFourDepths) {
  const std::vector<int8_t> model = model_5x6();
  std::vector<int8_t> ordered(model.size());
  order_fully_connected_weights(5, 6, FcWeightCode::kSigned, model.data(), ordered.data());
  EXPECT_EQ(ordered, kBlocked5x6);
}

TEST(FullyConnectedVariants, OffsetBinaryAdds128ToEveryWeight) {
  const std::vector<int8_t> model = {-128, -1, 0, 127};
  std::vector<int8_t> ordered(model.size());
  order_fully_connected_weights(1, 4, FcWeightCode::kOffsetBinary, model.data(), ordered.data());
  const std::vector<uint8_t> expected = {0, 127, 128, 255};
  for (size_t i = 0; i < model.size(); ++i)
    EXPECT_EQ(static_cast<uint8_t>(ordered[i]), expected[i]) << i;
}

TEST(FullyConnectedVariants, BlockedLayoutIsAPermutation) {
  const int32_t units = 11, depth = 7;
  std::vector<int> hits(size_t(units * depth), 0);
  for (int32_t unit = 0; unit < units; ++unit)
    for (int32_t d = 0; d < depth; ++d) ++hits[size_t(fc_block_position(units, depth, unit, d))];
  for (int h : hits) EXPECT_EQ(h, 1);
}

TEST(FullyConnectedVariants, LayoutBelongsToTheVariants) {
  EXPECT_TRUE(fully_connected_variant_blocks_weights(&kernel_fully_connected_s8_dsp));
  EXPECT_TRUE(fully_connected_variant_blocks_weights(&kernel_fully_connected_s8_blocked));
  EXPECT_FALSE(fully_connected_variant_blocks_weights(&kernel_fully_connected_s8_mve));
  EXPECT_FALSE(fully_connected_variant_blocks_weights(&kernel_fully_connected_s8_ref));
  EXPECT_EQ(fully_connected_weight_code(&kernel_fully_connected_s8_dsp), FcWeightCode::kSigned);
  EXPECT_EQ(fully_connected_weight_code(&kernel_fully_connected_s8_blocked),
            FcWeightCode::kOffsetBinary);
}

// The blocked variants read a block's weights as aligned words (LDRD): a
// filter constant off a 4-byte boundary is refused at load time.
TEST(FullyConnectedVariants, BlockedVariantsRefuseAMisalignedFilter) {
  FullyConnectedParams p{1, 4, 4, 0, 0, -128, 127};
  alignas(16) int8_t filter[20] = {};
  const ChannelQuant quant[4] = {
      make_channel_quant(0, 1 << 30, -1), make_channel_quant(0, 1 << 30, -1),
      make_channel_quant(0, 1 << 30, -1), make_channel_quant(0, 1 << 30, -1)};
  const OperandView outputs[1] = {{nullptr, 4}};
  for (const KernelDescriptor* kernel :
       {&kernel_fully_connected_s8_dsp, &kernel_fully_connected_s8_blocked}) {
    const OperandView aligned[3] = {{nullptr, 4}, {filter, 16}, {quant, sizeof(quant)}};
    EXPECT_EQ(kernel->validate(&p, aligned, 3, outputs, 1), Status::kOk) << kernel->name;
    const OperandView shifted[3] = {{nullptr, 4}, {filter + 2, 16}, {quant, sizeof(quant)}};
    EXPECT_EQ(kernel->validate(&p, shifted, 3, outputs, 1), Status::kMisaligned) << kernel->name;
  }
}

}  // namespace
}  // namespace tinyaot
