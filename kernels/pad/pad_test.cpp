// Tests of PAD / PADV2: lowering + kernel on hand-checked cases, validation.
#include "kernels/pad/pad.h"

#include <gtest/gtest.h>

#include "kernels/copy/data_movement_test_support.h"
#include "kernels/lowerings.h"
#include "support/validate_support.h"

namespace tinyaot {
namespace {

using test::add_i32_constant;
using test::add_tensor;
using test::make_op;

constexpr int32_t kZeroPoint = -5;

// PAD (no constant) or PADV2 with an int8 constant of `constant_quant`.
LoweredOp lower(std::vector<int32_t> in_shape, std::vector<int32_t> paddings,
                std::vector<int32_t> out_shape, const int8_t* constant = nullptr,
                float constant_scale = 0.5f, int32_t constant_zero_point = kZeroPoint) {
  Graph graph;
  const int32_t rank = static_cast<int32_t>(in_shape.size());
  const int32_t in = add_tensor(graph, std::move(in_shape), 0.5f, kZeroPoint);
  const int32_t p = add_i32_constant(graph, {rank, 2}, paddings);
  const int32_t out = add_tensor(graph, std::move(out_shape), 0.5f, kZeroPoint);
  Operation op = make_op(OpType::kPad, {in, p}, out);
  if (constant != nullptr) {
    const int32_t c = add_tensor(graph, {1}, constant_scale, constant_zero_point);
    graph.tensors[static_cast<size_t>(c)].data =
        std::vector<uint8_t>{static_cast<uint8_t>(*constant)};
    op.type = OpType::kPadV2;
    op.inputs.push_back(c);
  }
  return lower_pad(graph, op, Target{});
}

TEST(Pad, FillsWithOutputZeroPoint) {
  // [[1,2],[3,4]] with one row above and one column right:
  //   z z z / 1 2 z / 3 4 z, z = -5.
  const LoweredOp lowered = lower({2, 2}, {1, 0, 0, 1}, {3, 3});
  EXPECT_EQ(test::run_lowered(lowered, {{1, 2, 3, 4}}, 9),
            (std::vector<int8_t>{-5, -5, -5, 1, 2, -5, 3, 4, -5}));
}

TEST(Pad, V2FillsWithItsConstant) {
  // [7, 8] with 2 before and 1 after, constant 77: 77 77 7 8 77.
  const int8_t constant = 77;
  const LoweredOp lowered = lower({2}, {2, 1}, {5}, &constant);
  EXPECT_EQ(test::run_lowered(lowered, {{7, 8}}, 5), (std::vector<int8_t>{77, 77, 7, 8, 77}));
}

TEST(Pad, PaddedSizeOneInnerAxis) {
  // Shape [2,1] = [1,2] padded to [2,3] on the last axis: z 1 z / z 2 z.
  // The size-1 axis is dropped, so each "row" is strided by 3 in the output.
  const LoweredOp lowered = lower({2, 1}, {0, 0, 1, 1}, {2, 3});
  EXPECT_EQ(test::run_lowered(lowered, {{1, 2}}, 6), (std::vector<int8_t>{-5, 1, -5, -5, 2, -5}));
}

TEST(Pad, NoPaddingIsOneRow) {
  const LoweredOp lowered = lower({1, 2, 3}, {0, 0, 0, 0, 0, 0}, {1, 2, 3});
  EXPECT_EQ(test::params_of<PadParams>(lowered).destination.rank, 1);
  EXPECT_EQ(test::run_lowered(lowered, {test::iota_bytes(6)}, 6), test::iota_bytes(6));
}

TEST(Pad, LoweringRejectsBadOperands) {
  EXPECT_THROW(lower({2, 2}, {-1, 0, 0, 1}, {1, 3}), CompileError);  // negative
  EXPECT_THROW(lower({2, 2}, {1, 0, 0, 1}, {3, 4}), CompileError);   // output shape
  EXPECT_THROW(lower({2, 2}, {1, 0}, {3, 2}), CompileError);         // paddings [1,2]
  const int8_t constant = 1;
  EXPECT_THROW(lower({2}, {1, 1}, {4}, &constant, 0.25f), CompileError);  // constant scale
  EXPECT_THROW(lower({2}, {1, 1}, {4}, &constant, 0.5f, 3), CompileError);
}

TEST(Pad, ValidateRejectsInconsistentParams) {
  const PadParams params = test::params_of<PadParams>(lower({2, 2}, {1, 0, 0, 1}, {3, 3}));
  const uint32_t four = 4, nine = 9, three = 3, ten = 10;
  EXPECT_EQ(test::validate_sizes(kernel_pad_s8_ref, &params, &four, 1, &nine, 1), Status::kOk);
  EXPECT_EQ(test::validate_sizes(kernel_pad_s8_ref, &params, &three, 1, &nine, 1),
            Status::kBadParams);
  EXPECT_EQ(test::validate_sizes(kernel_pad_s8_ref, &params, &four, 1, &ten, 1),
            Status::kBadParams);
  PadParams bad = params;
  bad.pad_value = 128;
  EXPECT_EQ(test::validate_sizes(kernel_pad_s8_ref, &bad, &four, 1, &nine, 1), Status::kBadParams);
  bad = params;
  bad.destination.offset = 5;  // last row would end at 5 + 3 + 2 = 10 > 8
  EXPECT_EQ(test::validate_sizes(kernel_pad_s8_ref, &bad, &four, 1, &nine, 1), Status::kBadParams);
  bad = params;
  bad.output_elements = 0;
  const uint32_t zero = 0;
  EXPECT_EQ(test::validate_sizes(kernel_pad_s8_ref, &bad, &four, 1, &zero, 1), Status::kBadParams);
}

}  // namespace
}  // namespace tinyaot
