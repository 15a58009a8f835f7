// QUANTIZE (float32 -> int8) and DEQUANTIZE (int8 -> float32) through their
// descriptors, on values worked out by hand in the comments.
#include "kernels/quantize/quantize.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "kernels/lowerings.h"
#include "support/validate_support.h"

namespace tinyaot {
namespace {

std::vector<int8_t> quantize(const QuantizeParams& p, std::vector<float> input) {
  std::vector<int8_t> output(input.size());
  const Operand inputs[1] = {{input.data(), static_cast<uint32_t>(input.size() * 4)}};
  const Operand outputs[1] = {{output.data(), static_cast<uint32_t>(output.size())}};
  KernelArgs args{&p, inputs, 1, outputs, 1, {nullptr, 0}, Rounding::kDouble};
  EXPECT_EQ(kernel_quantize_f32_s8_ref.run(args), Status::kOk);
  return output;
}

std::vector<float> dequantize(const QuantizeParams& p, std::vector<int8_t> input) {
  std::vector<float> output(input.size());
  const Operand inputs[1] = {{input.data(), static_cast<uint32_t>(input.size())}};
  const Operand outputs[1] = {{output.data(), static_cast<uint32_t>(output.size() * 4)}};
  KernelArgs args{&p, inputs, 1, outputs, 1, {nullptr, 0}, Rounding::kDouble};
  EXPECT_EQ(kernel_dequantize_s8_f32_ref.run(args), Status::kOk);
  return output;
}

Status validate(const KernelDescriptor& kernel, const QuantizeParams& p, uint32_t in,
                uint32_t out) {
  const uint32_t in_bytes[1] = {in};
  const uint32_t out_bytes[1] = {out};
  return test::validate_sizes(kernel, &p, in_bytes, 1, out_bytes, 1);
}

TEST(Quantize, RoundsHalfAwayFromZeroAndSaturates) {
  // Scale 0.5, zero point -6: 1.25 is 2.5 steps -> 3 -> -3; -1.25 -> -3 ->
  // -9; 0.75 is 1.5 -> 2 -> -4; 0.74 is 1.48 -> 1 -> -5.
  const QuantizeParams p{9, 0.5f, -6};
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_EQ(quantize(p, {1.25f, -1.25f, 0.75f, 0.74f, 1000.0f, -1000.0f, inf, -inf, 0.0f}),
            (std::vector<int8_t>{-3, -9, -4, -5, 127, -128, 127, -128, -6}));
  // NaN has no int8 value; it maps to the zero point (Arm's conversion
  // turns NaN into 0 steps).
  EXPECT_EQ(quantize({1, 0.5f, -6}, {std::nanf("")}), (std::vector<int8_t>{-6}));
}

TEST(Quantize, DividesInFloat) {
  // Scale 3/128 (exact in float): 0.03515625 = 1.5 steps exactly -> 2;
  // -0.01171875 = -0.5 steps -> -1.
  const QuantizeParams p{2, 0.0234375f, 0};
  EXPECT_EQ(quantize(p, {0.03515625f, -0.01171875f}), (std::vector<int8_t>{2, -1}));
}

TEST(Dequantize, ScalesTheOffsetValue) {
  // Scale 0.5, zero point -6: -6 -> 0; 0 -> 3; -128 -> -61; 127 -> 66.5.
  const QuantizeParams p{4, 0.5f, -6};
  EXPECT_EQ(dequantize(p, {-6, 0, -128, 127}), (std::vector<float>{0.0f, 3.0f, -61.0f, 66.5f}));
}

TEST(Quantize, ValidateRejectsInconsistentParams) {
  const QuantizeParams good{3, 0.5f, -6};
  EXPECT_EQ(validate(kernel_quantize_f32_s8_ref, good, 12, 3), Status::kOk);
  EXPECT_EQ(validate(kernel_dequantize_s8_f32_ref, good, 3, 12), Status::kOk);
  EXPECT_EQ(validate(kernel_quantize_f32_s8_ref, good, 3, 3), Status::kBadParams);
  EXPECT_EQ(validate(kernel_quantize_f32_s8_ref, good, 12, 12), Status::kBadParams);
  EXPECT_EQ(validate(kernel_dequantize_s8_f32_ref, good, 12, 3), Status::kBadParams);
  EXPECT_EQ(validate(kernel_quantize_f32_s8_ref, {0, 0.5f, 0}, 0, 0), Status::kBadParams);
  EXPECT_EQ(validate(kernel_quantize_f32_s8_ref, {-1, 0.5f, 0}, 0, 0), Status::kBadParams);
  EXPECT_EQ(validate(kernel_quantize_f32_s8_ref, {3, 0.0f, 0}, 12, 3), Status::kBadParams);
  EXPECT_EQ(validate(kernel_quantize_f32_s8_ref, {3, -0.5f, 0}, 12, 3), Status::kBadParams);
  EXPECT_EQ(validate(kernel_quantize_f32_s8_ref, {3, std::nanf(""), 0}, 12, 3), Status::kBadParams);
  EXPECT_EQ(
      validate(kernel_dequantize_s8_f32_ref, {3, std::numeric_limits<float>::infinity(), 0}, 3, 12),
      Status::kBadParams);
  EXPECT_EQ(validate(kernel_quantize_f32_s8_ref, {3, 0.5f, 128}, 12, 3), Status::kBadParams);
  // 2^30 elements would need 2^32 float bytes: no uint32 size matches.
  EXPECT_EQ(validate(kernel_quantize_f32_s8_ref, {1 << 30, 0.5f, 0}, 0, 1u << 30),
            Status::kBadParams);
  const uint32_t bytes[2] = {12, 3};
  EXPECT_EQ(test::validate_sizes(kernel_quantize_f32_s8_ref, &good, bytes, 2, bytes + 1, 1),
            Status::kBadParams);
}

TEST(QuantizeLowering, DispatchesOnInputType) {
  Tensor f;
  f.dtype = DType::kFloat32;
  f.shape = {2, 3};
  Tensor q;
  q.dtype = DType::kInt8;
  q.shape = {2, 3};
  q.quant.scales = {0.25f};
  q.quant.zero_points = {3};
  Tensor r = q;
  r.quant.scales = {0.5f};
  Graph graph;
  graph.tensors = {f, q, r};
  Operation op;
  op.type = OpType::kQuantize;
  op.inputs = {0};
  op.outputs = {1};
  EXPECT_EQ(lower_quantize(graph, op, Target{}).kernel, KernelId::quantize_f32_s8_estimate);
  op.inputs = {1};
  op.outputs = {2};
  EXPECT_EQ(lower_quantize(graph, op, Target{}).kernel, KernelId::lut_s8_ref);
  op.type = OpType::kDequantize;
  op.inputs = {1};
  op.outputs = {0};
  const LoweredOp lowered = lower_dequantize(graph, op, Target{});
  EXPECT_EQ(lowered.kernel, KernelId::dequantize_s8_f32_ref);
  QuantizeParams p;
  ASSERT_EQ(lowered.params.size(), sizeof(p));
  std::memcpy(&p, lowered.params.data(), sizeof(p));
  EXPECT_EQ(p.size, 6);
  EXPECT_EQ(p.scale, 0.25f);
  EXPECT_EQ(p.zero_point, 3);
  op.outputs = {2};  // int8 output for DEQUANTIZE
  EXPECT_THROW(lower_dequantize(graph, op, Target{}), CompileError);
}

}  // namespace
}  // namespace tinyaot
