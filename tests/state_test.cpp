// State kept between inferences (TFLite's variable tensors): planned for
// the whole program in bytes no other buffer ever takes, recorded in the
// program's state table, set by reset_state to TFLite Micro's reset value
// (an int8 state's zero point), checked by the loader.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>

#include "compiler/compile.h"
#include "support/exact_buffer.h"
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

constexpr int32_t kStateZeroPoint = 7;

// x[1,16] -> add(x, state) -> fc[1,32] -> fc[1,16] -> add(., x) -> y: a
// state read by an operation and buffers around it that a planner would
// like to put on its bytes. With `state_as_constant` the state is a
// constant holding its reset value instead (the reference).
std::vector<uint8_t> model_with_state(bool state_as_constant) {
  mg::ModelBuilder b;
  const int32_t x = b.add_int8("x", {1, 16}, 0.05f, 3);
  int32_t state;
  if (state_as_constant) {
    state = b.add_int8_constant("state", {1, 16}, std::vector<int8_t>(16, kStateZeroPoint),
                                mg::Quant::per_tensor(0.02f, kStateZeroPoint));
  } else {
    state = b.add_int8("state", {1, 16}, 0.02f, kStateZeroPoint);
    b.set_variable(state);
  }
  const int32_t sum = b.add_int8("sum", {1, 16}, 0.06f, -1);
  b.add_operator(BO::ADD, 2, {x, state}, {sum}, options(tflite::AddOptionsT()));
  mg::Weights wide, narrow;
  wide.shape = {32, 16};
  narrow.shape = {16, 32};
  for (int32_t i = 0; i < 512; ++i) {
    wide.values.push_back(static_cast<int8_t>((i * 29 + 5) % 255 - 127));
    narrow.values.push_back(static_cast<int8_t>((i * 53 + 1) % 255 - 127));
  }
  wide.scales = narrow.scales = {0.01f};
  const auto none = mg::ActivationFunctionType::NONE;
  const int32_t h = mg::fully_connected(b, "wide", sum, wide, std::nullopt, none, false, {0.1f, 2});
  const int32_t n =
      mg::fully_connected(b, "narrow", h, narrow, std::nullopt, none, false, {0.07f, -4});
  const int32_t y = b.add_int8("y", {1, 16}, 0.09f, 1);
  b.add_operator(BO::ADD, 2, {n, x}, {y}, options(tflite::AddOptionsT()));
  b.set_inputs({x});
  b.set_outputs({y});
  return b.finish();
}

Compilation compile(const std::vector<uint8_t>& model) {
  CompileOptions options;
  options.target.core = Core::kCortexM4;
  options.target.isa = IsaClass::kDsp;
  return compile_model(model.data(), model.size(), options);
}

TEST(State, IsAliveThroughoutAndSharesNoByte) {
  const Compilation c = compile(model_with_state(false));
  const int32_t last = static_cast<int32_t>(c.ops.size()) - 1;
  int32_t state_buffer = -1;
  for (size_t i = 0; i < c.buffers.size(); ++i) {
    const BufferRequest& b = c.buffers[i];
    if (b.kind == BufferRequest::Kind::kTensor &&
        c.graph.tensors[static_cast<size_t>(b.tensor)].is_variable)
      state_buffer = static_cast<int32_t>(i);
  }
  ASSERT_GE(state_buffer, 0);
  const BufferRequest& state = c.buffers[static_cast<size_t>(state_buffer)];
  EXPECT_EQ(state.first_op, 0);
  EXPECT_EQ(state.last_op, last);
  const uint32_t s0 = c.plan.offsets[static_cast<size_t>(state_buffer)], s1 = s0 + state.bytes;
  for (size_t i = 0; i < c.buffers.size(); ++i) {
    if (static_cast<int32_t>(i) == state_buffer || c.buffers[i].bytes == 0) continue;
    const uint32_t b0 = c.plan.offsets[i], b1 = b0 + c.buffers[i].bytes;
    EXPECT_TRUE(b1 <= s0 || s1 <= b0) << c.buffers[i].name << " shares bytes with the state";
  }
  EXPECT_EQ(c.plan.arena_bytes, c.plan.lower_bound_bytes);
}

