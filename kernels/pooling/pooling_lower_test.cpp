// AVERAGE_POOL_2D and MAX_POOL_2D lowering: the variant chosen for a window
// and the params the chosen kernel validates.
#include <gtest/gtest.h>

#include "kernels/copy/data_movement_test_support.h"
#include "kernels/lowerings.h"
#include "kernels/pooling/pooling.h"

namespace tinyaot {
namespace {

struct PoolGraph {
  Graph graph;
  Operation op;
};

// input [1, h, w, 8] pooled by an f x f window, stride s, VALID or SAME.
PoolGraph pool_graph(OpType type, int32_t h, int32_t w, int32_t f, int32_t s, Padding padding,
                     int32_t out_h, int32_t out_w) {
  PoolGraph g;
  const int32_t input = test::add_tensor(g.graph, {1, h, w, 8});
  const int32_t output = test::add_tensor(g.graph, {1, out_h, out_w, 8});
  g.op = test::make_op(type, {input}, output);
  g.op.attrs.filter_h = g.op.attrs.filter_w = f;
  g.op.attrs.stride_h = g.op.attrs.stride_w = s;
  g.op.attrs.padding = padding;
  return g;
}

KernelId average_variant(const PoolGraph& g, const Target& target) {
  return lower_average_pool2d(g.graph, g.op, target).kernel;
}

Target scalar_target() {
  Target t;
  t.core = Core::kCortexM0;
  t.isa = IsaClass::kScalar;
  return t;
}

TEST(PoolingLowering, AverageSumsIn16BitsUpTo256CellsAndIn32BitsBeyond) {
  for (const Target& target : {Target{}, scalar_target()}) {
    EXPECT_EQ(average_variant(
                  pool_graph(OpType::kAveragePool2d, 16, 16, 16, 1, Padding::kValid, 1, 1), target),
              KernelId::avg_pool2d_s8_sum16);
    EXPECT_EQ(average_variant(
                  pool_graph(OpType::kAveragePool2d, 17, 17, 17, 1, Padding::kValid, 1, 1), target),
              KernelId::avg_pool2d_s8_sum32);
    // SAME, 3x3 stride 2 over 7x7: edge windows clipped.
    EXPECT_EQ(average_variant(pool_graph(OpType::kAveragePool2d, 7, 7, 3, 2, Padding::kSame, 4, 4),
                              target),
              KernelId::avg_pool2d_s8_sum16);
    const PoolGraph max = pool_graph(OpType::kMaxPool2d, 7, 7, 2, 2, Padding::kValid, 3, 3);
    EXPECT_EQ(lower_max_pool2d(max.graph, max.op, target).kernel, KernelId::max_pool2d_s8_words);
  }
}

TEST(PoolingLowering, MveTargetsTakeTheVectorVariants) {
  Target mve;
  mve.core = Core::kCortexM55;
  mve.isa = IsaClass::kMve;
  EXPECT_EQ(average_variant(
                pool_graph(OpType::kAveragePool2d, 16, 16, 16, 1, Padding::kValid, 1, 1), mve),
            KernelId::avg_pool2d_s8_mve);
  EXPECT_EQ(
      average_variant(pool_graph(OpType::kAveragePool2d, 7, 7, 3, 2, Padding::kSame, 4, 4), mve),
      KernelId::avg_pool2d_s8_mve);
  // Past 256 cells the 16-bit sums could overflow: the 32-bit variant.
  EXPECT_EQ(average_variant(
                pool_graph(OpType::kAveragePool2d, 17, 17, 17, 1, Padding::kValid, 1, 1), mve),
            KernelId::avg_pool2d_s8_sum32);
  const PoolGraph max = pool_graph(OpType::kMaxPool2d, 7, 7, 2, 2, Padding::kValid, 3, 3);
  EXPECT_EQ(lower_max_pool2d(max.graph, max.op, mve).kernel, KernelId::max_pool2d_s8_mve);
}

}  // namespace
}  // namespace tinyaot
