// Tests of the byte copy, its RESHAPE/SQUEEZE/EXPAND_DIMS lowering and the
// strided box every data-movement kernel validates and walks.
#include "kernels/copy/copy.h"

#include <gtest/gtest.h>

#include "kernels/copy/data_movement_test_support.h"
#include "kernels/copy/strided_box_lower.h"
#include "kernels/lowerings.h"
#include "support/validate_support.h"

namespace tinyaot {
namespace {

using test::add_i32_constant;
using test::add_tensor;
using test::make_op;

Status validate_copy(int32_t bytes, uint32_t in, uint32_t out, uint32_t num_inputs = 1) {
  const CopyParams params{bytes};
  const uint32_t ins[2] = {in, in};
  return test::validate_sizes(kernel_copy_s8, &params, ins, num_inputs, &out, 1);
}

TEST(Copy, ValidateRejectsInconsistentSizes) {
  EXPECT_EQ(validate_copy(6, 6, 6), Status::kOk);
  EXPECT_EQ(validate_copy(0, 0, 0), Status::kBadParams);
  EXPECT_EQ(validate_copy(-6, 6, 6), Status::kBadParams);
  EXPECT_EQ(validate_copy(6, 5, 6), Status::kBadParams);
  EXPECT_EQ(validate_copy(6, 6, 7), Status::kBadParams);
  EXPECT_EQ(validate_copy(6, 6, 6, 2), Status::kBadParams);
}

TEST(Copy, CopiesBytes) {
  const CopyParams params{3};
  std::vector<std::vector<int8_t>> inputs = {{1, -2, 127}};
  std::vector<int8_t> output(3, 0);
  ASSERT_EQ(test::run_kernel(kernel_copy_s8, &params, inputs, output), Status::kOk);
  EXPECT_EQ(output, (std::vector<int8_t>{1, -2, 127}));
}

TEST(Copy, LowersReshapeSqueezeAndExpandDims) {
  for (OpType type : {OpType::kReshape, OpType::kSqueeze, OpType::kExpandDims}) {
    Graph graph;
    const int32_t in = add_tensor(graph, {1, 2, 3});
    const int32_t shape = add_i32_constant(graph, {1}, {6});
    const int32_t out = add_tensor(graph, {6});
    const Operation op = make_op(type, {in, shape}, out);
    const LoweredOp lowered = lower_reshape(graph, op, Target{});
    EXPECT_EQ(lowered.kernel, KernelId::copy_s8);
    EXPECT_EQ(test::params_of<CopyParams>(lowered).bytes, 6);
    // The shape operand only fixed the output shape: the kernel reads data only.
    ASSERT_EQ(lowered.inputs.size(), 1u);
    EXPECT_EQ(lowered.inputs[0].tensor, in);
  }
}

TEST(Copy, LoweringRejectsSizeChange) {
  Graph graph;
  const int32_t in = add_tensor(graph, {1, 2, 3});
  const int32_t out = add_tensor(graph, {7});
  EXPECT_THROW(lower_reshape(graph, make_op(OpType::kReshape, {in}, out), Target{}), CompileError);
}

StridedBox box(int32_t rank, int32_t offset, std::vector<int32_t> dims,
               std::vector<int32_t> steps) {
  StridedBox b{};
  b.rank = rank;
  b.offset = offset;
  for (size_t d = 0; d < dims.size(); ++d) {
    b.dims[d] = dims[d];
    b.steps[d] = steps[d];
  }
  return b;
}

TEST(StridedBox, CheckedElements) {
  // 2 x 3 over a 3 x 4 buffer, rows 4 apart: last element 5 + 4 + 2 = 11.
  EXPECT_EQ(checked_box_elements(box(2, 5, {2, 3}, {4, 1}), 12), 6);
  EXPECT_EQ(checked_box_elements(box(2, 5, {2, 3}, {4, 1}), 11), -1);  // reads index 11
  // Reversed: starts at 9, goes down 3 at a time to 0.
  EXPECT_EQ(checked_box_elements(box(1, 9, {4}, {-3}), 10), 4);
  EXPECT_EQ(checked_box_elements(box(1, 9, {5}, {-3}), 10), -1);  // would reach -3
  EXPECT_EQ(checked_box_elements(box(1, -1, {1}, {1}), 10), -1);
  EXPECT_EQ(checked_box_elements(box(1, INT32_MIN, {1}, {1}), 10), -1);
  EXPECT_EQ(checked_box_elements(box(0, 0, {}, {}), 10), -1);
  EXPECT_EQ(checked_box_elements(box(7, 0, {}, {}), 10), -1);
  EXPECT_EQ(checked_box_elements(box(2, 0, {0, 3}, {3, 1}), 10), -1);
  EXPECT_EQ(checked_box_elements(box(2, 0, {-2, 3}, {3, 1}), 10), -1);
  // 65536 * 65536 elements overflow int32.
  EXPECT_EQ(checked_box_elements(box(2, 0, {65536, 65536}, {0, 0}), INT32_MAX), -1);
  // A huge step on a size-1 dim stays in bounds but could overflow the walk.
  EXPECT_EQ(checked_box_elements(box(2, 0, {1, 2}, {INT32_MAX, 1}), 10), -1);
}

TEST(StridedBox, MakeMergesContiguousAxesAndDropsOnes) {
  // A dense [2,3,4] is one row of 24.
  StridedBox b = make_strided_box({2, 3, 4}, {12, 4, 1}, 0);
  EXPECT_EQ(b.rank, 1);
  EXPECT_EQ(b.dims[0], 24);
  EXPECT_EQ(b.steps[0], 1);
  // [1,3,1,4] with steps of a [3,8] buffer (columns 0..3 of each row):
  // the size-1 axes go, the rest cannot merge (8 != 4 * 1).
  b = make_strided_box({1, 3, 1, 4}, {99, 8, 77, 1}, 2);
  EXPECT_EQ(b.rank, 2);
  EXPECT_EQ(b.offset, 2);
  EXPECT_EQ(b.dims[0], 3);
  EXPECT_EQ(b.steps[0], 8);
  EXPECT_EQ(b.dims[1], 4);
  EXPECT_EQ(b.steps[1], 1);
  // All ones: a single element.
  b = make_strided_box({1, 1}, {5, 1}, 3);
  EXPECT_EQ(b.rank, 1);
  EXPECT_EQ(b.dims[0], 1);
}

TEST(StridedBox, MakeCountsBytesOfWiderElements) {
  // Columns 0..3 of a [3,8] int16 buffer from element 2: rows of 8 bytes
  // every 16, from byte 4.
  StridedBox b = make_strided_box({3, 4}, {8, 1}, 2, 2);
  EXPECT_EQ(b.rank, 2);
  EXPECT_EQ(b.offset, 4);
  EXPECT_EQ(b.dims[0], 3);
  EXPECT_EQ(b.steps[0], 16);
  EXPECT_EQ(b.dims[1], 8);
  EXPECT_EQ(b.steps[1], 1);
  // A transposed [2,3] int16 (steps 1, 3): each element's two bytes are
  // an innermost axis of their own.
  b = make_strided_box({3, 2}, {1, 3}, 0, 2);
  EXPECT_EQ(b.rank, 3);
  EXPECT_EQ(b.dims[2], 2);
  EXPECT_EQ(b.steps[2], 1);
  EXPECT_EQ(b.steps[1], 6);
  EXPECT_EQ(b.steps[0], 2);
  // kMaxRank axes that cannot merge leave no room for the bytes' axis.
  EXPECT_THROW(make_strided_box({2, 2, 2, 2, 2, 2}, {1, 100, 40, 17, 7, 3}, 0, 2), CompileError);
}

TEST(StridedBox, WalksRowsInRowMajorOrder) {
  // 2 x 3 box at offset 1 with steps (5, 2): rows start at 1 and 6.
  const StridedBox b = box(2, 1, {2, 3}, {5, 2});
  std::vector<int32_t> starts;
  for_each_row(b, [&](int32_t start, int32_t length, int32_t step) {
    starts.push_back(start);
    EXPECT_EQ(length, 3);
    EXPECT_EQ(step, 2);
  });
  EXPECT_EQ(starts, (std::vector<int32_t>{1, 6}));
}

}  // namespace
}  // namespace tinyaot