TEST(State, ProgramRecordsTheRegionAndItsResetFill) {
  const Compilation c = compile(model_with_state(false));
  Program p;
  ExactBuffer bytes(c.program);
  ASSERT_EQ(load_program(bytes.data(), bytes.size(), &p), Status::kOk);
  ASSERT_EQ(p.header->num_state_regions, 1u);
  EXPECT_EQ(p.state_regions[0].bytes, 16u);
  EXPECT_EQ(p.state_regions[0].fill, static_cast<uint32_t>(kStateZeroPoint));
  EXPECT_EQ(p.state_regions[0].arena_offset % kArenaAlignment, 0u);
}

// The runtime sets state to its reset value whatever the arena held: the
// outputs equal the model whose state is a constant at that value.
TEST(State, ResetGivesTflmResetValue) {
  const Compilation with_state = compile(model_with_state(false));
  const Compilation reference = compile(model_with_state(true));
  Program p;
  ExactBuffer bytes(with_state.program);
  ASSERT_EQ(load_program(bytes.data(), bytes.size(), &p), Status::kOk);
  ExactBuffer arena(p.header->arena_bytes);
  std::vector<uint8_t> input(16);
  for (size_t i = 0; i < input.size(); ++i) input[i] = static_cast<uint8_t>(i * 41 + 9);
  for (int round = 0; round < 2; ++round) {
    std::memset(arena.data(), 0xA5, arena.size());  // garbage, as a fresh RAM holds
    ASSERT_EQ(reset_state(p, arena.data(), arena.size()), Status::kOk);
    std::memcpy(input_data(p, arena.data(), 0), input.data(), input.size());
    ASSERT_EQ(run_program(p, arena.data(), arena.size()), Status::kOk);
  }
  const uint8_t* y = output_data(p, arena.data(), 0);
  std::vector<std::vector<uint8_t>> expected;
  ASSERT_EQ(run_on_host(reference.program, {input}, &expected), Status::kOk);
  EXPECT_EQ(std::vector<uint8_t>(y, y + 16), expected[0]);
}

// Rewrites the first state region and the checksum; returns the load status.
Status load_with_region(const std::vector<uint8_t>& program, StateRegion region) {
  std::vector<uint8_t> bytes = program;
  ProgramHeader h;
  std::memcpy(&h, bytes.data(), sizeof(h));
  std::memcpy(bytes.data() + h.state_regions_offset, &region, sizeof(region));
  h.checksum = 0;
  std::memcpy(bytes.data(), &h, sizeof(h));
  h.checksum = program_checksum(bytes.data(), h.file_bytes);
  std::memcpy(bytes.data(), &h, sizeof(h));
  ExactBuffer aligned(bytes);
  Program p;
  return load_program(aligned.data(), aligned.size(), &p);
}

TEST(State, LoaderRefusesARegionOutsideTheArenaOrABadFill) {
  const Compilation c = compile(model_with_state(false));
  Program p;
  ExactBuffer bytes(c.program);
  ASSERT_EQ(load_program(bytes.data(), bytes.size(), &p), Status::kOk);
  const StateRegion good = p.state_regions[0];
  const uint32_t arena = p.header->arena_bytes;
  EXPECT_EQ(load_with_region(c.program, good), Status::kOk);
  EXPECT_EQ(load_with_region(c.program, {arena - 8, 16, 0}), Status::kBadState);
  EXPECT_EQ(load_with_region(c.program, {0xfffffff0u, 32, 0}), Status::kBadState);
  EXPECT_EQ(load_with_region(c.program, {good.arena_offset, 0, 0}), Status::kBadState);
  EXPECT_EQ(load_with_region(c.program, {good.arena_offset, good.bytes, 256}), Status::kBadState);
}

TEST(State, ModelInputThatIsStateIsRefused) {
  mg::ModelBuilder b;
  const int32_t x = b.add_int8("x", {1, 4}, 0.05f, 0);
  b.set_variable(x);
  const int32_t y = b.add_int8("y", {1, 4}, 0.05f, 0);
  b.add_operator(BO::RELU, 1, {x}, {y});
  b.set_inputs({x});
  b.set_outputs({y});
  const std::string error = compile_error(b.finish());
  EXPECT_NE(error.find("is a variable tensor (state)"), std::string::npos) << error;
}

}  // namespace
}  // namespace tinyaot::test
