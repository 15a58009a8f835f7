// Where the operands of an operation lie, as the loader guarantees it (issue
// 17): no two share arena bytes unless the variant declares the input safe
// in place and it lies exactly on the output, and every operand a variant
// reads as words is word-aligned.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "compiler/compile.h"
#include "kernels/elementwise/elementwise.h"
#include "kernels/kernel_list.h"
#include "kernels/softmax/softmax.h"
#include "support/tao_editor.h"
#include "support/test_support.h"
#include "tools/modelgen/layers.h"

namespace tinyaot::test {
namespace {

namespace mg = tinyaot::modelgen;
using BO = tflite::BuiltinOperator;
using Bytes = std::vector<uint8_t>;

template <typename T>
tflite::BuiltinOptionsUnion options(T&& o) {
  tflite::BuiltinOptionsUnion u;
  u.Set(std::forward<T>(o));
  return u;
}

Bytes compile_for(const Bytes& model, Core core) {
  CompileOptions options;
  options.target.core = core;
  options.target.isa = core_isa(core);
  return compile_model(model.data(), model.size(), options).program;
}

std::string& log_lines() {
  static std::string lines;
  return lines;
}
void keep_line(const char* line) { log_lines() += std::string(line) + "\n"; }

// Loads a copy (16-byte aligned, as the loader wants), the log kept.
Status load(const Bytes& bytes) {
  log_lines().clear();
  set_log_hook(keep_line);
  std::vector<uint8_t> storage(bytes.size() + 16);
  const auto at = (reinterpret_cast<uintptr_t>(storage.data()) + 15) & ~uintptr_t{15};
  auto* aligned = reinterpret_cast<uint8_t*>(at);
  std::copy(bytes.begin(), bytes.end(), aligned);
  Program program;
  const Status status = load_program(aligned, static_cast<uint32_t>(bytes.size()), &program);
  set_log_hook(nullptr);
  return status;
}

bool contains(const std::string& text, const std::string& needle) {
  return text.find(needle) != std::string::npos;
}

std::string variant_of(const TaoEditor& e, uint32_t op) { return e.kernel(e.op(op).kernel).name; }

BufferRef operand(const TaoEditor& e, uint32_t op, uint32_t index) {
  return e.get<BufferRef>(e.operand_at(e.op(op).first_operand + index));
}

void set_operand(TaoEditor& e, uint32_t op, uint32_t index, const BufferRef& ref) {
  ASSERT_LE(uint64_t{ref.offset} + ref.bytes, e.header().arena_bytes);
  e.set(e.operand_at(e.op(op).first_operand + index), ref);
}

// ------------------------------------------------------------ the models

// x [1, 2, 8], z [1, 1, 8]: t = x + x, y = t + z (z broadcast down the
// rows), y written over t (its last reader, as large). One scale for all,
// so the fast variants' case holds where the shapes allow (flat: t = x + x
// alone; MVE: both).
Bytes add_model() {
  mg::ModelBuilder b;
  const int32_t x = b.add_int8("x", {1, 2, 8}, 0.05f, 0);
  const int32_t z = b.add_int8("z", {1, 1, 8}, 0.05f, 0);
  const int32_t t = b.add_int8("t", {1, 2, 8}, 0.05f, 0);
  const int32_t y = b.add_int8("y", {1, 2, 8}, 0.05f, 0);
  b.add_operator(BO::ADD, 2, {x, x}, {t}, options(tflite::AddOptionsT()));
  b.add_operator(BO::ADD, 2, {t, z}, {y}, options(tflite::AddOptionsT()));
  b.set_inputs({x, z});
  b.set_outputs({y});
  return b.finish();
}

// x [1, 4, 4, 8] -> DEPTHWISE 3x3 SAME -> [1, 4, 4, 8]: the output as
// large as the input.
Bytes same_size_depthwise_model() {
  mg::ModelBuilder b;
  const int32_t x = b.add_int8("x", {1, 4, 4, 8}, 0.05f, 0);
  const int32_t y = mg::depthwise_conv2d(b, "dw", x, mg::patterned_weights({1, 3, 3, 8}),
                                         std::nullopt, mg::Window{}, {0.1f, 0});
  b.set_inputs({x});
  b.set_outputs({y});
  return b.finish();
}

// x float [1, 8] -> QUANTIZE -> int8.
Bytes quantize_model() {
  mg::ModelBuilder b;
  const int32_t x = b.add_float32("x", {1, 8});
  const int32_t y = b.add_int8("y", {1, 8}, 0.05f, 0);
  b.add_operator(BO::QUANTIZE, 1, {x}, {y});
  b.set_inputs({x});
  b.set_outputs({y});
  return b.finish();
}

// --------------------------------------------------------- the operands

class OperandPlacement : public ::testing::Test {
 protected:
  void SetUp() override {
    TaoEditor e{compile_for(add_model(), Core::kCortexM4)};
    ASSERT_EQ(e.header().num_ops, 2u);
    add_ = e;
    ASSERT_EQ(load(add_.bytes), Status::kOk) << log_lines();
  }

