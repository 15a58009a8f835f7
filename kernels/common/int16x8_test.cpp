// int16x8 weighted operators: TFLite's 64-bit rescale, and a fully
// connected layer lowered and run with an int64 bias (past the int32
// range), an int32 bias and none, through the descriptor's validate and run
// as the loader and the executor call them.
#include "kernels/common/int16x8.h"

#include <gtest/gtest.h>

#include <cstring>

#include "kernels/copy/data_movement_test_support.h"
#include "kernels/fully_connected/fully_connected.h"
#include "kernels/lowerings.h"

namespace tinyaot {
namespace {

TEST(Int16x8, WideRescaleRoundsTheMultiplierToSixteenBits) {
  // 2^30 (a scale of 1/2) rounds to 2^14: x / 2, ties up.
  EXPECT_EQ(requantize_wide(-5001, 1 << 30, 0), -2500);
  EXPECT_EQ(requantize_wide(5001, 1 << 30, 0), 2501);
  // The low half rounds away: 0x40007FFF stays 0x4000, 0x40008000 becomes 0x4001.
  EXPECT_EQ(requantize_wide(int64_t{1} << 20, 0x40007FFF, 0), int32_t{0x4000} << 5);
  EXPECT_EQ(requantize_wide(int64_t{1} << 20, 0x40008000, 0), int32_t{0x4001} << 5);
  // Near the top the rounded multiplier saturates at 0x7FFF (not 0x8000).
  EXPECT_EQ(requantize_wide(int64_t{1} << 20, 0x7FFFC000, 0), int32_t{0x7FFF} << 5);
  // A left shift (shift > 0) and a sum past int32.
  EXPECT_EQ(requantize_wide(3, 1 << 30, 3), 12);
  EXPECT_EQ(requantize_wide(int64_t{3000000000} - 5000, 1 << 30, -17), 11444);
}

// input int16 [1, 2] -> FC with weights [1, 2] (scale 1) -> int16 [1, 1];
// input scale 1, output scale `output_scale`.
struct Int16Fc {
  Graph graph;
  Operation op;
};

Int16Fc int16_fc(float output_scale, DType bias_type, int64_t bias) {
  Int16Fc g;
  const int32_t input = test::add_tensor(g.graph, {1, 2}, 1.0f, 0);
  g.graph.tensors[static_cast<size_t>(input)].dtype = DType::kInt16;
  const int32_t weights = test::add_tensor(g.graph, {1, 2}, 1.0f, 0);
  g.graph.tensors[static_cast<size_t>(weights)].data = std::vector<uint8_t>{3, 4};
  const int32_t output = test::add_tensor(g.graph, {1, 1}, output_scale, 0);
  g.graph.tensors[static_cast<size_t>(output)].dtype = DType::kInt16;
  std::vector<int32_t> inputs = {input, weights};
  if (bias_type != DType::kInt8) {
    const int32_t b = test::add_i32_constant(g.graph, {1}, {0});
    Tensor& t = g.graph.tensors[static_cast<size_t>(b)];
    t.dtype = bias_type;
    const size_t width = bias_type == DType::kInt64 ? 8 : 4;
    t.data = std::vector<uint8_t>(width);
    std::memcpy(t.data->data(), &bias, width);  // little-endian host
    inputs.push_back(b);
  }
  g.op = test::make_op(OpType::kFullyConnected, inputs, output);
  g.op.act_min = -32768;
  g.op.act_max = 32767;
  return g;
}

// Validates and runs the lowered operation on input {1000, -2000}.
int16_t run_fc(const LoweredOp& lowered, Status* status) {
  const int16_t input[2] = {1000, -2000};
  const int8_t weights[2] = {3, 4};
  int16_t output = 12345;
  std::vector<Operand> in = {{const_cast<int16_t*>(input), 4}, {const_cast<int8_t*>(weights), 2}};
  std::vector<OperandView> views = {{nullptr, 4}, {weights, 2}};
  for (size_t i = 2; i < lowered.inputs.size(); ++i) {
    const std::vector<uint8_t>& constant = lowered.inputs[i].constant;
    in.push_back({const_cast<uint8_t*>(constant.data()), static_cast<uint32_t>(constant.size())});
    views.push_back({constant.data(), static_cast<uint32_t>(constant.size())});
  }
  const KernelDescriptor* kernel = find_kernel(static_cast<uint32_t>(lowered.kernel));
  const OperandView out_view{nullptr, 2};
  *status = kernel->validate(lowered.params.data(), views.data(),
                             static_cast<uint32_t>(views.size()), &out_view, 1);
  if (*status != Status::kOk) return output;
  const Operand out{&output, 2};
  const KernelArgs args{
      lowered.params.data(), in.data(),        static_cast<uint32_t>(in.size()), &out, 1,
      {nullptr, 0},          Rounding::kDouble};
  *status = kernel->run(args);
  return output;
}

TEST(Int16x8, FullyConnectedWithInt64BiasAccumulatesIn64Bits) {
  // 3000 - 8000 + 3e9 at a scale of 2^-18: 11444.09...
  const Int16Fc g = int16_fc(262144.0f, DType::kInt64, int64_t{3000000000});
  const LoweredOp lowered = lower_fully_connected(g.graph, g.op, Target{});
  ASSERT_EQ(lowered.kernel, KernelId::fully_connected_s16_dsp);  // Target{}: a DSP core
  ASSERT_EQ(lowered.inputs.size(), 4u);
  Status status;
  EXPECT_EQ(run_fc(lowered, &status), 11444);
  EXPECT_EQ(status, Status::kOk);
}

TEST(Int16x8, FullyConnectedWithInt32BiasOrNoneAccumulatesIn32Bits) {
  // (3000 - 8000 + 1001) / 2 = -1999.5, which the 32-bit rescale rounds up
  // (a multiplier of 2^30 without a right shift); without the bias -2500.
  const Int16Fc with_bias = int16_fc(2.0f, DType::kInt32, 1001);
  const LoweredOp lowered = lower_fully_connected(with_bias.graph, with_bias.op, Target{});
  ASSERT_EQ(lowered.inputs.size(), 3u);
  Status status;
  EXPECT_EQ(run_fc(lowered, &status), -1999);
  EXPECT_EQ(status, Status::kOk);
  const Int16Fc without = int16_fc(2.0f, DType::kInt8, 0);
  EXPECT_EQ(run_fc(lower_fully_connected(without.graph, without.op, Target{}), &status), -2500);
  EXPECT_EQ(status, Status::kOk);
}

TEST(Int16x8, ValidateRefusesAnOffsetAndAShortWideBias) {
  const Int16Fc g = int16_fc(262144.0f, DType::kInt64, 1);
  LoweredOp lowered = lower_fully_connected(g.graph, g.op, Target{});
  Status status;
  LoweredOp short_bias = lowered;
  short_bias.inputs[3].constant.resize(4);
  run_fc(short_bias, &status);
  EXPECT_EQ(status, Status::kBadParams);
  FullyConnectedParams p = test::params_of<FullyConnectedParams>(lowered);
  p.input_offset = 1;
  std::memcpy(lowered.params.data(), &p, sizeof(p));
  run_fc(lowered, &status);
  EXPECT_EQ(status, Status::kBadParams);
}

// The variant follows the target's ISA class, with the int64 bias and the
// int32 one alike, and gives the same output as the reference.
TEST(Int16x8, FullyConnectedVariantFollowsTheIsaClass) {
  const struct {
    IsaClass isa;
    KernelId kernel;
  } cases[] = {{IsaClass::kScalar, KernelId::fully_connected_s16_ref},
               {IsaClass::kDsp, KernelId::fully_connected_s16_dsp},
               {IsaClass::kMve, KernelId::fully_connected_s16_mve}};
  for (const auto& c : cases) {
    Target target;
    target.isa = c.isa;
    Status status;
    const Int16Fc wide = int16_fc(262144.0f, DType::kInt64, int64_t{3000000000});
    const LoweredOp lowered = lower_fully_connected(wide.graph, wide.op, target);
    EXPECT_EQ(lowered.kernel, c.kernel);
    EXPECT_EQ(run_fc(lowered, &status), 11444);
    const Int16Fc narrow = int16_fc(2.0f, DType::kInt32, 1001);
    EXPECT_EQ(lower_fully_connected(narrow.graph, narrow.op, target).kernel, c.kernel);
  }
}

TEST(Int16x8, RoundingModeOnnxIsRefused) {
  const Int16Fc g = int16_fc(2.0f, DType::kInt8, 0);
  Target target;
  target.rounding = Rounding::kOnnx;
  EXPECT_THROW(lower_fully_connected(g.graph, g.op, target), CompileError);
}

}  // namespace
}  // namespace tinyaot
