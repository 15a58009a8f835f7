// Tests of TRANSPOSE: lowering + kernel on hand-checked cases, validation.
#include "kernels/transpose/transpose.h"

#include <gtest/gtest.h>

#include "kernels/copy/data_movement_test_support.h"
#include "kernels/lowerings.h"
#include "support/validate_support.h"

namespace tinyaot {
namespace {

using test::add_i32_constant;
using test::add_tensor;
using test::make_op;

LoweredOp lower(std::vector<int32_t> in_shape, std::vector<int32_t> perm,
                std::vector<int32_t> out_shape) {
  Graph graph;
  const int32_t in = add_tensor(graph, std::move(in_shape));
  const int32_t p = add_i32_constant(graph, {static_cast<int32_t>(perm.size())}, perm);
  const int32_t out = add_tensor(graph, std::move(out_shape));
  return lower_transpose(graph, make_op(OpType::kTranspose, {in, p}, out), Target{});
}

TEST(Transpose, Matrix) {
  // [[0,1,2],[3,4,5]] transposed is [[0,3],[1,4],[2,5]].
  const LoweredOp lowered = lower({2, 3}, {1, 0}, {3, 2});
  EXPECT_EQ(test::run_lowered(lowered, {test::iota_bytes(6)}, 6),
            (std::vector<int8_t>{0, 3, 1, 4, 2, 5}));
}

TEST(Transpose, Rank3MovesLastAxisFirst) {
  // in[a][b][c] = 6a + 3b + c, shape [2,2,3]; out[c][a][b] = in[a][b][c].
  // c = 0: 0 3 6 9; c = 1: 1 4 7 10; c = 2: 2 5 8 11.
  const LoweredOp lowered = lower({2, 2, 3}, {2, 0, 1}, {3, 2, 2});
  EXPECT_EQ(test::run_lowered(lowered, {test::iota_bytes(12)}, 12),
            (std::vector<int8_t>{0, 3, 6, 9, 1, 4, 7, 10, 2, 5, 8, 11}));
  // a and b stay adjacent in the output, so they merge: 2 axes remain.
  EXPECT_EQ(test::params_of<TransposeParams>(lowered).source.rank, 2);
}

TEST(Transpose, Rank6Identity) {
  // The identity permutation is one contiguous row.
  const LoweredOp lowered = lower({1, 2, 1, 2, 1, 2}, {0, 1, 2, 3, 4, 5}, {1, 2, 1, 2, 1, 2});
  EXPECT_EQ(test::params_of<TransposeParams>(lowered).source.rank, 1);
  EXPECT_EQ(test::run_lowered(lowered, {test::iota_bytes(8, -4)}, 8), test::iota_bytes(8, -4));
}

TEST(Transpose, LoweringRejectsBadPermutations) {
  EXPECT_THROW(lower({2, 3}, {1, 1}, {3, 3}), CompileError);
  EXPECT_THROW(lower({2, 3}, {0, 2}, {2, 3}), CompileError);
  EXPECT_THROW(lower({2, 3}, {-1, 0}, {3, 2}), CompileError);
  EXPECT_THROW(lower({2, 3}, {0}, {2, 3}), CompileError);
  EXPECT_THROW(lower({2, 3}, {1, 0}, {2, 3}), CompileError);  // output shape not permuted
  EXPECT_THROW(lower({1, 1, 1, 1, 1, 1, 1}, {0, 1, 2, 3, 4, 5, 6}, {1, 1, 1, 1, 1, 1, 1}),
               CompileError);  // rank 7
}

TEST(Transpose, ValidateRejectsInconsistentParams) {
  TransposeParams params = test::params_of<TransposeParams>(lower({2, 3}, {1, 0}, {3, 2}));
  const uint32_t six = 6, five = 5, seven = 7;
  EXPECT_EQ(test::validate_sizes(kernel_transpose_s8_ref, &params, &six, 1, &six, 1), Status::kOk);
  EXPECT_EQ(test::validate_sizes(kernel_transpose_s8_ref, &params, &five, 1, &six, 1),
            Status::kBadParams);
  EXPECT_EQ(test::validate_sizes(kernel_transpose_s8_ref, &params, &six, 1, &seven, 1),
            Status::kBadParams);
  EXPECT_EQ(test::validate_sizes(kernel_transpose_s8_ref, &params, &six, 0, &six, 1),
            Status::kBadParams);
  TransposeParams bad = params;
  bad.source.steps[0] = 4;  // walks past the 6-byte input
  EXPECT_EQ(test::validate_sizes(kernel_transpose_s8_ref, &bad, &six, 1, &six, 1),
            Status::kBadParams);
  bad = params;
  bad.source.dims[0] = 0;
  EXPECT_EQ(test::validate_sizes(kernel_transpose_s8_ref, &bad, &six, 1, &six, 1),
            Status::kBadParams);
  bad = params;
  bad.source.rank = 9;
  EXPECT_EQ(test::validate_sizes(kernel_transpose_s8_ref, &bad, &six, 1, &six, 1),
            Status::kBadParams);
  bad = params;
  bad.input_elements = 0;
  const uint32_t zero = 0;
  EXPECT_EQ(test::validate_sizes(kernel_transpose_s8_ref, &bad, &zero, 1, &six, 1),
            Status::kBadParams);
}

}  // namespace
}  // namespace tinyaot
