// FULLY_CONNECTED's folded input offset (the MVE and DSP variants take it;
// both are swept against the reference in tests/variant_sweep/, on the
// host and on each emulated core).
#include <gtest/gtest.h>

#include "kernels/common/kernel_sums.h"
#include "kernels/common/quant.h"

namespace tinyaot {
namespace {

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
