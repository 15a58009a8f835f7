// MEAN, LEAKY_RELU and QUANTIZE (int8 -> int8 and float32 -> int8) exact
// against TFLite Micro's arithmetic: each operation lowered by the compiler
// from a one-operation graph of random shape and quantization and run by
// its kernel, every output byte compared with tflm_reference.h (an
// implementation written from TFLite's sources, sharing no code with
// tinyaot's kernels), in both rounding modes: double rounding
// (Rounding::kDouble, `--rounding tflm`, TFLite's default build) and
// single rounding (TFLITE_SINGLE_ROUNDING). No tolerance: a truncating
// division or a rounding off by one in a multiplier fails.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "compiler/lower/lowering.h"
#include "support/run_lowered.h"
#include "tflm_reference/tflm_reference.h"
#include "tinyaot/kernel_abi.h"

namespace tinyaot {
namespace {

constexpr Rounding kRoundings[] = {Rounding::kDouble, Rounding::kSingle};

Target target_with(Rounding rounding) {
  Target target;
  target.rounding = rounding;
  return target;
}

bool single(Rounding rounding) { return rounding == Rounding::kSingle; }

// Every int8 value, then random ones: a table lookup's whole domain.
std::vector<int8_t> every_int8_then_random(Draw& draw, int32_t extra) {
  std::vector<int8_t> values;
  for (int32_t v = -128; v <= 127; ++v) values.push_back(static_cast<int8_t>(v));
  for (int32_t i = 0; i < extra; ++i)
    values.push_back(static_cast<int8_t>(draw.uniform(-128, 127)));
  return values;
}

// The first differing element, or -1.
template <typename T>
int64_t first_difference(const std::vector<T>& a, const std::vector<T>& b) {
  if (a.size() != b.size()) return 0;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i] != b[i]) return static_cast<int64_t>(i);
  return -1;
}

constexpr int kUnaryCases = 1500;  // quantizations per operator and rounding mode

TEST(TflmExact, LeakyReluEqualsTflite) {
  Draw draw(17);
  const float alphas[] = {0.0f, 0.01f, 0.1f, 0.2f, 0.25f, 0.3f, 0.5f, 1.0f, 1.5f, 3.0f};
  for (int c = 0; c < kUnaryCases; ++c) {
    const float in_scale = draw.scale(), out_scale = draw.scale();
    const int32_t in_zp = draw.zero_point(), out_zp = draw.zero_point();
    const float alpha = draw.one_in(2) ? alphas[draw.uniform(0, 9)] : float(2 * draw.unit());
    const std::vector<int8_t> input = every_int8_then_random(draw, 64);
    const int32_t size = static_cast<int32_t>(input.size());
    Graph graph;
    graph.tensors = {int8_tensor("in", {1, size}, in_scale, in_zp),
                     int8_tensor("out", {1, size}, out_scale, out_zp)};
    Operation op;
    op.type = OpType::kLeakyRelu;
    op.inputs = {0};
    op.outputs = {1};
    op.attrs.alpha = alpha;
    for (Rounding rounding : kRoundings) {
      const tflm::LeakyRelu p =
          tflm::prepare_leaky_relu(in_scale, in_zp, alpha, out_scale, out_zp, single(rounding));
      // TFLite's left shift of the input overflows int32 past this.
      if (p.identity.shift > 23 || p.alpha.shift > 23) continue;
      const std::vector<int8_t> expected = tflm::leaky_relu(p, input, single(rounding));
      const LoweredOp lowered = lower_operation(graph, op, target_with(rounding));
      const std::vector<int8_t> actual =
          run_lowered(lowered, input.data(), uint32_t(size), uint32_t(size), rounding);
      const int64_t at = first_difference(expected, actual);
      ASSERT_EQ(at, -1) << "case " << c << " rounding " << rounding_name(rounding) << " in_scale "
                        << in_scale << " in_zp " << in_zp << " alpha " << alpha << " out_scale "
                        << out_scale << " out_zp " << out_zp << ": input " << int(input[at])
                        << " expected " << int(expected[at]) << " got " << int(actual[at]);
    }
  }
}

