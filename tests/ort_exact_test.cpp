// The operations of rounding mode onnx exact against onnxruntime's
// arithmetic: each lowered by the compiler in mode onnx from a
// one-operation graph of random shape and quantization and run by its
// kernel, every output byte compared with ort_reference.h (written from
// tests/onnx_ops/README.md, sharing no code with tinyaot's kernels). Scales
// are random (any significand) and, one case in three, tie-provoking (the
// output scale a power of two times the accumulator's), so rounding ties
// are frequent. No tolerance.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "compiler/lower/lowering.h"
#include "compiler/pipeline.h"
#include "ort_reference/ort_reference.h"
#include "support/run_lowered.h"

namespace tinyaot {
namespace {

Target onnx_target(IsaClass isa = IsaClass::kScalar) {
  Target target;
  target.rounding = Rounding::kOnnx;
  target.isa = isa;
  return target;
}

std::vector<int8_t> random_int8(Draw& draw, size_t count) {
  std::vector<int8_t> values(count);
  for (int8_t& v : values) v = static_cast<int8_t>(draw.uniform(-128, 127));
  return values;
}

template <typename T>
std::vector<uint8_t> bytes_of(const std::vector<T>& values) {
  std::vector<uint8_t> bytes(values.size() * sizeof(T));
  if (!bytes.empty()) std::memcpy(bytes.data(), values.data(), bytes.size());
  return bytes;
}

// An output scale: random, or one in three the product scale times a power
// of two (exact halves frequent).
float output_scale(Draw& draw, float product_scale) {
  if (draw.one_in(3)) return std::ldexp(product_scale, draw.uniform(2, 9));
  return draw.scale();
}

TEST(OrtExact, FullyConnectedEqualsQGemm) {
  Draw draw(41);
  const IsaClass isas[] = {IsaClass::kScalar, IsaClass::kDsp};
  for (int c = 0; c < 400; ++c) {
    const int32_t rows = draw.uniform(1, 4), depth = draw.uniform(1, 70),
                  units = draw.uniform(1, 40);
    const float input_scale = draw.scale();
    const int32_t input_zp = draw.zero_point();
    std::vector<float> weight_scales(draw.one_in(2) ? 1 : size_t(units));
    for (float& s : weight_scales) s = draw.scale() / 64.0f;
    const float out_scale = output_scale(draw, input_scale * weight_scales[0]);
    const int32_t out_zp = draw.zero_point();
    std::vector<int32_t> bias(static_cast<size_t>(units));
    for (int32_t& b : bias) b = draw.uniform(-20000, 20000);
    const std::vector<int8_t> weights = random_int8(draw, size_t(units * depth));
    const std::vector<int8_t> input = random_int8(draw, size_t(rows * depth));
    Graph graph;
    Tensor filter = int8_tensor("w", {units, depth}, 1.0f, 0);
    filter.quant.scales = weight_scales;
    filter.quant.zero_points.assign(weight_scales.size(), 0);
    filter.data = bytes_of(weights);
    Tensor bias_tensor;
    bias_tensor.name = "b";
    bias_tensor.dtype = DType::kInt32;
    bias_tensor.shape = {units};
    bias_tensor.data = bytes_of(bias);
    graph.tensors = {int8_tensor("x", {rows, depth}, input_scale, input_zp), filter, bias_tensor,
                     int8_tensor("y", {rows, units}, out_scale, out_zp)};
    Operation op;
    op.type = OpType::kFullyConnected;
    op.inputs = {0, 1, 2};
    op.outputs = {3};
    op.act_min = draw.one_in(3) ? out_zp : -128;
    const std::vector<int8_t> expected =
        ort::qgemm(input, input_zp, input_scale, weights, weight_scales, bias, units, depth,
                   out_scale, out_zp, op.act_min, op.act_max);
    for (IsaClass isa : isas) {
      const LoweredOp lowered = lower_operation(graph, op, onnx_target(isa));
      const std::vector<int8_t> actual =
          run_lowered_inputs(graph, lowered, {input}, uint32_t(rows * units), Rounding::kOnnx);
      ASSERT_EQ(actual, expected) << "case " << c << " variant "
                                  << find_kernel(static_cast<uint32_t>(lowered.kernel))->name;
    }
  }
}

TEST(OrtExact, AddAndSubEqualOnnxruntime) {
  Draw draw(43);
  for (int c = 0; c < 400; ++c) {
    const int32_t size = draw.uniform(1, 300);
    const float sa = draw.scale(), sb = draw.one_in(3) ? sa : draw.scale();
    const int32_t za = draw.zero_point(), zb = draw.zero_point(), zc = draw.zero_point();
    const float sc = draw.one_in(3) ? std::ldexp(sa, draw.uniform(-1, 3)) : draw.scale();
    const std::vector<int8_t> a = random_int8(draw, size_t(size)),
                              b = random_int8(draw, size_t(size));
    for (const bool subtract : {false, true}) {
      Graph graph;
      graph.tensors = {int8_tensor("a", {size}, sa, za), int8_tensor("b", {size}, sb, zb),
                       int8_tensor("c", {size}, sc, zc)};
      Operation op;
      op.type = subtract ? OpType::kSub : OpType::kAdd;
      op.inputs = {0, 1};
      op.outputs = {2};
      op.act_min = draw.one_in(3) ? zc : -128;
      std::vector<int8_t> expected;
      for (int32_t i = 0; i < size; ++i)
        expected.push_back(subtract ? ort::float_sub(a[size_t(i)], sa, za, b[size_t(i)], sb, zb, sc,
                                                     zc, op.act_min, op.act_max)
                                    : ort::qlinear_add(a[size_t(i)], sa, za, b[size_t(i)], sb, zb,
                                                       sc, zc, op.act_min, op.act_max));
      const LoweredOp lowered = lower_operation(graph, op, onnx_target(IsaClass::kDsp));
      const std::vector<int8_t> actual =
          run_lowered_inputs(graph, lowered, {a, b}, uint32_t(size), Rounding::kOnnx);
      ASSERT_EQ(actual, expected) << "case " << c << (subtract ? " SUB" : " ADD");
    }
  }
}

TEST(OrtExact, AveragePoolsEqualOnnxruntime) {
  Draw draw(47);
  for (int c = 0; c < 300; ++c) {
    const bool global = draw.one_in(2);
    const int32_t h = draw.uniform(1, 12), w = draw.uniform(1, 12), channels = draw.uniform(1, 9);
    const float scale = draw.scale();
    const int32_t zp = draw.zero_point();
    Operation op;
    op.type = OpType::kAveragePool2d;
    op.inputs = {0};
    op.outputs = {1};
    Attributes& a = op.attrs;
    a.filter_h = global ? h : draw.uniform(1, h);
    a.filter_w = global ? w : draw.uniform(1, w);
    a.stride_h = global ? 1 : draw.uniform(1, 3);
    a.stride_w = global ? 1 : draw.uniform(1, 3);
    a.explicit_padding = !global;
    if (!global) {
      a.pad_top = draw.uniform(0, a.filter_h - 1);
      a.pad_left = draw.uniform(0, a.filter_w - 1);
      a.pad_bottom = draw.uniform(0, a.filter_h - 1);
      a.pad_right = draw.uniform(0, a.filter_w - 1);
    }
    const int32_t out_h = (h + a.pad_top + a.pad_bottom - a.filter_h) / a.stride_h + 1;
    const int32_t out_w = (w + a.pad_left + a.pad_right - a.filter_w) / a.stride_w + 1;
    const std::vector<int8_t> input = random_int8(draw, size_t(h * w * channels));
    Graph graph;
    graph.tensors = {int8_tensor("x", {1, h, w, channels}, scale, zp),
                     int8_tensor("y", {1, out_h, out_w, channels}, scale, zp)};
    std::vector<int8_t> expected;
    if (global) {
      expected = ort::global_average_pool(input, h * w, channels, scale, zp, scale, zp);
    } else {
      for (int32_t oy = 0; oy < out_h; ++oy)
        for (int32_t ox = 0; ox < out_w; ++ox)
          for (int32_t ch = 0; ch < channels; ++ch) {
            std::vector<int8_t> cells;
            for (int32_t y = oy * a.stride_h - a.pad_top;
                 y < oy * a.stride_h - a.pad_top + a.filter_h; ++y)
              for (int32_t x = ox * a.stride_w - a.pad_left;
                   x < ox * a.stride_w - a.pad_left + a.filter_w; ++x)
                if (y >= 0 && y < h && x >= 0 && x < w)
                  cells.push_back(input[size_t((y * w + x) * channels + ch)]);
            expected.push_back(ort::average_pool_window(cells, scale, zp, -128, 127));
          }
    }
    const LoweredOp lowered = lower_operation(graph, op, onnx_target());
    const std::vector<int8_t> actual = run_lowered_inputs(
        graph, lowered, {input}, uint32_t(out_h * out_w * channels), Rounding::kOnnx);
    ASSERT_EQ(actual, expected) << "case " << c << (global ? " global" : " windowed");
  }
}

TEST(OrtExact, QuantizeEqualsQuantizeLinear) {
  Draw draw(53);
  for (int c = 0; c < 300; ++c) {
    const float scale = draw.scale();
    const int32_t zp = draw.zero_point();
    const std::vector<float> input = quantize_probes(draw, scale, 200);
    const int32_t size = static_cast<int32_t>(input.size());
    const QuantizeGraph q = quantize_graph(size, scale, zp);
    std::vector<int8_t> expected;
    for (float x : input) expected.push_back(ort::quantize_linear(x, scale, zp));
    const LoweredOp lowered = lower_operation(q.graph, q.op, onnx_target());
    const std::vector<int8_t> actual = run_lowered(
        lowered, input.data(), uint32_t(size * sizeof(float)), uint32_t(size), Rounding::kOnnx);
    ASSERT_EQ(actual, expected) << "case " << c << " scale " << scale << " zp " << zp;
  }
}

// A Relu6 / Clip bound exactly halfway between two integers: onnxruntime's
// QuantizeLinear after the float32 Clip rounds it half to even, TFLite's
// activation range half away from zero.
TEST(OrtExact, ClipBoundRoundsHalfToEven) {
  // 6 / s = 96.5 exactly: s = 12 / 193 rounded to float32, checked.
  const float scale = 12.0f / 193.0f;
  ASSERT_EQ(6.0f / scale, 96.5f);
  for (const Rounding rounding : {Rounding::kOnnx, Rounding::kDouble}) {
    Graph graph;
    graph.tensors = {int8_tensor("x", {1, 2, 2, 1}, scale, -10),
                     int8_tensor("y", {1, 1, 1, 1}, scale, -10)};
    Operation op;
    op.type = OpType::kMaxPool2d;
    op.inputs = {0};
    op.outputs = {1};
    op.attrs.filter_h = op.attrs.filter_w = 2;
    op.attrs.activation = Activation::kRelu6;
    graph.operations = {op};
    graph.inputs = {0};
    graph.outputs = {1};
    Target target;
    target.rounding = rounding;
    run_pipeline(graph, target);
    // -10 + rint(96.5): 96 + -10 = 86 (even), TFLite's round: 97 - 10 = 87.
    EXPECT_EQ(graph.operations[0].act_max, rounding == Rounding::kOnnx ? 86 : 87);
  }
}

TEST(OrtExact, OperationsWithoutOnnxArithmeticAreRefusedByName) {
  Graph graph;
  graph.tensors = {int8_tensor("a", {4}, 0.5f, 0), int8_tensor("c", {4}, 0.25f, 0)};
  Operation op;
  op.type = OpType::kSoftmax;
  op.source_index = 7;
  op.inputs = {0};
  op.outputs = {1};
  try {
    lower_operation(graph, op, onnx_target());
    FAIL() << "SOFTMAX lowered in mode onnx";
  } catch (const CompileError& e) {
    EXPECT_NE(
        std::string(e.what()).find("operation 7 (SOFTMAX): rounding mode onnx has no definition"),
        std::string::npos)
        << e.what();
  }
}

TEST(OrtExact, MulEqualsQLinearMul) {
  Draw draw(59);
  for (int c = 0; c < 400; ++c) {
    const int32_t size = draw.uniform(1, 300);
    const float sa = draw.scale(), sb = draw.one_in(3) ? sa : draw.scale();
    const int32_t za = draw.zero_point(), zb = draw.zero_point(), zc = draw.zero_point();
    // Output scales near the product's (ties of the chain) and anywhere.
    const float sc = draw.one_in(2) ? std::ldexp(sa * sb, draw.uniform(-2, 8)) : draw.scale();
    const std::vector<int8_t> a = random_int8(draw, size_t(size)),
                              b = random_int8(draw, size_t(size));
    Graph graph;
    graph.tensors = {int8_tensor("a", {size}, sa, za), int8_tensor("b", {size}, sb, zb),
                     int8_tensor("c", {size}, sc, zc)};
    Operation op;
    op.type = OpType::kMul;
    op.inputs = {0, 1};
    op.outputs = {2};
    op.act_min = draw.one_in(3) ? zc : -128;
    std::vector<int8_t> expected;
    for (int32_t i = 0; i < size; ++i)
      expected.push_back(ort::qlinear_mul(a[size_t(i)], sa, za, b[size_t(i)], sb, zb, sc, zc,
                                          op.act_min, op.act_max));
    const LoweredOp lowered = lower_operation(graph, op, onnx_target());
    EXPECT_STREQ(find_kernel(static_cast<uint32_t>(lowered.kernel))->name, "mul_s8_ref");
    const std::vector<int8_t> actual =
        run_lowered_inputs(graph, lowered, {a, b}, uint32_t(size), Rounding::kOnnx);
    ASSERT_EQ(actual, expected) << "case " << c;
  }
}

}  // namespace
}  // namespace tinyaot
