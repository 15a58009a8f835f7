// Tests of STRIDED_SLICE: TFLite's index rules per axis, lowering + kernel
// on hand-checked cases, and validation.
#include "kernels/strided_slice/strided_slice.h"

#include <gtest/gtest.h>

#include "kernels/copy/data_movement_test_support.h"
#include "kernels/lowerings.h"
#include "kernels/strided_slice/slice_axis_lower.h"
#include "support/validate_support.h"

namespace tinyaot {
namespace {

using test::add_i32_constant;
using test::add_tensor;
using test::make_op;

SliceAxis axis(int32_t begin, int32_t end, int32_t stride, int32_t size, bool begin_masked = false,
               bool end_masked = false, bool shrink = false) {
  SliceAxisSpec spec;
  spec.begin = begin;
  spec.end = end;
  spec.stride = stride;
  spec.begin_masked = begin_masked;
  spec.end_masked = end_masked;
  spec.shrink = shrink;
  return resolve_slice_axis(spec, size);
}

void expect_axis(SliceAxis got, int64_t start, int64_t count) {
  EXPECT_EQ(got.start, start);
  EXPECT_EQ(got.count, count);
}

TEST(StridedSliceAxis, TfliteIndexRules) {
  // Negative end: -1 of 13 is 12; 2, 5, 8, 11.
  expect_axis(axis(2, -1, 3, 13), 2, 4);
  // End mask: 0, 2, 4, 6, 8 of 9, whatever end says.
  expect_axis(axis(0, 0, 2, 9, false, true), 0, 5);
  // Out-of-range indices clamp: begin -20 -> 0, end 50 -> 5.
  expect_axis(axis(-20, 50, 1, 5), 0, 5);
  // Reversed: begin -1 -> 4, end -6 -> -1 (clamped to -1): 4, 3, 2, 1, 0.
  expect_axis(axis(-1, -6, -1, 5), 4, 5);
  // Reversed with masks: from 4 down to past 0, every second: 4, 2, 0.
  expect_axis(axis(0, 0, -2, 5, true, true), 4, 3);
  // Shrink takes the element at begin (-2 of 5 is 3), end is ignored.
  expect_axis(axis(-2, 0, 1, 5, false, false, true), 3, 1);
  // Shrink with begin clamped to the end visits nothing.
  expect_axis(axis(7, 8, 1, 5, false, false, true), 5, 0);
  // Begin past end: empty.
  expect_axis(axis(3, 1, 1, 5), 3, 0);
}

struct Slice {
  std::vector<int32_t> begin, end, strides;
  int32_t begin_mask = 0, end_mask = 0, shrink_mask = 0, ellipsis_mask = 0, new_axis_mask = 0;
};

LoweredOp lower(std::vector<int32_t> in_shape, const Slice& s, std::vector<int32_t> out_shape) {
  Graph graph;
  const int32_t rank = static_cast<int32_t>(s.begin.size());
  const int32_t in = add_tensor(graph, std::move(in_shape));
  const int32_t b = add_i32_constant(graph, {rank}, s.begin);
  const int32_t e = add_i32_constant(graph, {rank}, s.end);
  const int32_t st = add_i32_constant(graph, {rank}, s.strides);
  const int32_t out = add_tensor(graph, std::move(out_shape));
  Operation op = make_op(OpType::kStridedSlice, {in, b, e, st}, out);
  op.attrs.begin_mask = s.begin_mask;
  op.attrs.end_mask = s.end_mask;
  op.attrs.shrink_axis_mask = s.shrink_mask;
  op.attrs.ellipsis_mask = s.ellipsis_mask;
  op.attrs.new_axis_mask = s.new_axis_mask;
  return lower_strided_slice(graph, op, Target{});
}

TEST(StridedSlice, ReversedWithStride) {
  // 0..9 from 8 down to (not including) 1, every third: 8, 5, 2.
  const LoweredOp lowered = lower({10}, {{8}, {1}, {-3}}, {3});
  EXPECT_EQ(test::run_lowered(lowered, {test::iota_bytes(10)}, 3), (std::vector<int8_t>{8, 5, 2}));
}

TEST(StridedSlice, Matrix) {
  // 3 x 4 of 0..11, rows 0 and 2, columns 1 and 2: 1 2 / 9 10.
  const LoweredOp lowered = lower({3, 4}, {{0, 1}, {3, 3}, {2, 1}}, {2, 2});
  EXPECT_EQ(test::run_lowered(lowered, {test::iota_bytes(12)}, 4),
            (std::vector<int8_t>{1, 2, 9, 10}));
}

TEST(StridedSlice, ShrinkAxis) {
  // Row 1 of a 3 x 4 of 0..11, the row axis removed: 4 5 6 7 as shape [4].
  Slice s{{1, 0}, {2, 4}, {1, 1}};
  s.shrink_mask = 1;
  const LoweredOp lowered = lower({3, 4}, s, {4});
  EXPECT_EQ(test::run_lowered(lowered, {test::iota_bytes(12)}, 4),
            (std::vector<int8_t>{4, 5, 6, 7}));
}

TEST(StridedSlice, LoweringRejectsWhatItCannotDo) {
  Slice s{{0, 0}, {3, 4}, {1, 1}};
  s.ellipsis_mask = 1;
  EXPECT_THROW(lower({3, 4}, s, {3, 4}), CompileError);
  s.ellipsis_mask = 0;
  s.new_axis_mask = 2;
  EXPECT_THROW(lower({3, 4}, s, {3, 4}), CompileError);
  EXPECT_THROW(lower({3, 4}, {{0, 0}, {3, 4}, {1, 0}}, {3, 4}), CompileError);  // stride 0
  EXPECT_THROW(lower({3, 4}, {{0, 0}, {3, 4}, {1, 1}}, {3, 3}), CompileError);  // shape
  EXPECT_THROW(lower({3, 4}, {{2, 0}, {1, 4}, {1, 1}}, {0, 4}), CompileError);  // empty
  EXPECT_THROW(lower({3, 4}, {{0}, {3}, {1}}, {3, 4}), CompileError);           // too few indices
}

TEST(StridedSlice, ValidateRejectsInconsistentParams) {
  const StridedSliceParams params =
      test::params_of<StridedSliceParams>(lower({10}, {{8}, {1}, {-3}}, {3}));
  const uint32_t ten = 10, three = 3, four = 4, nine = 9;
  EXPECT_EQ(test::validate_sizes(kernel_strided_slice_s8_ref, &params, &ten, 1, &three, 1),
            Status::kOk);
  EXPECT_EQ(test::validate_sizes(kernel_strided_slice_s8_ref, &params, &nine, 1, &three, 1),
            Status::kBadParams);
  EXPECT_EQ(test::validate_sizes(kernel_strided_slice_s8_ref, &params, &ten, 1, &four, 1),
            Status::kBadParams);
  StridedSliceParams bad = params;
  bad.source.dims[0] = 4;  // 8, 5, 2, -1: reads before the input
  EXPECT_EQ(test::validate_sizes(kernel_strided_slice_s8_ref, &bad, &ten, 1, &four, 1),
            Status::kBadParams);
  bad = params;
  bad.source.offset = 10;  // starts past the input
  EXPECT_EQ(test::validate_sizes(kernel_strided_slice_s8_ref, &bad, &ten, 1, &three, 1),
            Status::kBadParams);
}

}  // namespace
}  // namespace tinyaot
