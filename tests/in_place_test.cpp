// Buffers shared on purpose: concatenation inputs written straight into
// their slices of the output, element-wise outputs written over the input
// they are the last user of. The plan must shrink and the outputs must not
// change: the same network with every intermediate also exported as a model
// output (which rules out sharing) is the comparison.
#include "compiler/planner/in_place.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>

#include "support/test_support.h"
#include "tools/modelgen/layers.h"

namespace tinyaot::test {
namespace {

namespace mg = tinyaot::modelgen;
using BO = tflite::BuiltinOperator;

template <typename T>
tflite::BuiltinOptionsUnion options(T&& o) {
  tflite::BuiltinOptionsUnion u;
  u.Set(std::forward<T>(o));
  return u;
}

mg::Weights weights(int32_t units, int32_t depth, int32_t seed) {
  mg::Weights w;
  w.shape = {units, depth};
  for (int32_t i = 0; i < units * depth; ++i)
    w.values.push_back(static_cast<int8_t>((i * 37 + seed * 11) % 255 - 127));
  w.scales = {0.01f};
  return w;
}

struct Network {
  std::vector<uint8_t> model;
  int32_t left = -1, right = -1, joined = -1, dense = -1, sum = -1;
};

// x[1,48] -> fc_left[1,32] and fc_right[1,16] -> concat(axis 1)[1,48]
//         -> fc_dense[1,48] -> add(fc_dense, concat) -> relu-free output.
Network residual_concat(bool export_intermediates) {
  mg::ModelBuilder b;
  Network n;
  const mg::AffineQuant q{0.05f, 3};
  const int32_t x = b.add_int8("x", {1, 48}, q.scale, q.zero_point);
  const auto none = mg::ActivationFunctionType::NONE;
  n.left = mg::fully_connected(b, "left", x, weights(32, 48, 1), std::nullopt, none, false, q);
  n.right = mg::fully_connected(b, "right", x, weights(16, 48, 2), std::nullopt, none, false, q);
  n.joined = b.add_int8("joined", {1, 48}, q.scale, q.zero_point);
  tflite::ConcatenationOptionsT concat;
  concat.axis = 1;
  b.add_operator(BO::CONCATENATION, 1, {n.left, n.right}, {n.joined}, options(std::move(concat)));
  n.dense = mg::fully_connected(b, "dense", n.joined, weights(48, 48, 3), std::nullopt, none, false,
                                {0.08f, -2});
  n.sum = b.add_int8("sum", {1, 48}, 0.1f, 1);
  b.add_operator(BO::ADD, 2, {n.dense, n.joined}, {n.sum}, options(tflite::AddOptionsT()));
  b.set_inputs({x});
  if (export_intermediates)
    b.set_outputs({n.sum, n.left, n.right, n.joined, n.dense});
  else
    b.set_outputs({n.sum});
  n.model = b.finish();
  return n;
}

Compilation compile(const std::vector<uint8_t>& model) {
  CompileOptions options;
  options.target.core = Core::kCortexM4;
  options.target.isa = IsaClass::kDsp;
  return compile_model(model.data(), model.size(), options);
}

TEST(InPlace, ConcatenationInputsLiveInTheirSlicesAndAddWritesOverItsInput) {
  const Network n = residual_concat(false);
  const Compilation c = compile(n.model);
  // The concatenation is gone: its inputs were written where it would copy.
  for (const LoweredOp& op : c.ops)
    EXPECT_NE(op.kernel, KernelId::concatenation_s8_ref) << "concatenation still copies";
  EXPECT_EQ(c.ops.size(), 4u);
  EXPECT_EQ(arena_offset_of(c, n.left), arena_offset_of(c, n.joined));
  EXPECT_EQ(arena_offset_of(c, n.right), arena_offset_of(c, n.joined) + 32);
  // ADD is the last reader of `dense` (same size as the output): it writes
  // over it. `joined` is read by ADD too but is a concatenation host.
  EXPECT_EQ(arena_offset_of(c, n.sum), arena_offset_of(c, n.dense));
  EXPECT_EQ(c.plan.arena_bytes, c.plan.lower_bound_bytes);
  EXPECT_EQ(verify_plan(c.buffers, c.plan), "");
}

TEST(InPlace, SharingChangesNoOutputAndShrinksTheArena) {
  const Network shared = residual_concat(false);
  const Network separate = residual_concat(true);
  const Compilation a = compile(shared.model);
  const Compilation b = compile(separate.model);
  EXPECT_LT(a.plan.arena_bytes, b.plan.arena_bytes);
  // Exported tensors cannot share: the concatenation must still run.
  EXPECT_TRUE(std::any_of(b.ops.begin(), b.ops.end(), [](const LoweredOp& op) {
    return op.kernel == KernelId::concatenation_s8_ref;
  }));
  for (int seed = 0; seed < 8; ++seed) {
    std::vector<uint8_t> input(48);
    for (size_t i = 0; i < input.size(); ++i)
      input[i] = static_cast<uint8_t>((i * 97 + static_cast<size_t>(seed) * 31) & 0xff);
    std::vector<std::vector<uint8_t>> out_a, out_b;
    ASSERT_EQ(run_on_host(a.program, {input}, &out_a), Status::kOk);
    ASSERT_EQ(run_on_host(b.program, {input}, &out_b), Status::kOk);
    EXPECT_EQ(out_a[0], out_b[0]) << "seed " << seed;
  }
}

TEST(InPlace, ModelOutputsAreNeverOverwrittenModelInputsAreFreeAfterTheirLastReader) {
  // y = x + x, z = y + y, both y and z model outputs: z may not take y's
  // bytes (the caller reads y after the run); y takes x's, whose bytes are
  // free after ADD reads them, like any buffer after its last reader.
  mg::ModelBuilder b;
  const int32_t x = b.add_int8("x", {1, 64}, 0.05f, 0);
  const int32_t y = b.add_int8("y", {1, 64}, 0.1f, 0);
  const int32_t z = b.add_int8("z", {1, 64}, 0.2f, 0);
  b.add_operator(BO::ADD, 2, {x, x}, {y}, options(tflite::AddOptionsT()));
  b.add_operator(BO::ADD, 2, {y, y}, {z}, options(tflite::AddOptionsT()));
  b.set_inputs({x});
  b.set_outputs({y, z});
  const std::vector<uint8_t> model = b.finish();
  const Compilation c = compile(model);
  EXPECT_EQ(arena_offset_of(c, x), arena_offset_of(c, y));
  EXPECT_NE(arena_offset_of(c, y), arena_offset_of(c, z));
  EXPECT_EQ(verify_plan(c.buffers, c.plan), "");
}

// float x[1, n] -> QUANTIZE -> q int8 -> FULLY_CONNECTED -> y: the
// quantized copy lies on the first bytes of the float input it narrows
// (an ONNX model's float32 input needs no second buffer), and the outputs
// equal those of the same model with x also a model output (which rules
// out sharing), on every element of varied inputs.
std::vector<uint8_t> quantized_input_model(int32_t n, bool export_input, int32_t* x_out,
                                           int32_t* q_out) {
  mg::ModelBuilder b;
  const int32_t x = b.add_float32("x", {1, n});
  const int32_t q = b.add_int8("q", {1, n}, 0.05f, 3);
  b.add_operator(BO::QUANTIZE, 1, {x}, {q});
  const int32_t y = mg::fully_connected(b, "dense", q, weights(16, n, 4), std::nullopt,
                                        mg::ActivationFunctionType::NONE, false, {0.1f, -1});
  b.set_inputs({x});
  b.set_outputs(export_input ? std::vector<int32_t>{y, x} : std::vector<int32_t>{y});
  if (x_out != nullptr) *x_out = x;
  if (q_out != nullptr) *q_out = q;
  return b.finish();
}

TEST(InPlace, QuantizeWritesItsInt8OutputOverTheFloatInputItReads) {
  int32_t x = -1, q = -1, kept_x = -1, kept_q = -1;
  const std::vector<uint8_t> shared = quantized_input_model(40, false, &x, &q);
  const std::vector<uint8_t> separate = quantized_input_model(40, true, &kept_x, &kept_q);
  const Compilation a = compile(shared);
  EXPECT_EQ(arena_offset_of(a, q), arena_offset_of(a, x));
  EXPECT_EQ(a.plan.arena_bytes, a.plan.lower_bound_bytes);
  EXPECT_LT(a.plan.arena_bytes, 40 * sizeof(float) + 40);  // no room for both
  EXPECT_EQ(verify_plan(a.buffers, a.plan), "");
  const Compilation b = compile(separate);
  EXPECT_NE(arena_offset_of(b, kept_q), arena_offset_of(b, kept_x));
  EXPECT_LT(a.plan.arena_bytes, b.plan.arena_bytes);
  for (int seed = 0; seed < 8; ++seed) {
    std::vector<uint8_t> input(40 * sizeof(float));
    for (size_t i = 0; i < 40; ++i) {
      // -8 .. 8 in steps that land on, between and beyond the int8 steps.
      const float value =
          static_cast<float>((static_cast<int>(i) * 53 + seed * 17) % 321 - 160) * 0.05f +
          (seed % 2 == 0 ? 0.0f : 0.025f);
      std::memcpy(&input[i * sizeof(float)], &value, sizeof value);
    }
    std::vector<std::vector<uint8_t>> out_a, out_b;
    ASSERT_EQ(run_on_host(a.program, {input}, &out_a), Status::kOk);
    ASSERT_EQ(run_on_host(b.program, {input}, &out_b), Status::kOk);
    EXPECT_EQ(out_a[0], out_b[0]) << "seed " << seed;
  }
}

}  // namespace
}  // namespace tinyaot::test