TEST(TflmExact, Int8QuantizeEqualsTflite) {
  Draw draw(23);
  for (int c = 0; c < kUnaryCases; ++c) {
    const float in_scale = draw.scale();
    // Now and then the same scale (a zero point shift only) or a power of
    // two apart (exact ratios, where ties are frequent).
    const int32_t kind = draw.uniform(0, 5);
    const float out_scale = kind == 0   ? in_scale
                            : kind == 1 ? std::ldexp(in_scale, draw.uniform(-6, 6))
                                        : draw.scale();
    const int32_t in_zp = draw.zero_point(), out_zp = draw.zero_point();
    const std::vector<int8_t> input = every_int8_then_random(draw, 64);
    const int32_t size = static_cast<int32_t>(input.size());
    Graph graph;
    graph.tensors = {int8_tensor("in", {size}, in_scale, in_zp),
                     int8_tensor("out", {size}, out_scale, out_zp)};
    Operation op;
    op.type = OpType::kQuantize;
    op.inputs = {0};
    op.outputs = {1};
    for (Rounding rounding : kRoundings) {
      if (tflm::quantize_multiplier(double(in_scale) / double(out_scale), single(rounding)).shift >
          23)
        continue;
      const std::vector<int8_t> expected =
          tflm::requantize(in_scale, in_zp, out_scale, out_zp, input, single(rounding));
      const LoweredOp lowered = lower_operation(graph, op, target_with(rounding));
      const std::vector<int8_t> actual =
          run_lowered(lowered, input.data(), uint32_t(size), uint32_t(size), rounding);
      const int64_t at = first_difference(expected, actual);
      ASSERT_EQ(at, -1) << "case " << c << " rounding " << rounding_name(rounding) << " in_scale "
                        << in_scale << " in_zp " << in_zp << " out_scale " << out_scale
                        << " out_zp " << out_zp << ": input " << int(input[at]) << " expected "
                        << int(expected[at]) << " got " << int(actual[at]);
    }
  }
}

TEST(TflmExact, FloatQuantizeEqualsTflite) {
  Draw draw(29);
  for (int c = 0; c < 300; ++c) {
    const float scale = draw.scale();
    const int32_t zp = draw.zero_point();
    const std::vector<float> input = quantize_probes(draw, scale, 200);
    const int32_t size = static_cast<int32_t>(input.size());
    const QuantizeGraph q = quantize_graph(size, scale, zp);
    const std::vector<int8_t> expected = tflm::affine_quantize(scale, zp, input);
    for (Rounding rounding : kRoundings) {  // float arithmetic: the same in both
      const LoweredOp lowered = lower_operation(q.graph, q.op, target_with(rounding));
      const std::vector<int8_t> actual = run_lowered(
          lowered, input.data(), uint32_t(size * sizeof(float)), uint32_t(size), rounding);
      const int64_t at = first_difference(expected, actual);
      ASSERT_EQ(at, -1) << "case " << c << " scale " << scale << " zp " << zp << ": input "
                        << input[at] << " expected " << int(expected[at]) << " got "
                        << int(actual[at]);
    }
  }
}

// A random MEAN: rank 1 to 5 (the lowering's range), at most 6000 cells,
// one to all axes (negative and repeated now and then), keep_dims either
// way.
struct MeanCase {
  std::vector<int32_t> dims, axes, out_shape;
  bool keep_dims;
};

MeanCase draw_mean(Draw& draw) {
  MeanCase m;
  const int32_t rank = draw.uniform(1, 5);
  int64_t cells = 1;
  for (int32_t d = 0; d < rank; ++d) {
    const int32_t limit = static_cast<int32_t>(std::min<int64_t>(6000 / cells, 64));
    const int32_t dim = draw.one_in(4) ? 1 : draw.uniform(1, std::max(limit, 1));
    m.dims.push_back(dim);
    cells *= dim;
  }
  std::vector<bool> reduced(size_t(rank), false);
  const int32_t axes = draw.uniform(1, rank);
  for (int32_t i = 0; i < axes; ++i) {
    const int32_t axis = draw.uniform(0, rank - 1);
    reduced[size_t(axis)] = true;
    m.axes.push_back(draw.one_in(3) ? axis - rank : axis);
    if (draw.one_in(6)) m.axes.push_back(axis);  // a duplicate
  }
  m.keep_dims = draw.one_in(2);
  for (int32_t d = 0; d < rank; ++d) {
    if (!reduced[size_t(d)])
      m.out_shape.push_back(m.dims[size_t(d)]);
    else if (m.keep_dims)
      m.out_shape.push_back(1);
  }
  return m;
}

