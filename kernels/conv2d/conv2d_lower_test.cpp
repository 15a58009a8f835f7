// CONV_2D lowering on an MVE target: the variant chosen for windows other
// than 1x1 and the weights it is given, checked against the layout's
// definition (window_mve_layout.h) and run against the reference.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "kernels/conv2d/conv2d.h"
#include "kernels/conv2d/window_mve_layout.h"
#include "kernels/copy/data_movement_test_support.h"
#include "kernels/lowerings.h"

namespace tinyaot {
namespace {

struct ConvGraph {
  Graph graph;
  Operation op;
};

// input [1, h, w, depth] convolved by `channels` f_h x f_w filters, stride
// s, SAME padding, weights 1, 2, 3... (wrapping in int8).
ConvGraph conv_graph(int32_t h, int32_t w, int32_t depth, int32_t f_h, int32_t f_w, int32_t s,
                     int32_t channels) {
  ConvGraph g;
  const int32_t input = test::add_tensor(g.graph, {1, h, w, depth}, 0.5f, -3);
  const int32_t filter = test::add_tensor(g.graph, {channels, f_h, f_w, depth}, 0.25f, 0);
  Tensor& weights = g.graph.tensors[static_cast<size_t>(filter)];
  weights.data = std::vector<uint8_t>(static_cast<size_t>(channels * f_h * f_w * depth));
  for (size_t i = 0; i < weights.data->size(); ++i) (*weights.data)[i] = uint8_t(i + 1);
  const int32_t output =
      test::add_tensor(g.graph, {1, (h + s - 1) / s, (w + s - 1) / s, channels}, 1.0f, 5);
  g.op = test::make_op(OpType::kConv2d, {input, filter}, output);
  g.op.attrs.stride_h = g.op.attrs.stride_w = s;
  g.op.attrs.dilation_h = g.op.attrs.dilation_w = 1;
  g.op.attrs.padding = Padding::kSame;
  g.op.act_min = -128;
  g.op.act_max = 127;
  return g;
}

// The operands of a lowered operation: `input` for the graph's input,
// the constants as lowered (or the graph's, for a tensor operand).
std::vector<std::vector<int8_t>> operands(const ConvGraph& g, const LoweredOp& lowered,
                                          const std::vector<int8_t>& input) {
  std::vector<std::vector<int8_t>> bytes = {input};
  for (size_t i = 1; i < lowered.inputs.size(); ++i) {
    const LoweredOperand& operand = lowered.inputs[i];
    const std::vector<uint8_t>& data =
        operand.tensor >= 0 ? *g.graph.tensors[size_t(operand.tensor)].data : operand.constant;
    bytes.emplace_back(data.begin(), data.end());
  }
  return bytes;
}

// Validates (the constants visible, as the loader sees them) and runs a
// lowered operation with the scratch it asks for, as the loader and the
// executor would.
std::vector<int8_t> run(const LoweredOp& lowered, std::vector<std::vector<int8_t>> inputs,
                        size_t out_bytes, Status* status) {
  const KernelDescriptor& kernel = *find_kernel(static_cast<uint32_t>(lowered.kernel));
  std::vector<Operand> in;
  std::vector<OperandView> views;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const auto bytes = static_cast<uint32_t>(inputs[i].size());
    in.push_back({inputs[i].data(), bytes});
    views.push_back({i == 0 ? nullptr : inputs[i].data(), bytes});
  }
  std::vector<int8_t> output(out_bytes, 99);
  const Operand out{output.data(), static_cast<uint32_t>(out_bytes)};
  const OperandView out_view{nullptr, out.bytes};
  *status =
      kernel.validate(lowered.params.data(), views.data(), uint32_t(views.size()), &out_view, 1);
  if (*status != Status::kOk) return output;
  std::vector<uint8_t> scratch(lowered.scratch_bytes);
  const KernelArgs args{lowered.params.data(),
                        in.data(),
                        uint32_t(in.size()),
                        &out,
                        1,
                        {scratch.empty() ? nullptr : scratch.data(), lowered.scratch_bytes},
                        Rounding::kDouble};
  *status = kernel.run(args);
  return output;
}

Target m55() {
  Target t;
  t.core = Core::kCortexM55;
  t.isa = IsaClass::kMve;
  return t;
}

Target m55_without_scratch() {
  Target t = m55();
  t.max_scratch_bytes = 0;
  return t;
}

// Where the compiler must keep scratch off the arena's peak (the default
// --prefer memory caps it at the room left, here none), the shapes of
// resnet's 3x3 layers and first layer, vww's first (3x3 stride 2 over
// three channels) and kws's first (10x4 over one) take the window
// variant, which needs no scratch at all.
TEST(Conv2dLowering, NoScratchRoomTakesTheWindowVariant) {
  const ConvGraph shapes[] = {
      conv_graph(32, 32, 16, 3, 3, 1, 16), conv_graph(32, 32, 3, 3, 3, 1, 16),
      conv_graph(16, 16, 16, 3, 3, 2, 32), conv_graph(8, 8, 64, 3, 3, 1, 64),
      conv_graph(96, 96, 3, 3, 3, 2, 8),   conv_graph(49, 10, 1, 10, 4, 2, 64)};
  for (const ConvGraph& g : shapes) {
    const LoweredOp lowered = lower_conv2d(g.graph, g.op, m55_without_scratch());
    EXPECT_EQ(lowered.kernel, KernelId::conv2d_s8_window_mve);
    EXPECT_EQ(lowered.scratch_bytes, 0u);
  }
  // With room, kws's first layer (half its windows at an edge, ten
  // segments of 4 bytes each) runs its one packed column.
  EXPECT_EQ(lower_conv2d(shapes[5].graph, shapes[5].op, m55()).kernel,
            KernelId::conv2d_s8_im2col_mve);
}

// The weights operand is the model's in the kernel's layout: position by
// position from the layout's definition, the padding zero.
TEST(Conv2dLowering, WindowMveWeightsAreGroupsOfPaddedBlocks) {
  const ConvGraph g = conv_graph(6, 6, 3, 3, 3, 1, 5);  // 5 channels: a group of one
  const LoweredOp lowered = lower_conv2d(g.graph, g.op, m55_without_scratch());
  ASSERT_EQ(lowered.kernel, KernelId::conv2d_s8_window_mve);
  ASSERT_EQ(lowered.inputs.size(), 3u);
  const std::vector<uint8_t>& stored = lowered.inputs[1].constant;
  // Rows of 3 taps x 3 channels = 9 bytes, one block of 16 each; two groups
  // of 4 channels x 3 rows x 64 bytes.
  ASSERT_EQ(stored.size(), 2u * 3u * 64u);
  const std::vector<uint8_t>& model = *g.graph.tensors[1].data;
  for (int32_t o = 0; o < 8; ++o)
    for (int32_t ky = 0; ky < 3; ++ky)
      for (int32_t k = 0; k < 16; ++k) {
        const size_t at = size_t((((o / 4) * 3 + ky) * 4 + o % 4) * 16 + k);
        const uint8_t want = o < 5 && k < 9 ? model[size_t(o * 27 + ky * 9 + k)] : 0;
        EXPECT_EQ(stored[at], want) << "channel " << o << " row " << ky << " byte " << k;
      }
}

// Dilated windows: each tap its own segment of input_depth bytes.
TEST(Conv2dLowering, DilatedWindowsTakeOneSegmentPerTap) {
  Conv2dParams p{};
  p.filter_h = 2;
  p.filter_w = 3;
  p.input_depth = p.filter_depth = 20;
  p.output_depth = 9;
  p.dilation_h = p.dilation_w = 2;
  const WindowMveShape s = window_mve_shape(p);
  EXPECT_EQ(s.length, 20);
  EXPECT_EQ(s.per_row, 3);
  EXPECT_EQ(s.blocks, 2);
  EXPECT_EQ(s.groups, 3);
  EXPECT_EQ(window_mve_weight_bytes(p), 3 * 2 * 3 * 2 * 64);
  p.dilation_w = 1;  // a row is one run of 3 x 20 bytes
  EXPECT_EQ(window_mve_shape(p).length, 60);
  EXPECT_EQ(window_mve_weight_bytes(p), 3 * 2 * 4 * 64);
}

// Run through its descriptor, the lowered operation gives the bytes of the
// same operation lowered for a scalar core (another variant, itself swept
// against the reference; the host runs this kernel's portable path, the
// emulated M55 its vector path in the variant sweep).
TEST(Conv2dLowering, WindowMveMatchesAScalarCoresVariantOnTheHost) {
  const ConvGraph g = conv_graph(7, 6, 5, 3, 2, 2, 6);
  const LoweredOp lowered = lower_conv2d(g.graph, g.op, m55_without_scratch());
  ASSERT_EQ(lowered.kernel, KernelId::conv2d_s8_window_mve);
  Target scalar;
  scalar.core = Core::kCortexM0;
  scalar.isa = IsaClass::kScalar;
  const LoweredOp reference = lower_conv2d(g.graph, g.op, scalar);
  ASSERT_NE(reference.kernel, KernelId::conv2d_s8_window_mve);
  const std::vector<int8_t> input = test::iota_bytes(7 * 6 * 5, -100);
  const size_t out_bytes = 4 * 3 * 6;
  Status status = Status::kBadParams, reference_status = Status::kBadParams;
  const std::vector<int8_t> got = run(lowered, operands(g, lowered, input), out_bytes, &status);
  const std::vector<int8_t> want =
      run(reference, operands(g, reference, input), out_bytes, &reference_status);
  EXPECT_EQ(status, Status::kOk);
  EXPECT_EQ(reference_status, Status::kOk);
  EXPECT_EQ(got, want);
}

}  // namespace
}  // namespace tinyaot
