// fold_pad_into_conv on hand-built graphs: which PADs fold, the padding the
// convolution ends up with, and that the folded convolution computes what
// the PAD + convolution pair computed.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "compiler/lower/lowering.h"
#include "compiler/passes/passes.h"
#include "kernels/common/quant.h"
#include "kernels/conv2d/conv2d.h"
#include "support/validate_support.h"

namespace tinyaot {
namespace {

constexpr int32_t kZeroPoint = 3;

template <typename T>
std::vector<uint8_t> bytes_of(const std::vector<T>& values) {
  std::vector<uint8_t> out(values.size() * sizeof(T));
  std::memcpy(out.data(), values.data(), out.size());
  return out;
}

int32_t add_tensor(Graph& graph, std::vector<int32_t> shape, DType dtype = DType::kInt8,
                   float scale = 0.5f, int64_t zero_point = kZeroPoint) {
  Tensor t;
  t.name = "t" + std::to_string(graph.tensors.size());
  t.dtype = dtype;
  t.shape = std::move(shape);
  if (dtype == DType::kInt8) t.quant = {{scale}, {zero_point}, 0};
  graph.tensors.push_back(std::move(t));
  return static_cast<int32_t>(graph.tensors.size() - 1);
}

template <typename T>
int32_t add_constant(Graph& graph, std::vector<int32_t> shape, const std::vector<T>& values,
                     DType dtype) {
  const int32_t id = add_tensor(graph, std::move(shape), dtype);
  graph.tensors[size_t(id)].data = bytes_of(values);
  return id;
}

struct PadConvGraph {
  Graph graph;
  int32_t input = -1, padded = -1, output = -1;
};

// input [1,5,5,2] -> PAD (H 1/2, W 2/1) -> [1,8,8,2] -> 3x3 conv stride 2
// SAME (or depthwise) -> [1,4,4,C]. With `channel_pad` the PAD also pads C.
PadConvGraph make_graph(OpType pad_type, OpType conv_type, bool channel_pad = false) {
  PadConvGraph g;
  Graph& graph = g.graph;
  g.input = add_tensor(graph, {1, 5, 5, 2});
  const int32_t c_after = channel_pad ? 1 : 0;
  const int32_t paddings =
      add_constant<int32_t>(graph, {4, 2}, {0, 0, 1, 2, 2, 1, 0, c_after}, DType::kInt32);
  g.padded = add_tensor(graph, {1, 8, 8, 2 + c_after});
  const int32_t depth = 2 + c_after;
  const bool depthwise = conv_type == OpType::kDepthwiseConv2d;
  const int32_t channels = depthwise ? depth : 3;
  std::vector<int8_t> weights(size_t(9 * depth * (depthwise ? 1 : channels)));
  for (size_t i = 0; i < weights.size(); ++i) weights[i] = int8_t(int(i * 37 % 255) - 127);
  const int32_t filter =
      depthwise ? add_constant<int8_t>(graph, {1, 3, 3, channels}, weights, DType::kInt8)
                : add_constant<int8_t>(graph, {channels, 3, 3, depth}, weights, DType::kInt8);
  graph.tensors[size_t(filter)].quant = {{0.01f}, {0}, 0};
  const int32_t bias = add_constant<int32_t>(
      graph, {channels}, std::vector<int32_t>(size_t(channels), 100), DType::kInt32);
  g.output = add_tensor(graph, {1, 4, 4, channels}, DType::kInt8, 0.25f, -7);

  Operation pad;
  pad.type = pad_type;
  pad.inputs = {g.input, paddings};
  pad.outputs = {g.padded};
  Operation conv;
  conv.type = conv_type;
  conv.source_index = 1;
  conv.inputs = {g.padded, filter, bias};
  conv.outputs = {g.output};
  conv.attrs.padding = Padding::kSame;
  conv.attrs.stride_h = conv.attrs.stride_w = 2;
  conv.attrs.depth_multiplier = 1;
  graph.operations = {pad, conv};
  graph.inputs = {g.input};
  graph.outputs = {g.output};
  return g;
}

void add_pad_constant(PadConvGraph& g, int8_t value) {
  const int32_t constant = add_constant<int8_t>(g.graph, {}, {value}, DType::kInt8);
  g.graph.operations[0].inputs.push_back(constant);
}

TEST(FoldPad, FoldsPadIntoSameConv) {
  PadConvGraph g = make_graph(OpType::kPad, OpType::kConv2d);
  fold_pad_into_conv(g.graph);
  ASSERT_EQ(g.graph.operations.size(), 1u);
  const Operation& conv = g.graph.operations[0];
  EXPECT_EQ(conv.type, OpType::kConv2d);
  EXPECT_EQ(conv.inputs[0], g.input);
  // The conv's own SAME padding on the 8x8 PAD output: 4 outputs at stride
  // 2 span (4-1)*2 + 3 = 9 rows, total 1, so 0 before and 1 after (both
  // axes). Added to the PAD's H 1/2 and W 2/1: top 1, bottom 3, left 2,
  // right 2.
  EXPECT_TRUE(conv.attrs.explicit_padding);
  EXPECT_EQ(conv.attrs.pad_top, 1);
  EXPECT_EQ(conv.attrs.pad_bottom, 3);
  EXPECT_EQ(conv.attrs.pad_left, 2);
  EXPECT_EQ(conv.attrs.pad_right, 2);
}

TEST(FoldPad, FoldsPadV2WithZeroPointValueIntoDepthwise) {
  PadConvGraph g = make_graph(OpType::kPadV2, OpType::kDepthwiseConv2d);
  add_pad_constant(g, kZeroPoint);
  fold_pad_into_conv(g.graph);
  ASSERT_EQ(g.graph.operations.size(), 1u);
  EXPECT_EQ(g.graph.operations[0].inputs[0], g.input);
  EXPECT_TRUE(g.graph.operations[0].attrs.explicit_padding);
}

TEST(FoldPad, KeepsPadV2WithAnotherValue) {
  PadConvGraph g = make_graph(OpType::kPadV2, OpType::kConv2d);
  add_pad_constant(g, kZeroPoint + 1);
  fold_pad_into_conv(g.graph);
  ASSERT_EQ(g.graph.operations.size(), 2u);
  EXPECT_EQ(g.graph.operations[1].inputs[0], g.padded);
  EXPECT_FALSE(g.graph.operations[1].attrs.explicit_padding);
}

TEST(FoldPad, KeepsPadOfChannels) {
  PadConvGraph g = make_graph(OpType::kPad, OpType::kConv2d, /*channel_pad=*/true);
  fold_pad_into_conv(g.graph);
  EXPECT_EQ(g.graph.operations.size(), 2u);
}

TEST(FoldPad, KeepsPadWithAnotherReader) {
  PadConvGraph g = make_graph(OpType::kPad, OpType::kConv2d);
  Operation copy = g.graph.operations[1];
  copy.outputs = {add_tensor(g.graph, {1, 4, 4, 3})};
  g.graph.operations.push_back(copy);
  fold_pad_into_conv(g.graph);
  EXPECT_EQ(g.graph.operations.size(), 3u);
}

TEST(FoldPad, KeepsPadWhoseOutputIsAGraphOutput) {
  PadConvGraph g = make_graph(OpType::kPad, OpType::kConv2d);
  g.graph.outputs.push_back(g.padded);
  fold_pad_into_conv(g.graph);
  EXPECT_EQ(g.graph.operations.size(), 2u);
}

TEST(FoldPad, KeepsPadThatRequantizes) {
  PadConvGraph g = make_graph(OpType::kPad, OpType::kConv2d);
  g.graph.tensors[size_t(g.padded)].quant.zero_points = {kZeroPoint + 2};
  fold_pad_into_conv(g.graph);
  EXPECT_EQ(g.graph.operations.size(), 2u);
}

TEST(FoldPad, KeepsPadBeforePooling) {
  PadConvGraph g = make_graph(OpType::kPad, OpType::kConv2d);
  g.graph.operations[1].type = OpType::kMaxPool2d;
  fold_pad_into_conv(g.graph);
  EXPECT_EQ(g.graph.operations.size(), 2u);
  g.graph.operations[1].type = OpType::kAveragePool2d;
  fold_pad_into_conv(g.graph);
  EXPECT_EQ(g.graph.operations.size(), 2u);
}

// Runs a lowered convolution on `input`.
std::vector<int8_t> run_lowered(const Graph& graph, const LoweredOp& lowered,
                                const std::vector<int8_t>& input) {
  const KernelDescriptor* kernel = find_kernel(static_cast<uint32_t>(lowered.kernel));
  EXPECT_NE(kernel, nullptr);
  if (kernel == nullptr) return {};
  const Tensor& output = graph.tensors[size_t(lowered.outputs[0])];
  // Every operand after the input is a constant: the model's (weights the
  // variant takes as they are) or the lowering's own (reordered weights,
  // per-channel constants, a pad row).
  std::vector<int8_t> in = input;
  std::vector<int8_t> out(size_t(output.bytes()));
  const size_t num_inputs = lowered.inputs.size();
  std::vector<std::vector<uint8_t>> constants(num_inputs);
  std::vector<Operand> ins(num_inputs);
  std::vector<uint32_t> in_bytes(num_inputs);
  std::vector<const void*> views(num_inputs, nullptr);
  ins[0] = {in.data(), uint32_t(in.size())};
  for (size_t i = 1; i < num_inputs; ++i) {
    const LoweredOperand& operand = lowered.inputs[i];
    constants[i] =
        operand.tensor >= 0 ? *graph.tensors[size_t(operand.tensor)].data : operand.constant;
    ins[i] = {constants[i].data(), uint32_t(constants[i].size())};
    views[i] = constants[i].data();
  }
  for (size_t i = 0; i < num_inputs; ++i) in_bytes[i] = ins[i].bytes;
  const uint32_t out_bytes[1] = {uint32_t(out.size())};
  const Status valid = test::validate_sizes(*kernel, lowered.params.data(), in_bytes.data(),
                                            uint32_t(num_inputs), out_bytes, 1, views.data());
  EXPECT_EQ(valid, Status::kOk) << kernel->name;
  if (valid != Status::kOk) return {};
  const Operand outs[1] = {{out.data(), out_bytes[0]}};
  // The target's variant may plan scratch (im2col); uint32 keeps it aligned.
  std::vector<uint32_t> scratch((lowered.scratch_bytes + 3) / 4);
  const Operand scratch_operand{lowered.scratch_bytes ? scratch.data() : nullptr,
                                lowered.scratch_bytes};
  const KernelArgs args{lowered.params.data(), ins.data(),       uint32_t(num_inputs), outs, 1,
                        scratch_operand,       Rounding::kDouble};
  EXPECT_EQ(kernel->run(args), Status::kOk);
  return out;
}

// The PAD done by hand: the 5x5 input placed at row 1, column 2 of an 8x8
// image filled with the zero point.
std::vector<int8_t> pad_by_hand(const std::vector<int8_t>& input) {
  std::vector<int8_t> padded(8 * 8 * 2, int8_t(kZeroPoint));
  for (int y = 0; y < 5; ++y)
    for (int x = 0; x < 5; ++x)
      for (int c = 0; c < 2; ++c)
        padded[size_t(((y + 1) * 8 + (x + 2)) * 2 + c)] = input[size_t((y * 5 + x) * 2 + c)];
  return padded;
}

void expect_fold_preserves_output(OpType conv_type) {
  PadConvGraph unfolded = make_graph(OpType::kPad, conv_type);
  PadConvGraph folded = make_graph(OpType::kPad, conv_type);
  fold_pad_into_conv(folded.graph);
  ASSERT_EQ(folded.graph.operations.size(), 1u);
  std::vector<int8_t> input(5 * 5 * 2);
  for (size_t i = 0; i < input.size(); ++i) input[i] = int8_t(int(i * 53 % 256) - 128);
  // Each ISA class's variant: the im2col ones fill the folded padding themselves.
  for (Core core : {Core::kCortexM0, Core::kCortexM4, Core::kCortexM55}) {
    const Target target{core, core_isa(core), Rounding::kDouble};
    const LoweredOp before = lower_operation(unfolded.graph, unfolded.graph.operations[1], target);
    const LoweredOp after = lower_operation(folded.graph, folded.graph.operations[0], target);
    EXPECT_EQ(run_lowered(folded.graph, after, input),
              run_lowered(unfolded.graph, before, pad_by_hand(input)))
        << core_name(core);
  }
}

TEST(FoldPad, FoldedConvComputesTheSame) { expect_fold_preserves_output(OpType::kConv2d); }

TEST(FoldPad, FoldedDepthwiseComputesTheSame) {
  expect_fold_preserves_output(OpType::kDepthwiseConv2d);
}

}  // namespace
}  // namespace tinyaot
