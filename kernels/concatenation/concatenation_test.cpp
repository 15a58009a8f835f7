// Tests of CONCATENATION: lowering + kernel on hand-checked cases, validation.
#include "kernels/concatenation/concatenation.h"

#include <gtest/gtest.h>

#include "kernels/copy/data_movement_test_support.h"
#include "kernels/lowerings.h"
#include "support/validate_support.h"

namespace tinyaot {
namespace {

using test::add_tensor;
using test::make_op;

LoweredOp lower(const std::vector<std::vector<int32_t>>& in_shapes, std::vector<int32_t> out_shape,
                int32_t axis, float first_scale = 0.5f) {
  Graph graph;
  std::vector<int32_t> inputs;
  for (const auto& shape : in_shapes)
    inputs.push_back(add_tensor(graph, shape, inputs.empty() ? first_scale : 0.5f, 3));
  const int32_t out = add_tensor(graph, std::move(out_shape), 0.5f, 3);
  Operation op = make_op(OpType::kConcatenation, inputs, out);
  op.attrs.axis = axis;
  return lower_concatenation(graph, op, Target{});
}

TEST(Concatenation, InnerAxis) {
  // [[1],[2]] ++ [[3,4],[5,6]] along axis 1: [[1,3,4],[2,5,6]].
  const LoweredOp lowered = lower({{2, 1}, {2, 2}}, {2, 3}, 1);
  EXPECT_EQ(test::run_lowered(lowered, {{1, 2}, {3, 4, 5, 6}}, 6),
            (std::vector<int8_t>{1, 3, 4, 2, 5, 6}));
  // The same with the axis counted from the end.
  EXPECT_EQ(test::run_lowered(lower({{2, 1}, {2, 2}}, {2, 3}, -1), {{1, 2}, {3, 4, 5, 6}}, 6),
            (std::vector<int8_t>{1, 3, 4, 2, 5, 6}));
}

TEST(Concatenation, OuterAxisAppends) {
  // Along axis 0 the inputs follow each other: 1 2 | 3 4 5 6 | 7 8.
  const LoweredOp lowered = lower({{1, 2}, {2, 2}, {1, 2}}, {4, 2}, 0);
  const ConcatenationParams params = test::params_of<ConcatenationParams>(lowered);
  EXPECT_EQ(params.outer, 1);
  EXPECT_EQ(test::run_lowered(lowered, {{1, 2}, {3, 4, 5, 6}, {7, 8}}, 8),
            (std::vector<int8_t>{1, 2, 3, 4, 5, 6, 7, 8}));
}

TEST(Concatenation, InputsOfAnotherQuantizationAreCopiedRaw) {
  // TFLite Micro's int8 concatenation copies bytes whatever the scales.
  EXPECT_EQ(test::run_lowered(lower({{2, 1}, {2, 2}}, {2, 3}, 1, 0.25f), {{1, 2}, {3, 4, 5, 6}}, 6),
            (std::vector<int8_t>{1, 3, 4, 2, 5, 6}));
}

TEST(Concatenation, LoweringRejectsBadOperands) {
  EXPECT_THROW(lower({{2, 1}, {2, 2}}, {2, 4}, 1), CompileError);  // axis sum
  EXPECT_THROW(lower({{2, 1}, {3, 2}}, {2, 3}, 1), CompileError);  // other axis
  EXPECT_THROW(lower({{2, 1}, {2, 2}}, {2, 3}, 2), CompileError);  // axis range
  EXPECT_THROW(lower({{2, 1}, {2, 2}}, {2, 3}, -3), CompileError);
  EXPECT_THROW(lower(std::vector<std::vector<int32_t>>(16, {1}), {16}, 0), CompileError);
}

TEST(Concatenation, ValidateRejectsInconsistentParams) {
  ConcatenationParams params{};
  params.num_inputs = 2;
  params.outer = 2;
  params.row_bytes[0] = 1;
  params.row_bytes[1] = 2;
  const uint32_t ins[2] = {2, 4}, six = 6, seven = 7;
  const auto validate = [&](const ConcatenationParams& p, const uint32_t* in, uint32_t n,
                            uint32_t out) {
    return test::validate_sizes(kernel_concatenation_s8_ref, &p, in, n, &out, 1);
  };
  EXPECT_EQ(validate(params, ins, 2, six), Status::kOk);
  EXPECT_EQ(validate(params, ins, 2, seven), Status::kBadParams);
  EXPECT_EQ(validate(params, ins, 1, six), Status::kBadParams);
  const uint32_t wrong[2] = {2, 5};
  EXPECT_EQ(validate(params, wrong, 2, six), Status::kBadParams);
  ConcatenationParams bad = params;
  bad.outer = 0;
  EXPECT_EQ(validate(bad, ins, 2, six), Status::kBadParams);
  bad = params;
  bad.row_bytes[1] = -2;
  EXPECT_EQ(validate(bad, ins, 2, six), Status::kBadParams);
  bad = params;
  bad.num_inputs = 16;
  const uint32_t sixteen[16] = {2, 4};
  EXPECT_EQ(validate(bad, sixteen, 16, six), Status::kBadParams);
  bad = params;
  bad.outer = 65536;
  bad.row_bytes[0] = 65536;  // 2^32 bytes: overflows
  EXPECT_EQ(validate(bad, ins, 2, six), Status::kBadParams);
}

}  // namespace
}  // namespace tinyaot
