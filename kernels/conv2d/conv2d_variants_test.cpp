// CONV_2D's shape-case variants against the reference kernel: bit-exact
// over random shapes and parameters in both rounding modes, scratch used
// exactly as declared, and a program whose planned scratch is too small
// refused before anything runs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <random>
#include <vector>

#include "kernels/common/kernel_sums.h"
#include "kernels/common/quant.h"
#include "kernels/conv2d/conv2d.h"
#include "kernels/conv2d/conv2d_cases.h"
#include "support/test_support.h"
#include "support/validate_support.h"
#include "tinyaot/runtime.h"

namespace tinyaot {
namespace {

struct ConvCase {
  Conv2dParams p{};
  std::vector<int8_t> input, filter;
  std::vector<ChannelQuant> quant;  // as the reference takes them
};

int32_t uniform(std::mt19937& rng, int32_t lo, int32_t hi) {
  return std::uniform_int_distribution<int32_t>(lo, hi)(rng);
}

std::vector<int8_t> random_bytes(std::mt19937& rng, size_t count) {
  std::vector<int8_t> bytes(count);
  for (auto& b : bytes) b = static_cast<int8_t>(uniform(rng, -128, 127));
  return bytes;
}

// One spatial axis: input, filter, stride, dilation and padding on both
// sides chosen at random; the output size follows.
void random_axis(std::mt19937& rng, bool pointwise, int32_t* input, int32_t* filter,
                 int32_t* stride, int32_t* dilation, int32_t* pad, int32_t* output) {
  for (;;) {
    *input = uniform(rng, 1, 9);
    *filter = pointwise ? 1 : uniform(rng, 1, 4);
    *stride = pointwise ? 1 : uniform(rng, 1, 3);
    *dilation = pointwise ? 1 : uniform(rng, 1, 2);
    const int32_t extent = (*filter - 1) * *dilation + 1;
    *pad = pointwise ? 0 : uniform(rng, 0, extent - 1);
    const int32_t after = pointwise ? 0 : uniform(rng, 0, extent - 1);
    const int32_t span = *input + *pad + after - extent;
    if (span < 0) continue;
    *output = span / *stride + 1;
    return;
  }
}

ConvCase random_case(std::mt19937& rng, bool pointwise) {
  ConvCase c;
  Conv2dParams& p = c.p;
  p.batches = uniform(rng, 1, 2);
  random_axis(rng, pointwise, &p.input_h, &p.filter_h, &p.stride_h, &p.dilation_h, &p.pad_top,
              &p.output_h);
  random_axis(rng, pointwise, &p.input_w, &p.filter_w, &p.stride_w, &p.dilation_w, &p.pad_left,
              &p.output_w);
  // Depths off multiples of 4 and 16 too, for the tails of the blocked loops.
  const int32_t depths[] = {1, 2, 3, 4, 5, 8, 13, 16, 17, 33};
  p.input_depth = p.filter_depth = depths[uniform(rng, 0, 9)];
  p.output_depth = uniform(rng, 1, 10);
  p.input_offset = uniform(rng, -127, 128);
  p.output_offset = uniform(rng, -128, 127);
  p.act_min = uniform(rng, -128, 20);
  p.act_max = uniform(rng, p.act_min, 127);
  c.input = random_bytes(rng, size_t(p.batches) * p.input_h * p.input_w * p.input_depth);
  c.filter = random_bytes(rng, size_t(p.output_depth) * p.filter_h * p.filter_w * p.filter_depth);
  for (int32_t o = 0; o < p.output_depth; ++o)
    c.quant.push_back(
        {uniform(rng, -20000, 20000), uniform(rng, 1 << 30, INT32_MAX), uniform(rng, -14, 1)});
  return c;
}

// 16-byte aligned bytes, as the planner places scratch; `guard` bytes of a
// pattern follow the usable part.
struct GuardedScratch {
  static constexpr uint8_t kPattern = 0xCD;
  std::vector<uint8_t> storage;
  uint8_t* data = nullptr;
  uint32_t bytes = 0, guard = 0;

