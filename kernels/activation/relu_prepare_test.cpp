// RELU's requantization constants as TFLite Micro derives them.
#include <gtest/gtest.h>

#include "kernels/activation/activation_prepare.h"
#include "kernels/common/quantize_multiplier.h"

namespace tinyaot {
namespace {

TEST(ReluPrepare, DividesTheScalesInFloatAsTfliteMicro) {
  // CalculateReluOpData takes input_scale / output_scale in float; these
  // scales (found by search) give another multiplier in double.
  const float in = 0.026251833885908127f, out = 0.05004807189106941f;
  const QuantizedMultiplier in_float =
      quantize_multiplier(static_cast<double>(in / out), Rounding::kDouble);
  const QuantizedMultiplier in_double =
      quantize_multiplier(static_cast<double>(in) / static_cast<double>(out), Rounding::kDouble);
  ASSERT_NE(in_float.multiplier, in_double.multiplier);  // the case discriminates
  const activation::RequantizeParams p =
      activation::prepare_relu(in, 4, out, -7, Rounding::kDouble);
  EXPECT_EQ(p.multiplier, in_float.multiplier);
  EXPECT_EQ(p.shift, in_float.shift);
}

}  // namespace
}  // namespace tinyaot
