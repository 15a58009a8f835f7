// CONV_2D's shape-case variants, beyond the random sweep every variant
// gets against the reference (tests/variant_sweep/, on the host and on
// each emulated core): scratch sizes and a short scratch refused, shapes
// outside a variant's case refused, and a program whose planned scratch is
// too small refused before anything runs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <vector>

#include "kernels/common/quant.h"
#include "kernels/conv2d/conv2d.h"
#include "kernels/conv2d/conv2d_cases.h"
#include "support/test_support.h"
#include "support/validate_support.h"
#include "tests/variant_sweep/variant_sweep.h"
#include "tinyaot/runtime.h"

namespace tinyaot {
namespace {

sweep::Workspace g_workspace;

// Case `index` of `kernel`'s sweep (the shared generator), drawn into
// g_workspace.
sweep::Case drawn_case(const KernelDescriptor& kernel, uint32_t index) {
  sweep::Case c;
  sweep::Text detail;
  const char* problem =
      sweep::draw_case(kernel, sweep::kDefaultSeed, index, g_workspace, &c, &detail);
  EXPECT_EQ(problem, nullptr) << kernel.name << detail.c_str();
  return c;
}

Status validate_with(const KernelDescriptor& kernel, const Conv2dParams& p) {
  const uint32_t in[3] = {uint32_t(p.batches * p.input_h * p.input_w * p.input_depth),
                          uint32_t(p.output_depth * p.filter_h * p.filter_w * p.filter_depth),
                          uint32_t(p.output_depth * sizeof(ChannelQuant))};
  const uint32_t out[1] = {uint32_t(p.batches * p.output_h * p.output_w * p.output_depth)};
  return test::validate_sizes_with_unit_quants(kernel, &p, in, 3, out, 1);
}

// The fast variants' output step has no general path: they refuse a
// channel without a precomputed rescale, which the reference takes.
TEST(Conv2dVariants, FastVariantsRefuseChannelsWithoutAPrecomputedRescale) {
  Conv2dParams p{};
  p.batches = p.input_h = p.input_w = p.output_h = p.output_w = 1;
  p.filter_h = p.filter_w = 1;
  p.input_depth = p.filter_depth = 4;
  p.output_depth = 2;
  p.stride_h = p.stride_w = p.dilation_h = p.dilation_w = 1;
  p.act_min = -128;
  p.act_max = 127;
  const uint32_t in[3] = {4, 8, 2 * sizeof(ChannelQuant)};
  const uint32_t out[1] = {2};
  const ChannelQuant quant[2] = {make_channel_quant(0, 1 << 30, -3),
                                 make_channel_quant(0, 1 << 30, 1)};  // a left shift
  const void* constants[3] = {nullptr, nullptr, quant};
  EXPECT_EQ(test::validate_sizes(kernel_conv2d_s8_ref, &p, in, 3, out, 1, constants), Status::kOk);
  EXPECT_EQ(test::validate_sizes(kernel_conv2d_s8_1x1, &p, in, 3, out, 1, constants),
            Status::kBadParams);
}

TEST(Conv2dVariants, ScratchSizesFollowTheColumnLayout) {
  Conv2dParams p{};
  p.filter_h = 3;
  p.filter_w = 3;
  p.filter_depth = p.input_depth = 3;                              // columns of 27
  EXPECT_EQ(kernel_conv2d_s8_im2col.scratch_bytes(&p), 2u * 28u);  // two int8 columns of 27, padded
  EXPECT_EQ(kernel_conv2d_s8_im2col_mve.scratch_bytes(&p), 28u);   // one column, whole words
  p.filter_h = p.filter_w = 1;
  p.filter_depth = p.input_depth = 64;
  p.input_h = p.input_w = 8;
  p.output_h = p.output_w = 4;
  p.stride_h = p.stride_w = 2;
  p.dilation_h = p.dilation_w = 1;
  p.pad_top = 1;  // the first window row lies past the input: copied
  EXPECT_EQ(kernel_conv2d_s8_im2col.scratch_bytes(&p), 128u);
  EXPECT_EQ(kernel_conv2d_s8_im2col_mve.scratch_bytes(&p), 64u);
  p.pad_top = 0;  // every window a pixel's 64 channels inside the input: read in place
  EXPECT_EQ(kernel_conv2d_s8_im2col.scratch_bytes(&p), 0u);
  p.filter_w = 2;  // a row of two pixels, still one run of the input
  p.input_w = 9;
  EXPECT_EQ(kernel_conv2d_s8_im2col.scratch_bytes(&p), 0u);
  p.filter_depth = p.input_depth = 3;  // a run of 6 values: not whole words, copied
  EXPECT_EQ(kernel_conv2d_s8_im2col.scratch_bytes(&p), 16u);
  EXPECT_EQ(kernel_conv2d_s8_1x1.scratch_bytes, nullptr);
  EXPECT_EQ(kernel_conv2d_s8_window.scratch_bytes, nullptr);
}

// The sweep reaches both of the im2col variant's paths: windows copied into
// its scratch and windows read in place (no scratch at all).
TEST(Conv2dVariants, SweepDrawsIm2colCasesReadInPlace) {
  uint32_t in_place = 0, copied = 0;
  for (uint32_t index = 0; index < 1000; ++index) {
    const sweep::Case c = drawn_case(kernel_conv2d_s8_im2col, index);
    const Conv2dParams& p = c.p.conv;
    if (kernel_conv2d_s8_im2col.scratch_bytes(&c.p) != 0) {
      ++copied;
      continue;
    }
    ++in_place;
    EXPECT_EQ(p.filter_h, 1);
    EXPECT_EQ(p.filter_w * p.input_depth % 4, 0);
  }
  EXPECT_GE(in_place, 10u);
  EXPECT_GE(copied, 500u);
}

// A dilation whose step between filter rows passes INT32_MAX bytes (the
// window's second row is the only one inside the input): the im2col copy
// derives nothing it does not use, and matches the reference.
TEST(Conv2dVariants, Im2colTakesADilationFarPastTheInput) {
  sweep::Case c;
  c.family = sweep::Family::kConv2d;
  Conv2dParams& p = c.p.conv;
  p = Conv2dParams{};
  p.batches = 1;
  p.input_h = p.input_w = 2;
  p.input_depth = p.filter_depth = 1;
  p.filter_h = 2;
  p.filter_w = 1;
  p.dilation_h = 1 << 30;  // times the row of 2 bytes: 2^31
  p.dilation_w = 1;
  p.pad_top = (1 << 30) - 1;  // tap 0 above the input, tap 1 on its row 1
  p.output_h = 1;
  p.output_w = 2;
  p.output_depth = 2;
  p.stride_h = p.stride_w = 1;
  p.input_offset = 5;
  p.act_min = -128;
  p.act_max = 127;
  c.input_bytes = 4;
  c.row_length = 2;
  c.filter_bytes = 4;
  c.channels = 2;
  c.output_bytes = 4;
  c.input_offset = p.input_offset;
  c.variant_filter_bytes = uint32_t(conv2d_weight_bytes(&kernel_conv2d_s8_im2col, p));
  const int8_t input[4] = {-7, 100, -128, 127}, filter[4] = {3, -2, 127, -128};
  std::memcpy(g_workspace.input, input, 4);
  std::memcpy(g_workspace.filter, filter, 4);
  for (int i = 0; i < 2; ++i) g_workspace.quant[i] = make_channel_quant(i * 300, 1 << 30, -3);
  sweep::set_variant_quant(kernel_conv2d_s8_im2col, c, g_workspace);
  sweep::CaseOutcome outcome;
  sweep::compare_with_reference(kernel_conv2d_s8_im2col, c, g_workspace, &outcome);
  EXPECT_TRUE(outcome.passed) << (outcome.problem != nullptr ? outcome.problem : "")
                              << outcome.detail.c_str();
}

// Called directly (no loader), a kernel still refuses a scratch short of
// its need rather than write past it.
TEST(Conv2dVariants, KernelRefusesShortScratch) {
  for (const KernelDescriptor* kernel : {&kernel_conv2d_s8_im2col, &kernel_conv2d_s8_im2col_mve}) {
    const sweep::Case c = drawn_case(*kernel, 0);
    const uint32_t need = kernel->scratch_bytes(&c.p);
    ASSERT_GT(need, 0u);
    const sweep::Operands o =
        sweep::operands_for(kernel, g_workspace, c, g_workspace.variant_quant, g_workspace.actual);
    std::memset(g_workspace.scratch, 0xCD, need);
    for (const Operand scratch : {Operand{g_workspace.scratch, need - 1}, Operand{nullptr, 0}}) {
      const KernelArgs args{&c.p, o.inputs, 3, o.outputs, 1, scratch, Rounding::kDouble};
      EXPECT_EQ(kernel->run(args), Status::kScratchMismatch) << kernel->name;
    }
    EXPECT_EQ(g_workspace.scratch[need - 1], 0xCD) << kernel->name << " wrote past its scratch";
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
  EXPECT_EQ(validate_with(kernel_conv2d_s8_im2col, p), Status::kOk);
  EXPECT_EQ(validate_with(kernel_conv2d_s8_1x1, p),
            Status::kBadParams);  // 3x3 window

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
  EXPECT_EQ(validate_with(kernel_conv2d_s8_im2col, grouped), Status::kBadParams);
  EXPECT_EQ(validate_with(kernel_conv2d_s8_im2col_mve, grouped), Status::kBadParams);
  EXPECT_EQ(validate_with(kernel_conv2d_s8_window_mve, grouped), Status::kBadParams);
  EXPECT_EQ(validate_with(kernel_conv2d_s8_1x1, grouped), Status::kBadParams);
}

// The loader regression conv2d-1x1-mve-stride-row-step-overflow: a
// pointwise convolution of one output row, so that its stride reads no
// input at all, yet the MVE variant steps between output rows by
// stride_h * input_w * depth in 32 bits (2^36 here). The plane the
// windows span (is_window_2d) bounds it: every variant refuses the stride,
// and takes one that keeps the plane within int32.
TEST(Conv2dVariants, EveryVariantRefusesAStrideWhoseRowStepPassesInt32) {
  Conv2dParams p{};
  p.batches = p.input_h = p.output_h = 1;
  p.input_w = p.output_w = 4;
  p.input_depth = p.filter_depth = 16;
  p.filter_h = p.filter_w = 1;
  p.output_depth = 8;
  p.stride_h = p.stride_w = p.dilation_h = p.dilation_w = 1;
  p.act_min = -128;
  p.act_max = 127;
  const KernelDescriptor* const variants[] = {
      &kernel_conv2d_s8_ref,    &kernel_conv2d_s8_1x1,        &kernel_conv2d_s8_1x1_mve,
      &kernel_conv2d_s8_im2col, &kernel_conv2d_s8_im2col_mve, &kernel_conv2d_s8_window_mve};
  Conv2dParams near = p;
  near.stride_h = (INT32_MAX / (5 * 16)) - 1;  // (stride + 1) rows of 5 pixels of 16 bytes
  Conv2dParams far = p;
  far.stride_h = 1 << 30;
  for (const KernelDescriptor* kernel : variants) {
    const bool pointwise_only = kernel == &kernel_conv2d_s8_1x1;  // stride 1 alone
    EXPECT_EQ(validate_with(*kernel, p), Status::kOk) << kernel->name;
    EXPECT_EQ(validate_with(*kernel, near), pointwise_only ? Status::kBadParams : Status::kOk)
        << kernel->name;
    EXPECT_EQ(validate_with(*kernel, far), Status::kBadParams) << kernel->name;
  }
  Conv2dParams past = near;
  ++past.stride_h;
  EXPECT_EQ(validate_with(kernel_conv2d_s8_ref, past), Status::kBadParams);
}

// The MVE window variant takes its weights in its padded layout only: the
// model's byte count (a program from before the layout) is refused.
TEST(Conv2dVariants, WindowMveTakesItsLayoutsWeightCount) {
  Conv2dParams p{};
  p.batches = 1;
  p.input_h = p.input_w = p.output_h = p.output_w = 4;
  p.input_depth = p.filter_depth = 3;
  p.filter_h = p.filter_w = 3;
  p.output_depth = 5;
  p.stride_h = p.stride_w = p.dilation_h = p.dilation_w = 1;
  p.pad_top = p.pad_left = 1;
  p.act_min = -128;
  p.act_max = 127;
  const uint32_t model = 5 * 27, laid_out = 2 * 3 * 64;  // two groups, three rows of 16 x 4
  EXPECT_EQ(window_mve_weight_bytes(p), laid_out);
  const uint32_t out[1] = {16 * 5};
  for (const uint32_t weights : {model, laid_out}) {
    const uint32_t in[3] = {48, weights, uint32_t(5 * sizeof(ChannelQuant))};
    EXPECT_EQ(test::validate_sizes_with_unit_quants(kernel_conv2d_s8_window_mve, &p, in, 3, out, 1),
              weights == laid_out ? Status::kOk : Status::kBadParams)
        << weights;
  }
}

// The window variant reads its fourth operand for every tap outside the
// input: the loader must see a constant of input_depth zero points, or a
// corrupt program would add the wrong values to the accumulators.
TEST(Conv2dVariants, WindowVariantRefusesAPadRowOtherThanTheZeroPoint) {
  const KernelDescriptor& window = kernel_conv2d_s8_window;
  const sweep::Case c = drawn_case(window, 0);
  sweep::Operands o =
      sweep::operands_for(&window, g_workspace, c, g_workspace.variant_quant, g_workspace.actual);
  ASSERT_EQ(o.num_inputs, 4u);
  const auto check = [&](uint32_t num_inputs) {
    return sweep::validate_operation(window, &c.p, o.inputs, num_inputs, o.outputs);
  };
  EXPECT_EQ(check(4), Status::kOk);
  EXPECT_EQ(check(3), Status::kBadParams);  // no pad row
  int8_t* pad = g_workspace.pad_row;
  pad[c.p.conv.input_depth - 1] ^= 1;  // one byte off the zero point
  EXPECT_EQ(check(4), Status::kBadParams);
  pad[c.p.conv.input_depth - 1] ^= 1;
  o.inputs[3].bytes -= 1;  // one zero point short
  EXPECT_EQ(check(4), Status::kBadParams);
  o.inputs[3].bytes += 1;
  ASSERT_EQ(check(4), Status::kOk);
  Conv2dParams grouped = c.p.conv;  // the window variant is ungrouped only
  grouped.filter_depth = 1;
  if (grouped.input_depth > 1) {
    EXPECT_EQ(sweep::validate_operation(window, &grouped, o.inputs, 4, o.outputs),
              Status::kBadParams);
  }
}

// A program for a DSP or MVE core whose first CONV_2D (10x4 over one
// channel: the im2col variants win there) has scratch, compiled from a
// shared model; empty when ../shared is absent.
std::vector<uint8_t> compile_conv_program(Core core) {
  const auto shared = test::shared_dir();
  if (!shared) return {};
  const auto tflite = test::read_file(*shared + "/models/kws_ref_model.tflite");
  CompileOptions options;
  options.target.core = core;
  options.target.isa = core_isa(core);
  // Keep the variant even where its scratch is on the peak.
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
