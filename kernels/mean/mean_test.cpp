// MEAN through its descriptor (validate's refusals, hand-computed sums in
// both rounding modes) and through its lowering (axis
// resolution, shape merging, the folded 1 / count multiplier).
#include "kernels/mean/mean.h"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "kernels/lowerings.h"
#include "support/validate_support.h"

namespace tinyaot {
namespace {

// dims [2, 3], averaging the last dimension: 2 outputs of 3 cells each.
MeanParams rows_of_three() {
  MeanParams p{};
  p.rank = 2;
  p.dims[0] = 2;
  p.dims[1] = 3;
  p.reduced_mask = 0b10;
  p.count = 3;
  p.multiplier = 1 << 30;  // 0.5: a round scale for hand-computed sums
  p.shift = 0;
  return p;
}

Status validate(const MeanParams& p, uint32_t in, uint32_t out) {
  return test::validate_sizes(kernel_mean_s8_ref, &p, &in, 1, &out, 1);
}

std::vector<int8_t> run(const MeanParams& p, std::vector<int8_t> input, size_t outputs,
                        Rounding rounding = Rounding::kDouble) {
  std::vector<int8_t> output(outputs);
  const uint32_t in_bytes = static_cast<uint32_t>(input.size());
  const uint32_t out_bytes = static_cast<uint32_t>(output.size());
  EXPECT_EQ(test::validate_sizes(kernel_mean_s8_ref, &p, &in_bytes, 1, &out_bytes, 1), Status::kOk);
  Operand in{input.data(), in_bytes};
  Operand out{output.data(), out_bytes};
  KernelArgs args{&p, &in, 1, &out, 1, {nullptr, 0}, rounding};
  EXPECT_EQ(kernel_mean_s8_ref.run(args), Status::kOk);
  return output;
}

// int16: two bytes an element, zero points 0, saturation at int16.
TEST(Mean, Int16SumsWithoutWrappingAndSaturates) {
  MeanParams p = rows_of_three();  // 0.5 of each row's sum
  std::vector<int16_t> input = {30000, 30000, 30000, -1000, -2000, 2};
  std::vector<int16_t> output(2);
  const uint32_t in_bytes = 12, out_bytes = 4;
  EXPECT_EQ(test::validate_sizes(kernel_mean_s16_ref, &p, &in_bytes, 1, &out_bytes, 1),
            Status::kOk);
  Operand in{input.data(), in_bytes};
  Operand out{output.data(), out_bytes};
  KernelArgs args{&p, &in, 1, &out, 1, {nullptr, 0}, Rounding::kDouble};
  EXPECT_EQ(kernel_mean_s16_ref.run(args), Status::kOk);
  // 90000 / 2 saturates to 32767 (the sum itself fits int32); -2998 / 2.
  EXPECT_EQ(output, (std::vector<int16_t>{32767, -1499}));
  p.input_zero_point = 1;  // int16 is symmetric
  EXPECT_NE(test::validate_sizes(kernel_mean_s16_ref, &p, &in_bytes, 1, &out_bytes, 1),
            Status::kOk);
}

TEST(Mean, ValidateRejectsInconsistentParams) {
  EXPECT_EQ(validate(rows_of_three(), 6, 2), Status::kOk);
  EXPECT_NE(validate(rows_of_three(), 5, 2), Status::kOk);  // input size
  EXPECT_NE(validate(rows_of_three(), 6, 3), Status::kOk);  // output size
  MeanParams p = rows_of_three();
  p.count = 2;  // not the product of the reduced dims
  EXPECT_NE(validate(p, 6, 2), Status::kOk);
  p = rows_of_three();
  p.reduced_mask = 0b100;  // a dimension past the rank
  EXPECT_NE(validate(p, 6, 2), Status::kOk);
  p = rows_of_three();
  p.rank = 0;
  EXPECT_NE(validate(p, 6, 2), Status::kOk);
  p.rank = kMeanMaxRank + 1;
  EXPECT_NE(validate(p, 6, 2), Status::kOk);
  p = rows_of_three();
  p.dims[0] = 0;
  EXPECT_NE(validate(p, 0, 0), Status::kOk);
  p.dims[0] = -2;
  EXPECT_NE(validate(p, 6, 2), Status::kOk);
  p = rows_of_three();
  p.dims[0] = 1 << 16;
  p.dims[1] = 1 << 16;  // product overflows int32
  p.count = 1 << 16;
  EXPECT_NE(validate(p, 0, 1 << 16), Status::kOk);
  p = rows_of_three();
  p.multiplier = 1 << 30;
  p.shift = 31;  // past what requantize can shift
  EXPECT_NE(validate(p, 6, 2), Status::kOk);
  p.shift = 0;
  p.input_zero_point = 128;
  EXPECT_NE(validate(p, 6, 2), Status::kOk);
  p.input_zero_point = 0;
  p.multiplier = -1;
  EXPECT_NE(validate(p, 6, 2), Status::kOk);
  const uint32_t bytes[2] = {6, 2};
  p = rows_of_three();
  EXPECT_NE(test::validate_sizes(kernel_mean_s8_ref, &p, bytes, 2, bytes + 1, 1), Status::kOk);
}

TEST(Mean, ReducesNonAdjacentDimensions) {
  // dims [2, 3, 2], averaging dimensions 0 and 2, input value = flat index
  // 6a + 2b + c: output b sums (6a + 2b + c) over a, c in {0, 1}, which is
  // 14 + 8b: 14/4 -> 3, 22/4 -> 5, 30/4 -> 7.
  MeanParams p{};
  p.rank = 3;
  p.dims[0] = 2;
  p.dims[1] = 3;
  p.dims[2] = 2;
  p.reduced_mask = 0b101;
  p.count = 4;
  p.multiplier = 1 << 30;  // 0.25: 0.5 * 2^-1
  p.shift = -1;
  std::vector<int8_t> input;
  for (int i = 0; i < 12; ++i) input.push_back(static_cast<int8_t>(i));
  // 14/4 = 3.5 -> 4, 22/4 = 5.5 -> 6, 30/4 = 7.5 -> 8 (ties away from zero).
  EXPECT_EQ(run(p, input, 3), (std::vector<int8_t>{4, 6, 8}));
}

TEST(Mean, RequantizeCentersScalesAndOffsets) {
  // multiplier 0.5 (2^30, shift 0), input zero point 2, output zero point -1.
  MeanParams p = rows_of_three();
  p.multiplier = 1 << 30;
  p.shift = 0;
  p.input_zero_point = 2;
  p.output_zero_point = -1;
  // {3, 5, 7}: 15 - 3 * 2 = 9, * 0.5 = 4.5 -> 5 (both modes round the tie
  // up), - 1 = 4. {-3, -5, -7}: -15 - 6 = -21, * 0.5 = -10.5 -> -10 (the
  // doubling high multiply also rounds this tie up), - 1 = -11.
  for (Rounding r : {Rounding::kDouble, Rounding::kSingle})
    EXPECT_EQ(run(p, {3, 5, 7, -3, -5, -7}, 2, r), (std::vector<int8_t>{4, -11}));
  // Saturates: {127, 127, 127} = (381 - 6) * 0.5 = 187.5 -> 127.
  p.multiplier = 1 << 30;
  EXPECT_EQ(run(p, {127, 127, 127, -128, -128, -128}, 2), (std::vector<int8_t>{127, -128}));
}

TEST(Mean, RequantizeFollowsTheProgramsRoundingMode) {
  // {-3, -3}: sum -6, times 0.25 (2^30, shift -1) = -1.5. Double rounding:
  // high multiply gives -3 exactly, then the rounding shift takes -1.5 away
  // from zero to -2. Single rounding: (-6 * 2^30 + 2^31) >> 32 = -1.
  MeanParams p{};
  p.rank = 1;
  p.dims[0] = 2;
  p.reduced_mask = 0b1;
  p.count = 2;
  p.multiplier = 1 << 30;
  p.shift = -1;
  EXPECT_EQ(run(p, {-3, -3}, 1, Rounding::kDouble), (std::vector<int8_t>{-2}));
  EXPECT_EQ(run(p, {-3, -3}, 1, Rounding::kSingle), (std::vector<int8_t>{-1}));
}

// A graph with one MEAN: input [1, 9, 7, 37], constant axes, output as given.
struct MeanGraph {
  Graph graph;
  Operation op;
};

MeanGraph mean_graph(std::vector<int32_t> axes, std::vector<int32_t> output_shape,
                     float output_scale, int32_t output_zero_point) {
  MeanGraph g;
  Tensor input;
  input.name = "input";
  input.shape = {1, 9, 7, 37};
  input.quant.scales = {0.0203f};
  input.quant.zero_points = {6};
  Tensor axis;
  axis.name = "axis";
  axis.dtype = DType::kInt32;
  axis.shape = {static_cast<int32_t>(axes.size())};
  axis.data = std::vector<uint8_t>(axes.size() * 4);
  std::memcpy(axis.data->data(), axes.data(), axes.size() * 4);
  Tensor output;
  output.name = "output";
  output.shape = output_shape;
  output.quant.scales = {output_scale};
  output.quant.zero_points = {output_zero_point};
  g.graph.tensors = {input, axis, output};
  g.op.type = OpType::kMean;
  g.op.inputs = {0, 1};
  g.op.outputs = {2};
  return g;
}

MeanParams lowered_params(const MeanGraph& g, Rounding rounding = Rounding::kDouble) {
  Target target;
  target.rounding = rounding;
  const LoweredOp lowered = lower_mean(g.graph, g.op, target);
  MeanParams p{};
  EXPECT_EQ(lowered.params.size(), sizeof(p));
  std::memcpy(&p, lowered.params.data(), sizeof(p));
  // The reference, or over planes of at most 256 cells mean_s8_planes
  // (the host's scalar class): both take MeanParams.
  EXPECT_EQ(lowered.kernel,
            is_mean_planes_case(p) ? KernelId::mean_s8_planes : KernelId::mean_s8_ref);
  return p;
}

TEST(Mean, LoweringMergesDimensionsAndFoldsTheCount) {
  // Axes [2, -3] = {1, 2}: the 1 is dropped and H, W merge into 63 cells.
  const MeanParams p = lowered_params(mean_graph({2, -3}, {1, 1, 1, 37}, 0.0051f, 31));
  EXPECT_EQ(p.rank, 2);
  EXPECT_EQ(p.dims[0], 63);
  EXPECT_EQ(p.dims[1], 37);
  EXPECT_EQ(p.reduced_mask, 0b01u);
  EXPECT_EQ(p.count, 63);
  // 0.0203 / 0.0051 = 3.98 = 0.995 * 2^2; folding 1/63 shifts the
  // significand up by floor(log2 63) = 5: shift 2 - 5 = -3, multiplier
  // 0.995 * 2^31 * 32 / 63, about 0.505 * 2^31.
  EXPECT_EQ(p.shift, -3);
  EXPECT_NEAR(p.multiplier / 2147483648.0, 0.995 * 32 / 63, 0.001);
  EXPECT_EQ(p.input_zero_point, 6);
  EXPECT_EQ(p.output_zero_point, 31);
}

TEST(Mean, UnchangedQuantizationStillRescalesAndRounds) {
  // TFLite Micro's QuantizedMeanOrSum runs for equal scales too: scale
  // ratio 1 is 2^30 with shift 1; folding 1/37 shifts it up by
  // floor(log2 37) = 5, giving (2^35 / 37) with shift -4.
  const MeanGraph g = mean_graph({3, 3}, {1, 9, 7}, 0.0203f, 6);
  const MeanParams p = lowered_params(g);
  EXPECT_EQ(p.rank, 2);  // [63, 37], the duplicate axis counted once
  EXPECT_EQ(p.reduced_mask, 0b10u);
  EXPECT_EQ(p.count, 37);
  EXPECT_EQ(p.multiplier, static_cast<int32_t>((int64_t{1} << 35) / 37));
  EXPECT_EQ(p.shift, -4);
  EXPECT_EQ(p.input_zero_point, 6);
  EXPECT_EQ(p.output_zero_point, 6);
  std::vector<int8_t> input(63 * 37, 6);
  for (int c = 0; c < 37; ++c) input[static_cast<size_t>(c)] = c < 20 ? 7 : 0;
  const std::vector<int8_t> out = run(p, input, 63);
  // Row 0: 20 * 7 = 140, - 37 * 6 = -82 -> -2.22 -> -2, + 6 = 4; a plain
  // truncating 140 / 37 would give 3.
  EXPECT_EQ(out[0], 4);
  EXPECT_EQ(out[1], 6);  // all cells at the zero point
}

TEST(Mean, LoweringRejectsBadAxesAndShapes) {
  MeanGraph g = mean_graph({4}, {1, 9, 7, 37}, 0.0051f, 31);
  EXPECT_THROW(lower_mean(g.graph, g.op, Target{}), CompileError);
  g = mean_graph({-5}, {1, 9, 7, 37}, 0.0051f, 31);
  EXPECT_THROW(lower_mean(g.graph, g.op, Target{}), CompileError);
  g = mean_graph({1, 2}, {1, 1, 1, 36}, 0.0051f, 31);  // wrong output size
  EXPECT_THROW(lower_mean(g.graph, g.op, Target{}), CompileError);
}

}  // namespace
}  // namespace tinyaot