  // Op `op` of the ADD program with operand `index` at `offset`.
  Status moved(uint32_t op, uint32_t index, uint32_t offset) {
    TaoEditor e = add_;
    BufferRef ref = operand(e, op, index);
    ref.offset = offset;
    set_operand(e, op, index, ref);
    e.fix_checksum();
    return load(e.bytes);
  }

  TaoEditor add_;
};

TEST_F(OperandPlacement, AnOutputLiesOnAnInputOnlyOnItsDeclaredExactBytes) {
  // y = t + z: the planner put y on t, which every ADD variant declares.
  ASSERT_EQ(variant_of(add_, 1), "add_s8_ref");
  EXPECT_NE(kernel_add_s8_ref.in_place_inputs & operand_bit(0), 0);
  const BufferRef t = operand(add_, 1, 0), z = operand(add_, 1, 1), y = operand(add_, 1, 2);
  EXPECT_EQ(y.offset, t.offset);
  EXPECT_EQ(y.bytes, t.bytes);
  // On z (the broadcast input, 8 of y's 16 bytes): not its exact bytes.
  EXPECT_EQ(moved(1, 2, z.offset), Status::kOperandsOverlap);
  EXPECT_TRUE(contains(log_lines(), "operation 1 (add_s8_ref): input 1")) << log_lines();
  EXPECT_TRUE(contains(log_lines(), "overlaps output 0")) << log_lines();
  // t = x + x reads x twice: inputs may share bytes.
  EXPECT_EQ(operand(add_, 0, 0).offset, operand(add_, 0, 1).offset);
}

TEST_F(OperandPlacement, ScratchSharesNoByteWithAnyOperand) {
  TaoEditor e = add_;
  const BufferRef x = operand(e, 0, 0);
  e.edit<OpRecord>(e.op_at(0), [&](OpRecord& o) { o.scratch = {0, x.offset, 16}; });
  e.fix_checksum();
  EXPECT_EQ(load(e.bytes), Status::kOperandsOverlap);
  EXPECT_TRUE(contains(log_lines(), "input 0")) << log_lines();
  EXPECT_TRUE(contains(log_lines(), "overlaps scratch 0")) << log_lines();
}

// A variant that declares no input in place takes none, not even on the
// exact bytes of an input as large as its output.
TEST(OperandOverlap, AnOutputOnAnUndeclaredInputIsRefused) {
  TaoEditor e{compile_for(same_size_depthwise_model(), Core::kCortexM4)};
  ASSERT_EQ(load(e.bytes), Status::kOk) << log_lines();
  const KernelDescriptor& d = *find_kernel(e.kernel(e.op(0).kernel).kernel_id);
  EXPECT_EQ(d.in_place_inputs, 0);
  const BufferRef x = operand(e, 0, 0);
  BufferRef y = operand(e, 0, 3);
  ASSERT_EQ(x.bytes, y.bytes);
  y.offset = x.offset;
  set_operand(e, 0, 3, y);
  e.fix_checksum();
  EXPECT_EQ(load(e.bytes), Status::kOperandsOverlap);
  EXPECT_TRUE(contains(log_lines(), std::string("operation 0 (") + d.name + "): input 0"))
      << log_lines();
}

TEST(OperandAlignment, FloatOperandsAreWordAlignedAtLoad) {
  // QUANTIZE reads its float input as words; DEQUANTIZE writes words.
  EXPECT_EQ(kernel_quantize_f32_s8_ref.word_aligned_inputs, operand_bit(0));
  EXPECT_EQ(kernel_dequantize_s8_f32_ref.word_aligned_outputs, operand_bit(0));
  EXPECT_EQ(kernel_softmax_s8_ref.word_aligned_inputs, operand_bit(1));
  TaoEditor e{compile_for(quantize_model(), Core::kCortexM0)};
  ASSERT_EQ(load(e.bytes), Status::kOk) << log_lines();
  const uint32_t op = 0;
  ASSERT_EQ(variant_of(e, op), "quantize_f32_s8_ref");
  for (const uint32_t shift : {1u, 2u, 3u}) {
    TaoEditor moved = e;
    BufferRef in = operand(moved, op, 0);
    in.offset += shift;
    if (uint64_t{in.offset} + in.bytes > moved.header().arena_bytes) in.offset -= 4;
    set_operand(moved, op, 0, in);
    moved.fix_checksum();
    EXPECT_EQ(load(moved.bytes), Status::kMisaligned) << shift << "\n" << log_lines();
    EXPECT_TRUE(contains(log_lines(), "(quantize_f32_s8_ref): input 0 at arena offset"))
        << log_lines();
  }
}

// Every declaration names operands the variant has, and in place only
// where there is one output to lie on.
TEST(OperandDeclarations, NameOperandsTheVariantHas) {
  for (uint32_t id = 0; id < kernel_count(); ++id) {
    const KernelDescriptor& d = *find_kernel(id);
    SCOPED_TRACE(d.name);
    EXPECT_EQ(d.in_place_inputs >> d.max_inputs, 0);
    EXPECT_EQ(d.word_aligned_inputs >> d.max_inputs, 0);
    EXPECT_EQ(d.word_aligned_outputs >> d.num_outputs, 0);
    if (d.in_place_inputs != 0) EXPECT_EQ(d.num_outputs, 1);
  }
}

}  // namespace
}  // namespace tinyaot::test