  GuardedScratch(uint32_t usable, uint32_t guard_bytes) : bytes(usable), guard(guard_bytes) {
    storage.assign(usable + guard_bytes + 16, kPattern);
    const auto misalignment = reinterpret_cast<uintptr_t>(storage.data()) % 16;
    data = storage.data() + (misalignment ? 16 - misalignment : 0);
  }
  bool guard_intact() const {
    for (uint32_t i = 0; i < guard; ++i)
      if (data[bytes + i] != kPattern) return false;
    return true;
  }
};

Status validate_with(const KernelDescriptor& kernel, const Conv2dParams& p) {
  const uint32_t in[3] = {uint32_t(p.batches * p.input_h * p.input_w * p.input_depth),
                          uint32_t(p.output_depth * p.filter_h * p.filter_w * p.filter_depth),
                          uint32_t(p.output_depth * sizeof(ChannelQuant))};
  const uint32_t out[1] = {uint32_t(p.batches * p.output_h * p.output_w * p.output_depth)};
  return test::validate_sizes_with_unit_quants(kernel, &p, in, 3, out, 1);
}

// Runs `kernel` with its scratch placed in `scratch` (or none); the quant
// given is the one that kernel takes.
Status run_with(const KernelDescriptor& kernel, const ConvCase& c,
                const std::vector<ChannelQuant>& quant, Rounding rounding, Operand scratch,
                std::vector<int8_t>* output) {
  const Conv2dParams& p = c.p;
  output->assign(size_t(p.batches) * p.output_h * p.output_w * p.output_depth, 99);
  const Operand ins[3] = {
      {const_cast<int8_t*>(c.input.data()), uint32_t(c.input.size())},
      {const_cast<int8_t*>(c.filter.data()), uint32_t(c.filter.size())},
      {const_cast<ChannelQuant*>(quant.data()), uint32_t(quant.size() * sizeof(ChannelQuant))}};
  const Operand outs[1] = {{output->data(), uint32_t(output->size())}};
  const KernelArgs args{&p, ins, 3, outs, 1, scratch, rounding};
  return kernel.run(args);
}

std::vector<int8_t> reference(const ConvCase& c, Rounding rounding) {
  std::vector<int8_t> out;
  EXPECT_EQ(validate_with(kernel_conv2d_s8_ref, c.p), Status::kOk);
  EXPECT_EQ(run_with(kernel_conv2d_s8_ref, c, c.quant, rounding, {nullptr, 0}, &out), Status::kOk);
  return out;
}

// The constants a variant takes: some want the input offset folded.
std::vector<ChannelQuant> variant_quant(const KernelDescriptor& kernel, const ConvCase& c) {
  std::vector<ChannelQuant> quant = c.quant;
  if (conv2d_variant_folds_input_offset(&kernel))
    fold_input_offset(quant.data(), c.p.output_depth, c.filter.data(),
                      int32_t(conv2d_column_length(c.p)), c.p.input_offset);
  return quant;
}

// Every random case: the variant validates, writes nothing past its
// declared scratch and matches the reference byte for byte.
void check_variant(const KernelDescriptor& kernel, bool pointwise, uint32_t seed) {
  std::mt19937 rng(seed);
  for (int iteration = 0; iteration < 300; ++iteration) {
    const ConvCase c = random_case(rng, pointwise);
    ASSERT_EQ(validate_with(kernel, c.p), Status::kOk) << "iteration " << iteration;
    const std::vector<ChannelQuant> quant = variant_quant(kernel, c);
    for (Rounding rounding : {Rounding::kDouble, Rounding::kSingle}) {
      const uint32_t need = kernel.scratch_bytes ? kernel.scratch_bytes(&c.p) : 0;
      GuardedScratch scratch(need, 64);
      std::vector<int8_t> out;
      ASSERT_EQ(run_with(kernel, c, quant, rounding, {need ? scratch.data : nullptr, need}, &out),
                Status::kOk);
      EXPECT_TRUE(scratch.guard_intact()) << kernel.name << " wrote past its scratch";
      ASSERT_EQ(out, reference(c, rounding))
          << kernel.name << " iteration " << iteration << " rounding " << int(rounding);
    }
  }
}

TEST(Conv2dVariants, PointwiseMatchesReference) { check_variant(kernel_conv2d_s8_1x1, true, 11); }

TEST(Conv2dVariants, Im2colDspMatchesReference) {
  check_variant(kernel_conv2d_s8_im2col_dsp, false, 12);
  check_variant(kernel_conv2d_s8_im2col_dsp, true, 13);
}

TEST(Conv2dVariants, Im2colMveMatchesReference) {
  check_variant(kernel_conv2d_s8_im2col_mve, false, 14);
  check_variant(kernel_conv2d_s8_im2col_mve, true, 15);
}

// Accumulators that overflow int32 wrap in the reference (as on the
// hardware); folding the offset into the bias must wrap the same way.
TEST(Conv2dVariants, WrappingAccumulatorsStayBitExact) {
  std::mt19937 rng(16);
  ConvCase c = random_case(rng, false);
  for (auto& q : c.quant) q.bias = INT32_MAX - 5;
  std::fill(c.input.begin(), c.input.end(), int8_t{127});
  std::fill(c.filter.begin(), c.filter.end(), int8_t{127});
  c.p.input_offset = 128;
  for (const KernelDescriptor* kernel :
       {&kernel_conv2d_s8_im2col_dsp, &kernel_conv2d_s8_im2col_mve}) {
    const uint32_t need = kernel->scratch_bytes(&c.p);
    GuardedScratch scratch(need, 0);
    std::vector<int8_t> out;
    ASSERT_EQ(run_with(*kernel, c, variant_quant(*kernel, c), Rounding::kDouble,
                       {scratch.data, need}, &out),
              Status::kOk);
    EXPECT_EQ(out, reference(c, Rounding::kDouble)) << kernel->name;
  }
}

TEST(Conv2dVariants, PointwiseFoldedOffsetWrapsLikeTheReference) {
  std::mt19937 rng(17);
  ConvCase c = random_case(rng, true);
  for (auto& q : c.quant) q.bias = INT32_MAX - 5;
  std::fill(c.input.begin(), c.input.end(), int8_t{127});
  std::fill(c.filter.begin(), c.filter.end(), int8_t{127});
  c.p.input_offset = 128;
  std::vector<int8_t> out;
  ASSERT_EQ(run_with(kernel_conv2d_s8_1x1, c, variant_quant(kernel_conv2d_s8_1x1, c),
                     Rounding::kDouble, {nullptr, 0}, &out),
            Status::kOk);
  EXPECT_EQ(out, reference(c, Rounding::kDouble));
}

TEST(Conv2dVariants, ScratchSizesFollowTheColumnLayout) {
  Conv2dParams p{};
  p.filter_h = 3;
  p.filter_w = 3;
  p.filter_depth = p.input_depth = 3;  // columns of 27
  EXPECT_EQ(kernel_conv2d_s8_im2col_dsp.scratch_bytes(&p), 2u * 27u * 2u);
  EXPECT_EQ(kernel_conv2d_s8_im2col_mve.scratch_bytes(&p), 112u);  // 108 rounded up to 16
  p.filter_h = p.filter_w = 1;
  p.filter_depth = p.input_depth = 64;
  EXPECT_EQ(kernel_conv2d_s8_im2col_dsp.scratch_bytes(&p), 256u);
  EXPECT_EQ(kernel_conv2d_s8_im2col_mve.scratch_bytes(&p), 256u);
  EXPECT_EQ(kernel_conv2d_s8_1x1.scratch_bytes, nullptr);
}

// Called directly (no loader), a kernel still refuses a scratch short of
// its need rather than write past it.
TEST(Conv2dVariants, KernelRefusesShortScratch) {
  std::mt19937 rng(17);
  const ConvCase c = random_case(rng, false);
  for (const KernelDescriptor* kernel :
       {&kernel_conv2d_s8_im2col_dsp, &kernel_conv2d_s8_im2col_mve}) {
    const uint32_t need = kernel->scratch_bytes(&c.p);
    GuardedScratch scratch(need - 1, 1);
    std::vector<int8_t> out;
    EXPECT_EQ(run_with(*kernel, c, variant_quant(*kernel, c), Rounding::kDouble,
                       {scratch.data, need - 1}, &out),
              Status::kScratchMismatch);
    EXPECT_EQ(
        run_with(*kernel, c, variant_quant(*kernel, c), Rounding::kDouble, {nullptr, 0}, &out),
        Status::kScratchMismatch);
  }
}

TEST(Conv2dVariants, ValidateRefusesShapesOutsideTheCase) {
  Conv2dParams p{};
  p.batches = 1;
  p.input_h = p.input_w = 4;
  p.input_depth = 4;
  p.filter_h = p.filter_w = 3;
  p.filter_depth = 4;
  p.output_h = p.output_w = 4;
  p.output_depth = 2;
  p.stride_h = p.stride_w = p.dilation_h = p.dilation_w = 1;
  p.pad_top = p.pad_left = 1;
  p.act_min = -128;
  p.act_max = 127;
  EXPECT_EQ(validate_with(kernel_conv2d_s8_ref, p), Status::kOk);
  EXPECT_EQ(validate_with(kernel_conv2d_s8_im2col_dsp, p), Status::kOk);
  EXPECT_EQ(validate_with(kernel_conv2d_s8_1x1, p), Status::kBadParams);  // 3x3 window

  Conv2dParams pointwise = p;
  pointwise.filter_h = pointwise.filter_w = 1;
  pointwise.pad_top = pointwise.pad_left = 0;
  EXPECT_EQ(validate_with(kernel_conv2d_s8_1x1, pointwise), Status::kOk);
  Conv2dParams strided = pointwise;
  strided.stride_h = 2;
  strided.output_h = 2;
  EXPECT_EQ(validate_with(kernel_conv2d_s8_ref, strided), Status::kOk);
  EXPECT_EQ(validate_with(kernel_conv2d_s8_1x1, strided), Status::kBadParams);

  Conv2dParams grouped = p;  // two groups of two channels
  grouped.filter_depth = 2;
  EXPECT_EQ(validate_with(kernel_conv2d_s8_ref, grouped), Status::kOk);
  EXPECT_EQ(validate_with(kernel_conv2d_s8_im2col_dsp, grouped), Status::kBadParams);
  EXPECT_EQ(validate_with(kernel_conv2d_s8_im2col_mve, grouped), Status::kBadParams);
  EXPECT_EQ(validate_with(kernel_conv2d_s8_1x1, grouped), Status::kBadParams);
}

// A CONV_2D program for a DSP core, compiled from the shared single-op
// model; empty when ../shared is absent.
std::vector<uint8_t> compile_conv_program(Core core) {
  const auto shared = test::shared_dir();
  if (!shared) return {};
  const auto tflite =
      test::read_file(*shared + "/golden-ops/op_conv_3x3_relu6/op_conv_3x3_relu6.tflite");
  CompileOptions options;
  options.target.core = core;
  options.target.isa = core_isa(core);
  // A lone convolution's scratch is always on the peak: keep the variant.
  options.prefer_speed = true;
  return compile_model(tflite.data(), tflite.size(), options).program;
}

// Index of the first operation with scratch, or -1.
int32_t first_scratch_op(const std::vector<uint8_t>& bytes, ProgramHeader* header) {
  std::memcpy(header, bytes.data(), sizeof(*header));
  for (uint32_t i = 0; i < header->num_ops; ++i) {
    OpRecord op;
    std::memcpy(&op, bytes.data() + header->ops_offset + i * sizeof(OpRecord), sizeof(op));
    if (op.scratch.bytes != 0) return int32_t(i);
  }
  return -1;
}

// Rewrites operation `index`'s planned scratch and re-seals the file.
std::vector<uint8_t> with_scratch(std::vector<uint8_t> bytes, uint32_t index, uint32_t offset,
                                  uint32_t scratch_bytes) {
  ProgramHeader header;
  std::memcpy(&header, bytes.data(), sizeof(header));
  const size_t field = header.ops_offset + index * sizeof(OpRecord) + offsetof(OpRecord, scratch);
  std::memcpy(bytes.data() + field + offsetof(BufferRef, offset), &offset, sizeof(offset));
  std::memcpy(bytes.data() + field + offsetof(BufferRef, bytes), &scratch_bytes,
              sizeof(scratch_bytes));
  const uint32_t checksum = program_checksum(bytes.data(), uint32_t(bytes.size()));
  std::memcpy(bytes.data() + offsetof(ProgramHeader, checksum), &checksum, sizeof(checksum));
  return bytes;
}

Status load(const std::vector<uint8_t>& bytes, Program* program, std::vector<uint8_t>* storage) {
  storage->assign(bytes.size() + 16, 0);
  const auto misalignment = reinterpret_cast<uintptr_t>(storage->data()) % 16;
  uint8_t* base = storage->data() + (misalignment ? 16 - misalignment : 0);
  std::memcpy(base, bytes.data(), bytes.size());
  return load_program(base, uint32_t(bytes.size()), program);
}

TEST(Conv2dVariants, LoaderRefusesPlannedScratchShortOfTheNeed) {
  for (Core core : {Core::kCortexM4, Core::kCortexM55}) {
    const std::vector<uint8_t> program = compile_conv_program(core);
    if (program.empty()) GTEST_SKIP() << "../shared is absent";
    ProgramHeader header;
    const int32_t index = first_scratch_op(program, &header);
    ASSERT_GE(index, 0) << core_name(core) << ": the conv should have scratch";
    Program loaded;
    std::vector<uint8_t> storage;
    ASSERT_EQ(load(program, &loaded, &storage), Status::kOk);
    const uint32_t planned = loaded.ops[index].scratch.bytes;
    const uint32_t need = find_kernel(loaded.kernels[loaded.ops[index].kernel].kernel_id)
                              ->scratch_bytes(loaded.params + loaded.ops[index].params_offset);
    EXPECT_EQ(planned, need);
    const uint32_t offset = loaded.ops[index].scratch.offset;
    EXPECT_EQ(load(with_scratch(program, uint32_t(index), offset, planned - 1), &loaded, &storage),
              Status::kScratchMismatch);
    EXPECT_EQ(load(with_scratch(program, uint32_t(index), offset, 0), &loaded, &storage),
              Status::kScratchMismatch);
  }
}

#if defined(TINYAOT_RUNTIME_CHECKS)
// The loader lets a larger scratch through (memory safe); the check build's
// executor demands the exact need, so a planner that drifted from the
// kernel is caught.
TEST(Conv2dVariants, ExecutorRefusesScratchOtherThanTheNeed) {
  const std::vector<uint8_t> program = compile_conv_program(Core::kCortexM4);
  if (program.empty()) GTEST_SKIP() << "../shared is absent";
  ProgramHeader header;
  const int32_t index = first_scratch_op(program, &header);
  ASSERT_GE(index, 0);
  Program loaded;
  std::vector<uint8_t> storage;
  ASSERT_EQ(load(program, &loaded, &storage), Status::kOk);
  // Grown by 4 bytes, moved down if it would pass the end of the arena
  // (the operation refuses before its kernel runs, so overlap is moot).
  const BufferRef scratch = loaded.ops[index].scratch;
  const uint32_t grown_bytes = scratch.bytes + 4;
  ASSERT_LE(grown_bytes, header.arena_bytes);
  const uint32_t offset = std::min(scratch.offset, (header.arena_bytes - grown_bytes) / 4 * 4);
  const std::vector<uint8_t> grown = with_scratch(program, uint32_t(index), offset, grown_bytes);
  ASSERT_EQ(load(grown, &loaded, &storage), Status::kOk);
  std::vector<uint8_t> arena_storage(header.arena_bytes + 16, 0);
  const auto misalignment = reinterpret_cast<uintptr_t>(arena_storage.data()) % 16;
  uint8_t* arena = arena_storage.data() + (misalignment ? 16 - misalignment : 0);
  EXPECT_EQ(run_program(loaded, arena, header.arena_bytes), Status::kScratchMismatch);
}
#endif

}  // namespace
}  // namespace tinyaot
