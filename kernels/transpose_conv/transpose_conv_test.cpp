// TRANSPOSE_CONV through its descriptor: validation, hand-derived outputs,
// the lowering's padding and scratch, and scratch-bound property tests.
#include "kernels/transpose_conv/transpose_conv.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "kernels/common/lower_helpers.h"
#include "kernels/lowerings.h"
#include "support/validate_support.h"

namespace tinyaot {
namespace {

const KernelDescriptor& kernel() { return kernel_transpose_conv_s8_ref; }

// multiplier 2^30 with shift 1 rescales by exactly 1.0: x * 2 * 2^30 / 2^31.
constexpr ChannelQuant kIdentity = make_channel_quant(0, 1 << 30, 1);

TransposeConvParams make_params(int32_t n, int32_t ih, int32_t iw, int32_t ic, int32_t kh,
                                int32_t kw, int32_t oh, int32_t ow, int32_t oc, int32_t stride) {
  TransposeConvParams p{};
  p.batches = n;
  p.input_h = ih;
  p.input_w = iw;
  p.input_depth = ic;
  p.filter_h = kh;
  p.filter_w = kw;
  p.output_h = oh;
  p.output_w = ow;
  p.output_depth = oc;
  p.stride_h = stride;
  p.stride_w = stride;
  p.act_min = -128;
  p.act_max = 127;
  return p;
}

struct Sizes {
  uint32_t in[3];
  uint32_t out[1];
};

Sizes sizes_of(const TransposeConvParams& p) {
  const auto input = uint32_t(p.batches) * p.input_h * p.input_w * p.input_depth;
  const auto filter = uint32_t(p.output_depth) * p.filter_h * p.filter_w * p.input_depth;
  const auto quant = uint32_t(p.output_depth * sizeof(ChannelQuant));
  const auto output = uint32_t(p.batches) * p.output_h * p.output_w * p.output_depth;
  return {{input, filter, quant}, {output}};
}

Status validate(const TransposeConvParams& p) {
  const Sizes s = sizes_of(p);
  return test::validate_sizes_with_unit_quants(kernel(), &p, s.in, 3, s.out, 1);
}

// Runs the kernel with a scratch of exactly the declared size.
Status run(const TransposeConvParams& p, const std::vector<int8_t>& input,
           const std::vector<int8_t>& filter, const std::vector<ChannelQuant>& quant,
           std::vector<int8_t>* output, Rounding rounding = Rounding::kDouble) {
  const uint32_t scratch_bytes = kernel().scratch_bytes(&p);
  std::vector<int32_t> scratch(scratch_bytes / 4);
  output->assign(sizes_of(p).out[0], 0);
  const Operand inputs[] = {
      {const_cast<int8_t*>(input.data()), uint32_t(input.size())},
      {const_cast<int8_t*>(filter.data()), uint32_t(filter.size())},
      {const_cast<ChannelQuant*>(quant.data()), uint32_t(quant.size() * sizeof(ChannelQuant))}};
  const Operand outputs[] = {{output->data(), uint32_t(output->size())}};
  KernelArgs args{&p, inputs, 3, outputs, 1, {scratch.data(), scratch_bytes}, rounding};
  return kernel().run(args);
}

TEST(TransposeConvKernel, ValidateAcceptsConsistentOperands) {
  EXPECT_EQ(validate(make_params(1, 5, 7, 9, 3, 3, 10, 14, 7, 2)), Status::kOk);
}

TEST(TransposeConvKernel, ValidateRejectsInconsistentSizes) {
  const TransposeConvParams p = make_params(1, 2, 3, 4, 2, 2, 4, 6, 5, 2);
  Sizes s = sizes_of(p);
  for (int operand = 0; operand < 4; ++operand) {
    Sizes bad = s;
    uint32_t* slot = operand < 3 ? &bad.in[operand] : &bad.out[0];
    *slot += 1;
    EXPECT_EQ(test::validate_sizes_with_unit_quants(kernel(), &p, bad.in, 3, bad.out, 1),
              Status::kBadParams)
        << operand;
  }
  EXPECT_EQ(test::validate_sizes_with_unit_quants(kernel(), &p, s.in, 2, s.out, 1),
            Status::kBadParams);
  const uint32_t two_outputs[2] = {s.out[0], s.out[0]};
  EXPECT_EQ(test::validate_sizes_with_unit_quants(kernel(), &p, s.in, 3, two_outputs, 2),
            Status::kBadParams);
}

TEST(TransposeConvKernel, ValidateRejectsBadDimensionsAndParameters) {
  const TransposeConvParams good = make_params(1, 2, 3, 4, 2, 2, 4, 6, 5, 2);
  int32_t TransposeConvParams::*const dims[] = {
      &TransposeConvParams::batches,      &TransposeConvParams::input_h,
      &TransposeConvParams::input_w,      &TransposeConvParams::input_depth,
      &TransposeConvParams::filter_h,     &TransposeConvParams::filter_w,
      &TransposeConvParams::output_h,     &TransposeConvParams::output_w,
      &TransposeConvParams::output_depth, &TransposeConvParams::stride_h,
      &TransposeConvParams::stride_w};
  for (auto dim : dims) {
    for (int32_t value : {0, -1, INT32_MIN}) {
      TransposeConvParams p = good;
      p.*dim = value;
      EXPECT_EQ(validate(p), Status::kBadParams) << value;
    }
  }
  TransposeConvParams p = good;
  p.pad_top = -1;
  EXPECT_EQ(validate(p), Status::kBadParams);
  p = good;
  p.input_offset = 129;
  EXPECT_EQ(validate(p), Status::kBadParams);
  p = good;
  p.output_offset = -129;
  EXPECT_EQ(validate(p), Status::kBadParams);
  p = good;
  p.act_min = 10;
  p.act_max = 9;
  EXPECT_EQ(validate(p), Status::kBadParams);
}

TEST(TransposeConvKernel, ValidateRejectsOverflowingDimensions) {
  // 2^16 * 2^16 elements wrap a 32-bit product to 0: must not pass as tiny.
  TransposeConvParams p = make_params(1, 1, 1, 1, 1, 1, 65536, 65536, 1, 1);
  const uint32_t in[] = {1, 1, sizeof(ChannelQuant)};
  const uint32_t out[] = {0};
  EXPECT_EQ(test::validate_sizes_with_unit_quants(kernel(), &p, in, 3, out, 1), Status::kBadParams);
  // Output fits int32 but its int32 accumulator (x4 bytes) does not.
  p = make_params(1, 1, 1, 1, 1, 1, 1 << 15, 1 << 15, 1, 1);
  const uint32_t out2[] = {1u << 30};
  EXPECT_EQ(test::validate_sizes_with_unit_quants(kernel(), &p, in, 3, out2, 1),
            Status::kBadParams);
  EXPECT_EQ(kernel().scratch_bytes(&p), UINT32_MAX);
}

TEST(TransposeConvKernel, ScratchIsOneInt32PerOutputElement) {
  const TransposeConvParams p = make_params(2, 5, 7, 9, 3, 3, 10, 14, 7, 2);
  EXPECT_EQ(kernel().scratch_bytes(&p), 2u * 10 * 14 * 7 * 4);
  EXPECT_EQ(transpose_conv_s8_ref_scratch_bytes(p), 2u * 10 * 14 * 7 * 4);
}

TEST(TransposeConvKernel, RejectsTooSmallScratch) {
  const TransposeConvParams p = make_params(1, 1, 1, 1, 1, 1, 1, 1, 1, 1);
  const int8_t value = 1;
  const ChannelQuant q = kIdentity;
  int8_t out = 0;
  int32_t scratch = 0;
  const Operand inputs[] = {{const_cast<int8_t*>(&value), 1},
                            {const_cast<int8_t*>(&value), 1},
                            {const_cast<ChannelQuant*>(&q), sizeof(q)}};
  const Operand outputs[] = {{&out, 1}};
  KernelArgs args{&p, inputs, 3, outputs, 1, {&scratch, 3}, Rounding::kDouble};
  EXPECT_EQ(kernel().run(args), Status::kBadArgument);
  args.scratch = {&scratch, 4};
  EXPECT_EQ(kernel().run(args), Status::kOk);
  EXPECT_EQ(out, 1);
}

TEST(TransposeConvKernel, Stride2ValidTilesTheFilter) {
  // Input 2x2 [[1,2],[3,4]], filter 2x2 [[1,-1],[2,0]], stride 2, no
  // padding: each input pixel v writes v*filter into its own 2x2 block of
  // the 4x4 output; then + bias 10, rescale 1.0, + output zero point -5.
  TransposeConvParams p = make_params(1, 2, 2, 1, 2, 2, 4, 4, 1, 2);
  p.output_offset = -5;
  ChannelQuant q = kIdentity;
  q.bias = 10;
  std::vector<int8_t> out;
  ASSERT_EQ(run(p, {1, 2, 3, 4}, {1, -1, 2, 0}, {q}, &out), Status::kOk);
  // Row 0: pixels 1, 2 -> [1,-1, 2,-2] + 5; row 1: [2,0, 4,0] + 5;
  // row 2: pixels 3, 4 -> [3,-3, 4,-4] + 5; row 3: [6,0, 8,0] + 5.
  const std::vector<int8_t> expected = {6, 4, 7, 3, 7, 5, 9, 5, 8, 2, 9, 1, 11, 5, 13, 5};
  EXPECT_EQ(out, expected);
}

TEST(TransposeConvKernel, OverlappingTapsAccumulateAndInputOffsetApplies) {
  // Input row [1,2] with zero point -1 (offset +1): values 2, 3. Filter row
  // [3,4], stride 1, output width 3: out0 = 2*3 = 6, out1 = 2*4 + 3*3 = 17,
  // out2 = 3*4 = 12.
  TransposeConvParams p = make_params(1, 1, 2, 1, 1, 2, 1, 3, 1, 1);
  p.input_offset = 1;
  std::vector<int8_t> out;
  ASSERT_EQ(run(p, {1, 2}, {3, 4}, {kIdentity}, &out), Status::kOk);
  EXPECT_EQ(out, (std::vector<int8_t>{6, 17, 12}));
}

TEST(TransposeConvKernel, LeadingPaddingShiftsAndTrailingCrops) {
  // pad_left 1, output width 2: x=0 lands at -1 (dropped) and 0; x=1 at 0
  // and 1. out0 = 1*4 + 2*3 = 10, out1 = 2*4 = 8.
  TransposeConvParams p = make_params(1, 1, 2, 1, 1, 2, 1, 2, 1, 1);
  p.pad_left = 1;
  std::vector<int8_t> out;
  ASSERT_EQ(run(p, {1, 2}, {3, 4}, {kIdentity}, &out), Status::kOk);
  EXPECT_EQ(out, (std::vector<int8_t>{10, 8}));
}

TEST(TransposeConvKernel, PerChannelRescaleAndClamp) {
  // One input pixel [5, -2] (two input channels), 1x1 filter, 2 output
  // channels: ch0 weights [2, 1] -> 10 - 2 = 8 at scale 1.0; ch1 weights
  // [4, 0] -> 20 at scale 0.5 (multiplier 2^30, shift 0) = 10.
  TransposeConvParams p = make_params(1, 1, 1, 2, 1, 1, 1, 1, 2, 1);
  const ChannelQuant half = make_channel_quant(0, 1 << 30, 0);
  std::vector<int8_t> out;
  ASSERT_EQ(run(p, {5, -2}, {2, 1, 4, 0}, {kIdentity, half}, &out), Status::kOk);
  EXPECT_EQ(out, (std::vector<int8_t>{8, 10}));
  // Clamp to [9, 9]: 8 rises to 9, 10 falls to 9.
  p.act_min = 9;
  p.act_max = 9;
  ASSERT_EQ(run(p, {5, -2}, {2, 1, 4, 0}, {kIdentity, half}, &out), Status::kOk);
  EXPECT_EQ(out, (std::vector<int8_t>{9, 9}));
}

// Gather formulation, independent of the kernel's scatter loop: each output
// element sums the input pixels whose filter footprint covers it.
std::vector<int8_t> gather_oracle(const TransposeConvParams& p, const std::vector<int8_t>& input,
                                  const std::vector<int8_t>& filter,
                                  const std::vector<ChannelQuant>& quant, Rounding rounding) {
  std::vector<int8_t> out;
  for (int b = 0; b < p.batches; ++b)
    for (int oy = 0; oy < p.output_h; ++oy)
      for (int ox = 0; ox < p.output_w; ++ox)
        for (int oc = 0; oc < p.output_depth; ++oc) {
          int64_t acc = 0;
          for (int fy = 0; fy < p.filter_h; ++fy)
            for (int fx = 0; fx < p.filter_w; ++fx) {
              const int y = oy + p.pad_top - fy, x = ox + p.pad_left - fx;
              if (y < 0 || x < 0 || y % p.stride_h || x % p.stride_w) continue;
              const int iy = y / p.stride_h, ix = x / p.stride_w;
              if (iy >= p.input_h || ix >= p.input_w) continue;
              for (int ic = 0; ic < p.input_depth; ++ic)
                acc += (input[((b * p.input_h + iy) * p.input_w + ix) * p.input_depth + ic] +
                        p.input_offset) *
                       filter[((oc * p.filter_h + fy) * p.filter_w + fx) * p.input_depth + ic];
            }
          const ChannelQuant& q = quant[oc];
          const int32_t v =
              requantize(static_cast<int32_t>(acc) + q.bias, q.multiplier, q.shift, rounding) +
              p.output_offset;
          out.push_back(static_cast<int8_t>(clamp_i32(v, p.act_min, p.act_max)));
        }
  return out;
}

TEST(TransposeConvKernel, ScratchStaysWithinDeclaredSizeOnRandomShapes) {
  std::mt19937 rng(20240611);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  for (int trial = 0; trial < 60; ++trial) {
    const int stride = pick(1, 3), kh = pick(1, 4), kw = pick(1, 4);
    const int ih = pick(1, 6), iw = pick(1, 6);
    // Output anywhere from cropped to a little beyond the full extent.
    TransposeConvParams p =
        make_params(pick(1, 2), ih, iw, pick(1, 5), kh, kw, pick(1, (ih - 1) * stride + kh + 1),
                    pick(1, (iw - 1) * stride + kw + 1), pick(1, 6), stride);
    p.stride_w = pick(1, 3);
    p.pad_top = pick(0, kh - 1);
    p.pad_left = pick(0, kw - 1);
    p.input_offset = pick(-127, 128);
    p.output_offset = pick(-128, 127);
    p.act_min = pick(-128, 0);
    p.act_max = pick(0, 127);
    ASSERT_EQ(validate(p), Status::kOk);
    const Sizes s = sizes_of(p);
    std::vector<int8_t> input(s.in[0]), filter(s.in[1]);
    for (auto& v : input) v = static_cast<int8_t>(pick(-128, 127));
    for (auto& v : filter) v = static_cast<int8_t>(pick(-127, 127));
    std::vector<ChannelQuant> quant(static_cast<size_t>(p.output_depth));
    for (auto& q : quant)
      q = make_channel_quant(pick(-5000, 5000), pick(1 << 30, INT32_MAX), pick(-12, 1));
    const Rounding rounding = trial % 2 ? Rounding::kSingle : Rounding::kDouble;

    const uint32_t declared = kernel().scratch_bytes(&p);
    ASSERT_EQ(declared % 4, 0u);
    const Operand inputs[] = {
        {input.data(), s.in[0]}, {filter.data(), s.in[1]}, {quant.data(), s.in[2]}};
    // Exactly the declared size at the front of a larger, patterned buffer.
    const uint32_t guard = 256;
    std::vector<int32_t> tight_words((declared + guard) / 4);
    auto* tight = reinterpret_cast<uint8_t*>(tight_words.data());
    std::fill(tight, tight + declared + guard, uint8_t{0xA5});
    std::vector<int8_t> out_tight(s.out[0]);
    const Operand out_a[] = {{out_tight.data(), s.out[0]}};
    KernelArgs args{&p, inputs, 3, out_a, 1, {tight, declared}, rounding};
    ASSERT_EQ(kernel().run(args), Status::kOk);
    for (uint32_t i = declared; i < declared + guard; ++i)
      ASSERT_EQ(tight[i], 0xA5) << "trial " << trial << " wrote scratch byte " << i;

    // A generous buffer, also dirty, must give the same outputs.
    std::vector<int32_t> generous((declared + 4096) / 4, 0x5A5A5A5A);
    std::vector<int8_t> out_generous(s.out[0]);
    const Operand out_b[] = {{out_generous.data(), s.out[0]}};
    args.outputs = out_b;
    args.scratch = {generous.data(), uint32_t(generous.size() * 4)};
    ASSERT_EQ(kernel().run(args), Status::kOk);
    ASSERT_EQ(out_tight, out_generous) << "trial " << trial;
    ASSERT_EQ(out_tight, gather_oracle(p, input, filter, quant, rounding)) << "trial " << trial;
  }
}

// ---- lowering ----

Tensor tensor(std::vector<int32_t> shape, DType dtype = DType::kInt8) {
  Tensor t;
  t.dtype = dtype;
  t.shape = std::move(shape);
  t.quant.scales = {0.02f};
  t.quant.zero_points = {0};
  return t;
}

template <typename T>
void set_data(Tensor* t, const std::vector<T>& values) {
  t->data = std::vector<uint8_t>(values.size() * sizeof(T));
  std::memcpy(t->data->data(), values.data(), t->data->size());
}

// TRANSPOSE_CONV 3x3 from [1,5,7,2] to [1,oh,ow,3].
Graph transpose_conv_graph(int32_t oh, int32_t ow, Padding padding) {
  Graph g;
  Tensor shape = tensor({4}, DType::kInt32);
  shape.quant = {};
  set_data(&shape, std::vector<int32_t>{1, oh, ow, 3});
  Tensor filter = tensor({3, 3, 3, 2});
  filter.quant.scales = {0.01f, 0.02f, 0.03f};
  filter.quant.zero_points = {0, 0, 0};
  set_data(&filter, std::vector<int8_t>(3 * 3 * 3 * 2, 1));
  g.tensors = {shape, filter, tensor({1, 5, 7, 2}), tensor({1, oh, ow, 3})};
  Operation op;
  op.type = OpType::kTransposeConv;
  op.inputs = {0, 1, 2};
  op.outputs = {3};
  op.attrs.padding = padding;
  op.attrs.stride_h = op.attrs.stride_w = 2;
  g.operations = {op};
  return g;
}

TransposeConvParams lowered_params(const LoweredOp& lowered) {
  TransposeConvParams p;
  EXPECT_EQ(lowered.params.size(), sizeof(p));
  std::memcpy(&p, lowered.params.data(), sizeof(p));
  return p;
}

TEST(TransposeConvLowering, PaddingFollowsTheConvolutionOfTheOutput) {
  // SAME, stride 2, 3x3: output 10 -> conv out 5, total (5-1)*2+3-10 = 1,
  // leading 0; output 9 -> total (5-1)*2+3-9 = 2, leading 1; width 14 ->
  // 7 windows, total 6*2+3-14 = 1, leading 0.
  Graph g = transpose_conv_graph(10, 14, Padding::kSame);
  TransposeConvParams p = lowered_params(lower_transpose_conv(g, g.operations[0], Target{}));
  EXPECT_EQ(p.pad_top, 0);
  EXPECT_EQ(p.pad_left, 0);
  g = transpose_conv_graph(9, 14, Padding::kSame);
  const LoweredOp lowered = lower_transpose_conv(g, g.operations[0], Target{});
  p = lowered_params(lowered);
  EXPECT_EQ(p.pad_top, 1);
  EXPECT_EQ(p.pad_left, 0);
  // Scratch: one int32 per output element, planned from the kernel's own function.
  EXPECT_EQ(lowered.scratch_bytes, 9u * 14 * 3 * 4);
  EXPECT_EQ(lowered.kernel, KernelId::transpose_conv_s8_ref);
  // Operands: input, weights, then the per-channel constants.
  ASSERT_EQ(lowered.inputs.size(), 3u);
  EXPECT_EQ(lowered.inputs[0].tensor, 2);
  EXPECT_EQ(lowered.inputs[1].tensor, 1);
  EXPECT_EQ(lowered.inputs[2].constant.size(), 3 * sizeof(ChannelQuant));
  // VALID, output 11 = (5-1)*2+3: no padding.
  g = transpose_conv_graph(11, 15, Padding::kValid);
  p = lowered_params(lower_transpose_conv(g, g.operations[0], Target{}));
  EXPECT_EQ(p.pad_top, 0);
  EXPECT_EQ(p.pad_left, 0);
}

TEST(TransposeConvLowering, RejectsAnOutputShapeOperandThatDisagrees) {
  Graph g = transpose_conv_graph(10, 14, Padding::kSame);
  set_data(&g.tensors[0], std::vector<int32_t>{1, 10, 13, 3});
  EXPECT_THROW(lower_transpose_conv(g, g.operations[0], Target{}), CompileError);
}

// ---- the MVE variant through the lowering ----

Target m55() {
  Target t;
  t.core = Core::kCortexM55;
  t.isa = IsaClass::kMve;
  return t;
}

// A TRANSPOSE_CONV from [1,ih,iw,ic] with random weights, bias and
// per-channel scales, TFLite's output size for the padding.
Graph random_graph(std::mt19937& rng, int32_t ih, int32_t iw, int32_t ic, int32_t k, int32_t oc,
                   int32_t stride, Padding padding) {
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  const int32_t oh = padding == Padding::kSame ? ih * stride : (ih - 1) * stride + k;
  const int32_t ow = padding == Padding::kSame ? iw * stride : (iw - 1) * stride + k;
  Graph g;
  Tensor shape = tensor({4}, DType::kInt32);
  shape.quant = {};
  set_data(&shape, std::vector<int32_t>{1, oh, ow, oc});
  Tensor filter = tensor({oc, k, k, ic});
  filter.quant.scales.clear();
  filter.quant.zero_points.clear();
  for (int32_t o = 0; o < oc; ++o) {
    filter.quant.scales.push_back(0.001f * float(pick(1, 20)));
    filter.quant.zero_points.push_back(0);
  }
  std::vector<int8_t> weights(size_t(oc * k * k * ic));
  for (auto& w : weights) w = static_cast<int8_t>(pick(-127, 127));
  set_data(&filter, weights);
  Tensor bias = tensor({oc}, DType::kInt32);
  std::vector<int32_t> biases(static_cast<size_t>(oc));
  for (auto& b : biases) b = pick(-3000, 3000);
  set_data(&bias, biases);
  Tensor input = tensor({1, ih, iw, ic});
  input.quant.zero_points = {pick(-128, 127)};
  Tensor output = tensor({1, oh, ow, oc});
  output.quant.scales = {0.5f};
  output.quant.zero_points = {pick(-20, 20)};
  g.tensors = {shape, filter, input, output, bias};
  Operation op;
  op.type = OpType::kTransposeConv;
  op.inputs = {0, 1, 2, 4};
  op.outputs = {3};
  op.attrs.padding = padding;
  op.attrs.stride_h = op.attrs.stride_w = stride;
  op.act_min = -128;
  op.act_max = 127;
  g.operations = {op};
  return g;
}

// Validates (constants visible, as the loader sees them) and runs a lowered
// operation with the scratch it asks for.
std::vector<int8_t> run_lowered(const Graph& g, const LoweredOp& lowered,
                                const std::vector<int8_t>& input, Rounding rounding) {
  const KernelDescriptor& k = *find_kernel(static_cast<uint32_t>(lowered.kernel));
  std::vector<std::vector<uint8_t>> bytes = {std::vector<uint8_t>(input.begin(), input.end())};
  for (size_t i = 1; i < lowered.inputs.size(); ++i) {
    const LoweredOperand& operand = lowered.inputs[i];
    bytes.push_back(operand.tensor >= 0 ? *g.tensors[size_t(operand.tensor)].data
                                        : operand.constant);
  }
  std::vector<Operand> in;
  std::vector<OperandView> views;
  for (size_t i = 0; i < bytes.size(); ++i) {
    in.push_back({bytes[i].data(), uint32_t(bytes[i].size())});
    views.push_back({i == 0 ? nullptr : bytes[i].data(), uint32_t(bytes[i].size())});
  }
  const Tensor& out_tensor = g.tensors[size_t(g.operations[0].outputs[0])];
  std::vector<int8_t> output(
      size_t(out_tensor.shape[1] * out_tensor.shape[2] * out_tensor.shape[3]), 99);
  const Operand out{output.data(), uint32_t(output.size())};
  const OperandView out_view{nullptr, out.bytes};
  EXPECT_EQ(k.validate(lowered.params.data(), views.data(), uint32_t(views.size()), &out_view, 1),
            Status::kOk);
  std::vector<int32_t> scratch(lowered.scratch_bytes / 4 + 1);
  const KernelArgs args{lowered.params.data(),
                        in.data(),
                        uint32_t(in.size()),
                        &out,
                        1,
                        {scratch.data(), lowered.scratch_bytes},
                        rounding};
  EXPECT_EQ(k.run(args), Status::kOk);
  return output;
}

// On an MVE core the lowering picks the gather variant, which needs no
// scratch; its weights and the taps' offset sums, laid out by the lowering, give the
// reference's outputs (the host runs the variant's portable path) for
// strides 1-3, SAME and VALID, and depths below, at and past 16.
TEST(TransposeConvLowering, MveCoreGetsTheGatherVariantWithTheReferenceOutputs) {
  std::mt19937 rng(20261201);
  struct Shape {
    int32_t ih, iw, ic, k, oc, stride;
    Padding padding;
  };
  const Shape shapes[] = {
      {5, 7, 9, 3, 7, 2, Padding::kSame},   {7, 6, 10, 2, 6, 2, Padding::kValid},
      {4, 5, 17, 3, 33, 1, Padding::kSame}, {3, 4, 3, 5, 5, 3, Padding::kValid},
      {3, 3, 33, 4, 18, 3, Padding::kSame}, {2, 5, 16, 1, 4, 2, Padding::kSame}};
  for (const Shape& s : shapes) {
    const Graph g = random_graph(rng, s.ih, s.iw, s.ic, s.k, s.oc, s.stride, s.padding);
    const LoweredOp mve = lower_transpose_conv(g, g.operations[0], m55());
    const LoweredOp ref = lower_transpose_conv(g, g.operations[0], Target{});
    ASSERT_EQ(mve.kernel, KernelId::transpose_conv_s8_mve) << s.ic << "->" << s.oc;
    ASSERT_EQ(ref.kernel, KernelId::transpose_conv_s8_ref);
    EXPECT_EQ(mve.scratch_bytes, 0u);
    ASSERT_EQ(mve.inputs.size(), 3u);
    // Per group of four channels and tap: four int32 offset sums, four rows of weights.
    const int32_t groups = (s.oc + 3) / 4;
    EXPECT_EQ(mve.inputs[1].constant.size(), size_t(groups * s.k * s.k * (16 + 4 * s.ic)));
    std::vector<int8_t> input(size_t(s.ih * s.iw * s.ic));
    for (auto& v : input)
      v = static_cast<int8_t>(std::uniform_int_distribution<int>(-128, 127)(rng));
    for (Rounding rounding : {Rounding::kDouble, Rounding::kSingle})
      EXPECT_EQ(run_lowered(g, mve, input, rounding), run_lowered(g, ref, input, rounding))
          << s.ic << "->" << s.oc << " stride " << s.stride;
  }
}

}  // namespace
}  // namespace tinyaot
