// OnnxAverageStep (onnx_average.h) against onnxruntime's float32 chain it
// stands for (OnnxPoolChain, what the reference avg_pool2d_s8_onnx runs):
// every window sum of many counts, cells arranged to make the chain's
// rounding errors small and large, scales across the exponent range, and
// random windows with adversarial scales.
#include "kernels/pooling/onnx_average.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

namespace tinyaot {
namespace {

int32_t bits_of(float value) {
  int32_t bits;
  memcpy(&bits, &value, sizeof bits);
  return bits;
}

AvgPool2dOnnxParams params_of(float scale, int32_t zero_point, int32_t act_min = -128,
                              int32_t act_max = 127) {
  AvgPool2dOnnxParams p{};
  p.pool.act_min = act_min;
  p.pool.act_max = act_max;
  p.scale_bits = bits_of(scale);
  p.zero_point = zero_point;
  return p;
}

// One channel's window of `cells`, a single run.
PoolWindow window_of(const std::vector<int8_t>& cells) {
  PoolWindow w;
  w.first = cells.data();
  w.rows = 1;
  w.cols = static_cast<int32_t>(cells.size());
  w.row_skip = 0;
  w.count = w.cols;
  return w;
}

// n cells summing to `sum`: spread evenly (the chain's error smallest), or
// at the int8 extremes with one cell between (|q - z| at its largest for z
// at an extreme, the bound's worst case).
std::vector<int8_t> even_cells(int32_t sum, int32_t n) {
  std::vector<int8_t> cells(n);
  const int32_t low = (sum >= 0 ? sum : sum - (n - 1)) / n;  // floor(sum / n)
  const int32_t extra = sum - low * n;
  for (int32_t i = 0; i < n; ++i) cells[i] = static_cast<int8_t>(low + (i < extra ? 1 : 0));
  return cells;
}

std::vector<int8_t> extreme_cells(int32_t sum, int32_t n) {
  std::vector<int8_t> cells(n, -128);
  int32_t rest = sum + 128 * n;  // to share out, each cell taking at most 255
  for (int32_t i = 0; i < n && rest > 0; ++i) {
    const int32_t add = rest > 255 ? 255 : rest;
    cells[i] = static_cast<int8_t>(-128 + add);
    rest -= add;
  }
  return cells;
}

struct Tally {
  int64_t outputs = 0, chain_runs = 0;
};

// Every window sum of n cells, both arrangements, against the chain.
Tally check_every_sum(int32_t n, float scale, int32_t zero_point) {
  const AvgPool2dOnnxParams p = params_of(scale, zero_point);
  const OnnxPoolChain chain(p);
  OnnxAverageStep step(p, 1);
  step.set_count(n);
  Tally tally;
  for (int32_t sum = -128 * n; sum <= 127 * n; ++sum) {
    for (const std::vector<int8_t>& cells : {even_cells(sum, n), extreme_cells(sum, n)}) {
      const PoolWindow w = window_of(cells);
      const int8_t expected = chain.window_output(w, 1, 0);
      EXPECT_EQ(step.output(sum, w, 0), expected)
          << "n " << n << " sum " << sum << " scale " << scale << " zero point " << zero_point;
      ++tally.outputs;
    }
  }
  return tally;
}

TEST(OnnxAverageStep, EqualsTheChainForEverySumOfSmallCounts) {
  const float scales[] = {1.0f, 0.0039215689f, 3.0517578e-5f, 0.1234567f};
  const int32_t zero_points[] = {-128, 127, -37};
  for (int32_t n = 1; n <= 48; ++n) {
    for (float scale : scales)
      for (int32_t z : zero_points) check_every_sum(n, scale, z);
  }
}

TEST(OnnxAverageStep, EqualsTheChainForEverySumOfLargeCounts) {
  const int32_t counts[] = {63, 64, 100, 125, 128, 169, 179, 180, 200, 225, 255, 256};
  std::mt19937 random(18);
  for (int32_t n : counts) {
    for (int k = 0; k < 3; ++k) {
      const float scale =
          std::ldexp(1.0f + float(random() % (1u << 23)) * 0x1p-23f, int(random() % 40) - 30);
      check_every_sum(n, scale, int32_t(random() % 256) - 128);
    }
    check_every_sum(n, 1.0f / 256.0f, -128);
  }
}

TEST(OnnxAverageStep, EqualsTheChainOnRandomWindowsAndAdversarialScales) {
  std::mt19937 random(6);
  const float edge_scales[] = {0x1p-149f, 0x1p-126f, 0x1p-91f, 0x1p-90f,      0x1.fffffep-91f,
                               0x1p100f,  0x1p101f,  0x1p127f, 3.4028234e38f, 1.17549435e-38f,
                               0x1p-24f,  0x1p24f,   0.1f};
  for (int trial = 0; trial < 200000; ++trial) {
    const int32_t n = int32_t(random() % 256) + 1;
    float scale;
    switch (trial % 4) {
      case 0:
        scale = edge_scales[random() % (sizeof edge_scales / sizeof edge_scales[0])];
        break;
      case 1:
        scale = std::ldexp(1.0f, int(random() % 250) - 149);
        break;
      default:
        scale =
            std::ldexp(1.0f + float(random() % (1u << 23)) * 0x1p-23f, int(random() % 254) - 126);
    }
    const int32_t z = int32_t(random() % 256) - 128;
    int32_t act_min = -128, act_max = 127;
    if (trial % 8 == 0) {
      act_min = int32_t(random() % 200) - 128;
      act_max = act_min + int32_t(random() % uint32_t(128 - act_min));
    }
    const AvgPool2dOnnxParams p = params_of(scale, z, act_min, act_max);
    std::vector<int8_t> cells(n);
    // Cells near one value make the window sums land on and near ties.
    const int32_t centre = int32_t(random() % 256) - 128;
    const int32_t spread = trial % 3 == 0 ? 255 : int32_t(random() % 4);
    int32_t sum = 0;
    for (int8_t& cell : cells) {
      int32_t q = centre + int32_t(random() % uint32_t(2 * spread + 1)) - spread;
      q = q < -128 ? -128 : (q > 127 ? 127 : q);
      cell = static_cast<int8_t>(q);
      sum += q;
    }
    const OnnxPoolChain chain(p);
    OnnxAverageStep step(p, 1);
    step.set_count(n);
    const PoolWindow w = window_of(cells);
    ASSERT_EQ(step.output(sum, w, 0), chain.window_output(w, 1, 0))
        << "trial " << trial << " n " << n << " scale " << scale << " zero point " << z;
  }
}

}  // namespace
}  // namespace tinyaot