TEST(TflmExact, MeanEqualsTflite) {
  Draw draw(31);
  for (int c = 0; c < 600; ++c) {
    const MeanCase m = draw_mean(draw);
    const float in_scale = draw.scale();
    // Often the same quantization (TFLite Micro still requantizes), else
    // any within a factor of 16.
    const bool same = draw.one_in(3);
    const float out_scale =
        same ? in_scale
             : static_cast<float>(in_scale * std::ldexp(1.0 + draw.unit(), draw.uniform(-4, 3)));
    const int32_t in_zp = draw.zero_point(), out_zp = same ? in_zp : draw.zero_point();
    int64_t cells = 1;
    for (int32_t d : m.dims) cells *= d;
    std::vector<int8_t> input(static_cast<size_t>(cells));
    const bool extremes = draw.one_in(8);
    for (int8_t& v : input)
      v = static_cast<int8_t>(extremes ? (draw.one_in(2) ? -128 : 127) : draw.uniform(-128, 127));
    Graph graph;
    Tensor axis;
    axis.name = "axis";
    axis.dtype = DType::kInt32;
    axis.shape = {static_cast<int32_t>(m.axes.size())};
    axis.data = std::vector<uint8_t>(m.axes.size() * 4);
    std::memcpy(axis.data->data(), m.axes.data(), m.axes.size() * 4);
    graph.tensors = {int8_tensor("in", m.dims, in_scale, in_zp), axis,
                     int8_tensor("out", m.out_shape, out_scale, out_zp)};
    Operation op;
    op.type = OpType::kMean;
    op.inputs = {0, 1};
    op.outputs = {2};
    op.attrs.keep_dims = m.keep_dims;
    const int64_t outputs = graph.tensors[2].num_elements();
    for (Rounding rounding : kRoundings) {
      const std::vector<int8_t> expected =
          tflm::mean(m.dims, m.axes, input, in_scale, in_zp, out_scale, out_zp, single(rounding));
      const LoweredOp lowered = lower_operation(graph, op, target_with(rounding));
      const std::vector<int8_t> actual =
          run_lowered(lowered, input.data(), uint32_t(cells), uint32_t(outputs), rounding);
      const int64_t at = first_difference(expected, actual);
      std::string dims;
      for (int32_t d : m.dims) dims += " " + std::to_string(d);
      std::string axes;
      for (int32_t a : m.axes) axes += " " + std::to_string(a);
      ASSERT_EQ(at, -1) << "case " << c << " rounding " << rounding_name(rounding) << " dims"
                        << dims << " axes" << axes << " in_scale " << in_scale << " in_zp " << in_zp
                        << " out_scale " << out_scale << " out_zp " << out_zp << ": output " << at
                        << " expected " << int(expected[size_t(at)]) << " got "
                        << int(actual[size_t(at)]);
    }
  }
}

// The comparisons can fail where a differential cap passes: a MEAN that
// divides with truncation, as a plain average does, differs from TFLite's
// in most rows of seven random cells (725 of 1000 here); and the two rounding modes differ.
TEST(TflmExact, ReferenceSeesWhatACapHides) {
  Draw draw(37);
  const std::vector<int32_t> dims = {1000, 7};
  std::vector<int8_t> input(7000);
  for (int8_t& v : input) v = static_cast<int8_t>(draw.uniform(-128, 127));
  const std::vector<int8_t> rounded = tflm::mean(dims, {1}, input, 0.05f, 3, 0.05f, 3, false);
  int32_t truncated_differs = 0;
  for (int32_t row = 0; row < 1000; ++row) {
    int32_t sum = 0;
    for (int32_t k = 0; k < 7; ++k) sum += input[size_t(row * 7 + k)] - 3;
    truncated_differs += rounded[size_t(row)] != tflm::clamp_int8(sum / 7 + 3);
  }
  EXPECT_GT(truncated_differs, 300);
  // Double rounding rounds the doubled high product, then the shift: over
  // random scales some inputs land one step apart from a single rounding.
  int32_t modes_differ = 0;
  const std::vector<int8_t> all = every_int8_then_random(draw, 0);
  for (int c = 0; c < 100; ++c) {
    const float in_scale = draw.scale(), out_scale = draw.scale();
    modes_differ += tflm::requantize(in_scale, 0, out_scale, 0, all, false) !=
                    tflm::requantize(in_scale, 0, out_scale, 0, all, true);
  }
  EXPECT_GT(modes_differ, 0);
}

}  // namespace
}  // namespace tinyaot
