// What the loader guarantees beyond a program's structure (issue 17): no
// index any variant forms overflows its type, no operation's operands share
// arena bytes unless its variant declares the input safe in place, and
// every operand a variant reads as words is word-aligned.
//
// The programs of the loader regressions in tests/fuzz/regressions/loader/
// that test these are made here, each from a small model compiled for its
// core and then edited: a parameter past a variant's bound, a kernel table
// entry naming a variant whose case the parameters are outside, an operand
// moved. Each is checked to be refused with its status and log line, the
// same program unedited to load; the committed files to be refused alike
// after the loader fuzzer's fixups (program_fixups.h). To write the files
// again (after a format or compiler change):
//   TINYAOT_WRITE_LOADER_REGRESSIONS=1 build-tests/tinyaot_tests \
//       --gtest_filter='LoaderRegressions.*'
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "compiler/compile.h"
#include "fuzz/program_fixups.h"
#include "kernels/batch_matmul/batch_matmul.h"
#include "kernels/batch_matmul/batch_matmul_terms.h"
#include "kernels/conv2d/conv2d.h"
#include "kernels/depthwise_conv2d/depthwise_conv2d.h"
#include "kernels/elementwise/elementwise.h"
#include "kernels/fully_connected/fully_connected.h"
#include "kernels/kernel_list.h"
#include "kernels/lstm/lstm.h"
#include "kernels/pooling/pooling.h"
#include "kernels/quantize/requantize_int.h"
#include "kernels/softmax/softmax.h"
#include "kernels/svdf/svdf.h"
#include "kernels/transpose_conv/transpose_conv.h"
#include "support/tao_editor.h"
#include "support/test_support.h"
#include "tools/modelgen/layers.h"

namespace tinyaot::test {
namespace {

namespace fs = std::filesystem;
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

const char* name_of(KernelId id) { return find_kernel(static_cast<uint32_t>(id))->name; }

size_t params_at(const TaoEditor& e, uint32_t op) {
  return e.header().params_offset + e.op(op).params_offset;
}

template <typename Params>
void edit_params(TaoEditor& e, uint32_t op, const std::function<void(Params&)>& change) {
  EXPECT_EQ(e.op(op).params_bytes, sizeof(Params));
  e.edit<Params>(params_at(e, op), change);
}

BufferRef operand(const TaoEditor& e, uint32_t op, uint32_t index) {
  return e.get<BufferRef>(e.operand_at(e.op(op).first_operand + index));
}

void set_operand(TaoEditor& e, uint32_t op, uint32_t index, const BufferRef& ref) {
  ASSERT_LE(uint64_t{ref.offset} + ref.bytes, e.header().arena_bytes);
  e.set(e.operand_at(e.op(op).first_operand + index), ref);
}

// The operation's kernel table entry names `variant` instead, as a program
// built for it would (its id, version, counts, fingerprint).
void name_variant(TaoEditor& e, uint32_t op, KernelId id) {
  const KernelDescriptor& d = *find_kernel(static_cast<uint32_t>(id));
  e.edit<AbiEntry>(e.kernel_at(e.op(op).kernel), [&](AbiEntry& a) {
    a = AbiEntry{};
    std::snprintf(a.name, sizeof(a.name), "%s", d.name);
    a.kernel_id = static_cast<uint32_t>(id);
    a.version = d.version;
    a.params_bytes = d.params_bytes;
    a.min_inputs = d.min_inputs;
    a.max_inputs = d.max_inputs;
    a.num_outputs = d.num_outputs;
    a.isa = static_cast<uint8_t>(d.isa);
    a.fingerprint = abi_fingerprint(d);
  });
}

// ------------------------------------------------------------ the models

// x [1, 3, 64, 64] -> PAD 2 rows below -> DEPTHWISE 3x3 VALID, stride 2
// down: the PAD folds into the depthwise (pad_bottom 2), whose params are
// then an input 3x64x64 (HxWxC), a 3x3 filter, an output 2x62.
Bytes depthwise_model() {
  mg::ModelBuilder b;
  const int32_t x = b.add_int8("x", {1, 3, 64, 64}, 0.05f, 0);
  const int32_t paddings = b.add_int32_constant("paddings", {4, 2}, {0, 0, 0, 2, 0, 0, 0, 0});
  const int32_t padded = b.add_int8("padded", {1, 5, 64, 64}, 0.05f, 0);
  b.add_operator(BO::PAD, 1, {x, paddings}, {padded}, options(tflite::PadOptionsT()));
  mg::Window window;
  window.stride_h = 2;
  window.padding = mg::Padding::VALID;
  const int32_t y = mg::depthwise_conv2d(b, "dw", padded, mg::patterned_weights({1, 3, 3, 64}),
                                         std::nullopt, window, {0.1f, 0});
  b.set_inputs({x});
  b.set_outputs({y});
  return b.finish();
}

// x [1, 1, 4, 16] -> CONV_2D 1x1 -> [1, 1, 4, 8]: one output row.
Bytes pointwise_model() {
  mg::ModelBuilder b;
  const int32_t x = b.add_int8("x", {1, 1, 4, 16}, 0.05f, 0);
  const int32_t y = mg::conv2d(b, "conv", x, mg::patterned_weights({8, 1, 1, 16}), std::nullopt,
                               mg::Window{}, {0.1f, 0});
  b.set_inputs({x});
  b.set_outputs({y});
  return b.finish();
}

// x [4, 16] -> FULLY_CONNECTED -> [4, 4].
Bytes fully_connected_model() {
  mg::ModelBuilder b;
  const int32_t x = b.add_int8("x", {4, 16}, 0.05f, 0);
  const int32_t y = mg::fully_connected(b, "fc", x, mg::patterned_weights({4, 16}), std::nullopt,
                                        mg::ActivationFunctionType::NONE, false, {0.1f, 0});
  b.set_inputs({x});
  b.set_outputs({y});
  return b.finish();
}

// x int16 [4, 16] -> FULLY_CONNECTED (int8 weights, int64 bias) -> int16
// [4, 4].
Bytes fully_connected_s16_model() {
  mg::ModelBuilder b;
  const int32_t x = b.add_int16("x", {4, 16}, 0.001f);
  const int32_t y = mg::fully_connected(b, "fc", x, mg::patterned_weights({4, 16}),
                                        std::vector<int32_t>{1, -2, 3, -4},
                                        mg::ActivationFunctionType::NONE, false, {0.002f, 0});
  b.set_inputs({x});
  b.set_outputs({y});
  return b.finish();
}

// LHS [1, 2, 4370] read transposed (adj_x) times a constant [2, 4]: 4,370
// rows, the LHS depth-major.
Bytes batch_matmul_model(int32_t rows) {
  mg::ModelBuilder b;
  const int32_t x = b.add_int8("lhs", {1, 2, rows}, 0.05f, 0);
  const int32_t y = b.add_int8_constant("rhs", {2, 4}, {1, -2, 3, -4, 5, -6, 7, -8},
                                        mg::Quant::per_tensor(0.05f, 0));
  const int32_t o = b.add_int8("out", {1, rows, 4}, 0.1f, 0);
  tflite::BatchMatMulOptionsT opts;
  opts.adj_x = true;
  b.add_operator(BO::BATCH_MATMUL, 2, {x, y}, {o}, options(std::move(opts)));
  b.set_inputs({x});
  b.set_outputs({o});
  return b.finish();
}

// x [1, depth] -> SOFTMAX.
Bytes softmax_model(int32_t depth) {
  mg::ModelBuilder b;
  const int32_t x = b.add_int8("x", {1, depth}, 0.05f, 0);
  const int32_t y = mg::softmax(b, "softmax", x, 1.0f);
  b.set_inputs({x});
  b.set_outputs({y});
  return b.finish();
}

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

// x [1, 4, 4, 8] -> MAX_POOL 2x2, stride 2 -> [1, 2, 2, 8].
Bytes max_pool_model() {
  mg::ModelBuilder b;
  const int32_t x = b.add_int8("x", {1, 4, 4, 8}, 0.05f, 0);
  mg::Window window;
  window.stride_h = window.stride_w = 2;
  window.padding = mg::Padding::VALID;
  const int32_t y = mg::pool2d(b, "pool", mg::PoolKind::kMax, x, 2, 2, window);
  b.set_inputs({x});
  b.set_outputs({y});
  return b.finish();
}

// x [1, 2, 2, 4] -> TRANSPOSE_CONV 3x3, stride 2, VALID -> [1, 5, 5, 4].
Bytes transpose_conv_model() {
  mg::ModelBuilder b;
  const int32_t x = b.add_int8("x", {1, 2, 2, 4}, 0.05f, 0);
  const int32_t filter = mg::add_weights(b, "weights", mg::patterned_weights({4, 3, 3, 4}), 0);
  const int32_t shape = b.add_int32_constant("output_shape", {4}, {1, 5, 5, 4});
  const int32_t y = b.add_int8("y", {1, 5, 5, 4}, 0.1f, 0);
  tflite::TransposeConvOptionsT o;
  o.padding = mg::Padding::VALID;
  o.stride_h = o.stride_w = 2;
  b.add_operator(BO::TRANSPOSE_CONV, 3, {shape, filter, x}, {y}, options(std::move(o)));
  b.set_inputs({x});
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

// The planner puts QUANTIZE's output on its input's first bytes: give the
// arena 16 bytes more and move the output to its end, so that a test can
// move the input alone. Returns the input's room: the output's offset.
uint32_t move_quantize_output_away(TaoEditor& e, uint32_t op) {
  const uint32_t arena = e.header().arena_bytes;
  e.edit_header([](ProgramHeader& h) { h.arena_bytes += 16; });
  BufferRef out = operand(e, op, 1);
  EXPECT_LE(out.bytes, 12u);
  out.offset = arena + 16 - out.bytes;
  set_operand(e, op, 1, out);
  return out.offset;
}

// ----------------------------------------------------- the regressions

struct Regression {
  const char* name;  // its file in tests/fuzz/regressions/loader/
  Core core;
  std::function<Bytes()> model;
  uint32_t op;        // the operation edited
  KernelId compiled;  // its variant as compiled
  // The edit; the operation's variant afterwards is `refused_by`.
  std::function<void(TaoEditor&, uint32_t op)> edit;
  KernelId refused_by;
  Status expected;
  const char* log_needle;
};

const char* const kParamsLine = "parameters or constants out of range";

std::vector<Regression> regressions() {
  return {
      // Issue 17's case: the DSP variant steps between output rows by
      // stride_h * input_w * depth = 2^20 * 64 * 64 = 2^32.
      {"depthwise-dsp-stride-row-step-overflow", Core::kCortexM4, depthwise_model, 0,
       KernelId::depthwise_conv2d_s8_dsp,
       [](TaoEditor& e, uint32_t op) {
         edit_params<DepthwiseConv2dParams>(e, op,
                                            [](DepthwiseConv2dParams& p) { p.stride_h = 1 << 20; });
       },
       KernelId::depthwise_conv2d_s8_dsp, Status::kBadParams, kParamsLine},
      // The same on M55: the MVE variant's window_origin, (2^20 * 64) * 64.
      {"depthwise-mve-window-origin-overflow", Core::kCortexM55, depthwise_model, 0,
       KernelId::depthwise_conv2d_s8_mve,
       [](TaoEditor& e, uint32_t op) {
         edit_params<DepthwiseConv2dParams>(e, op,
                                            [](DepthwiseConv2dParams& p) { p.stride_h = 1 << 20; });
       },
       KernelId::depthwise_conv2d_s8_mve, Status::kBadParams, kParamsLine},
      // CONV_2D's: the pointwise MVE variant's row step, stride_h * input_w
      // * depth = 2^30 * 4 * 16, over one output row (no window reads it).
      {"conv2d-1x1-mve-stride-row-step-overflow", Core::kCortexM55, pointwise_model, 0,
       KernelId::conv2d_s8_1x1_mve,
       [](TaoEditor& e, uint32_t op) {
         edit_params<Conv2dParams>(e, op, [](Conv2dParams& p) { p.stride_h = 1 << 30; });
       },
       KernelId::conv2d_s8_1x1_mve, Status::kBadParams, kParamsLine},
      // FULLY_CONNECTED's: batches * input_depth and output_depth *
      // input_depth, 4 * (2^30 + 16), which wrap in 32 bits to the operands'
      // true 64 bytes.
      {"fully-connected-dsp-depth-product-wraps", Core::kCortexM4, fully_connected_model, 0,
       KernelId::fully_connected_s8_dsp,
       [](TaoEditor& e, uint32_t op) {
         edit_params<FullyConnectedParams>(
             e, op, [](FullyConnectedParams& p) { p.input_depth += 1 << 30; });
       },
       KernelId::fully_connected_s8_dsp, Status::kBadParams, kParamsLine},
      // BATCH_MATMUL's: the MVE variant gathers a depth-major operand by
      // 16-bit offsets up to 15 * rows, past 65,535 for 4,370 rows (the
      // compiler picks the reference; the program names the MVE variant).
      {"batch-matmul-mve-gather-offset-overflow", Core::kCortexM55,
       [] { return batch_matmul_model(kBatchMatmulMaxGatherStep + 1); }, 0,
       KernelId::batch_matmul_s8_ref,
       [](TaoEditor& e, uint32_t op) {
         e.edit<OpRecord>(e.op_at(op), [](OpRecord& o) { o.scratch = {}; });
         name_variant(e, op, KernelId::batch_matmul_s8_mve);
       },
       KernelId::batch_matmul_s8_mve, Status::kBadParams, kParamsLine},
      // SOFTMAX's: the MVE variant's Q12 sum of a row wraps past 8,191
      // values (the compiler picks the reference for 8,192).
      {"softmax-mve-row-past-8191", Core::kCortexM55,
       [] { return softmax_model(kSoftmaxMveMaxDepth + 1); }, 0, KernelId::softmax_s8_ref,
       [](TaoEditor& e, uint32_t op) { name_variant(e, op, KernelId::softmax_s8_mve); },
       KernelId::softmax_s8_mve, Status::kBadParams, kParamsLine},
      // The element-wise family's: a broadcast stride times its extent,
      // INT32_MAX * (2 - 1) plus the rest of the walk (y = t + z, whose
      // rows z is broadcast down).
      {"add-mve-broadcast-span-overflow", Core::kCortexM55, add_model, 1, KernelId::add_s8_mve,
       [](TaoEditor& e, uint32_t op) {
         edit_params<AddSubParams>(e, op, [](AddSubParams& p) {
           for (int d = 0; d < kBroadcastRank; ++d)
             if (p.shape.dims[d] == 2) p.shape.strides1[d] = INT32_MAX;
         });
       },
       KernelId::add_s8_mve, Status::kBadParams, kParamsLine},
      // The pooling family's: a window origin, (output_h - 1) * stride_h.
      {"max-pool-mve-window-origin-overflow", Core::kCortexM55, max_pool_model, 0,
       KernelId::max_pool2d_s8_mve,
       [](TaoEditor& e, uint32_t op) {
         edit_params<Pool2dParams>(e, op, [](Pool2dParams& p) { p.stride_h = INT32_MAX; });
       },
       KernelId::max_pool2d_s8_mve, Status::kBadParams, kParamsLine},
      // TRANSPOSE_CONV's: the MVE variant's output coordinate plus the
      // leading padding, in 32 bits.
      {"transpose-conv-mve-padded-coordinate-overflow", Core::kCortexM55, transpose_conv_model, 0,
       KernelId::transpose_conv_s8_mve,
       [](TaoEditor& e, uint32_t op) {
         edit_params<TransposeConvParams>(
             e, op, [](TransposeConvParams& p) { p.pad_top = INT32_MAX - 2; });
       },
       KernelId::transpose_conv_s8_mve, Status::kBadParams, kParamsLine},
      // An output straddling the input it may take over in place: only the
      // exact bytes are safe (the second ADD writes over t).
      // (y = t + z, over t.)
      {"add-output-straddles-its-in-place-input", Core::kCortexM4, add_model, 1,
       KernelId::add_s8_ref,
       [](TaoEditor& e, uint32_t op) {
         BufferRef out = operand(e, op, 2);
         ASSERT_EQ(out.offset, operand(e, op, 0).offset);
         out.offset = out.offset >= 8 ? out.offset - 8 : out.offset + 8;
         set_operand(e, op, 2, out);
       },
       KernelId::add_s8_ref, Status::kOperandsOverlap, "overlaps output 0"},
      // A float input the quantizer reads as words, at an odd offset.
      {"quantize-float-input-misaligned", Core::kCortexM0, quantize_model, 0,
       KernelId::quantize_f32_s8_estimate,
       [](TaoEditor& e, uint32_t op) {
         const uint32_t room = move_quantize_output_away(e, op);
         BufferRef in = operand(e, op, 0);
         EXPECT_LE(in.offset + in.bytes + 2, room);
         in.offset += 2;
         set_operand(e, op, 0, in);
       },
       KernelId::quantize_f32_s8_estimate, Status::kMisaligned, "is not 4-byte aligned"},
      // An int16 input at an odd offset (the on-core fuzzer's find: an
      // unaligned halfword load faults on the M0).
      {"fully-connected-s16-input-odd-offset", Core::kCortexM0, fully_connected_s16_model, 0,
       KernelId::fully_connected_s16_ref,
       [](TaoEditor& e, uint32_t op) {
         e.edit_header([](ProgramHeader& h) { h.arena_bytes += 16; });
         BufferRef in = operand(e, op, 0);
         in.offset = e.header().arena_bytes - in.bytes - 1;
         set_operand(e, op, 0, in);
       },
       KernelId::fully_connected_s16_ref, Status::kMisaligned, "is not 2-byte aligned"},
  };
}

// The program of `r`, edited; *base: the same unedited.
Bytes regression_program(const Regression& r, Bytes* base) {
  TaoEditor e{compile_for(r.model(), r.core)};
  *base = e.bytes;
  EXPECT_LT(r.op, e.header().num_ops);
  EXPECT_EQ(variant_of(e, r.op), name_of(r.compiled));
  r.edit(e, r.op);
  e.fix_checksum();
  return e.bytes;
}

std::string regression_file(const std::string& name) {
  return std::string(TINYAOT_SOURCE_DIR) + "/tests/fuzz/regressions/loader/" + name;
}

TEST(LoaderRegressions, EachIsRefusedByItsCheckAndItsProgramUneditedLoads) {
  for (const Regression& r : regressions()) {
    SCOPED_TRACE(r.name);
    Bytes base;
    const Bytes edited = regression_program(r, &base);
    EXPECT_EQ(load(base), Status::kOk) << log_lines();
    EXPECT_EQ(load(edited), r.expected) << log_lines();
    const std::string where =
        "operation " + std::to_string(r.op) + " (" + name_of(r.refused_by) + "): ";
    EXPECT_TRUE(contains(log_lines(), where)) << log_lines();
    EXPECT_TRUE(contains(log_lines(), r.log_needle)) << log_lines();
    if (std::getenv("TINYAOT_WRITE_LOADER_REGRESSIONS") != nullptr)
      write_file(regression_file(r.name), edited);
  }
}

// The committed files, as the fuzzer replays them (run_fuzzers.sh): after
// its fixups they still reach the check they were made for.
TEST(LoaderRegressions, CommittedFilesReachTheirCheck) {
  for (const Regression& r : regressions()) {
    SCOPED_TRACE(r.name);
    ASSERT_TRUE(fs::exists(regression_file(r.name))) << "write it: see the top of this file";
    Bytes bytes = read_file(regression_file(r.name));
    fuzz::fix_up_program(bytes.data(), static_cast<uint32_t>(bytes.size()));
    EXPECT_EQ(load(bytes), r.expected) << log_lines();
    EXPECT_TRUE(contains(log_lines(), r.log_needle)) << log_lines();
  }
}

// The loader fuzzer's own finds, after the checks above: each still
// reaches the check it was saved for (or, where that check moved to the
// loader, the loader's).
TEST(LoaderRegressions, FuzzerFindsReachTheirCheck) {
  struct Find {
    const char* file;
    Status expected;
    const char* log_needle;  // "" for a program that loads
  };
  const Find finds[] = {
      // Windows of no tap far below the input (stride 167,772: the largest
      // whose plane fits int32): loads, and the 3x3 kernel forms no offset
      // from their origin. Its first stride, 16,318,208, is refused now.
      {"depthwise-3x3-empty-window-offset-062833d2", Status::kOk, ""},
      // A dilation whose row step passes int32: the plane bound refuses it.
      {"depthwise-dilation-step-overflow-69628785", Status::kBadParams,
       "operation 0 (depthwise_conv2d_s8_dsp): parameters"},
      // A float output at offset 10: refused at load, no longer at run time.
      {"dequantize-misaligned-output-3439219f", Status::kMisaligned,
       "(dequantize_s8_f32_ref): output 0 at arena offset 10"},
      // Saved for a bias that wrapped in the kernel; its per-channel
      // constants are out of range, refused since the loader checks them.
      {"fc-bias-overflow-839c184a", Status::kBadParams,
       "operation 0 (fully_connected_s8_ref): parameters"},
      {"fc-channelquant-shift-504-d87c2af4", Status::kBadParams,
       "operation 0 (fully_connected_s8_ref): parameters"},
  };
  for (const Find& find : finds) {
    SCOPED_TRACE(find.file);
    Bytes bytes = read_file(regression_file(find.file));
    fuzz::fix_up_program(bytes.data(), static_cast<uint32_t>(bytes.size()));
    EXPECT_EQ(load(bytes), find.expected) << log_lines();
    EXPECT_TRUE(contains(log_lines(), find.log_needle)) << log_lines();
  }
}

// The regressions that edit no parameter refuse for that reason alone:
// the same parameters within the variant's case pass it.
TEST(LoaderRegressions, VariantSwapsAreRefusedForTheirBoundAlone) {
  BatchMatmulParams bmm{};
  bmm.lhs_layout = MatrixLayout::kDepthMajor;
  bmm.multiplier = 1 << 30;
  bmm.shift = -1;
  bmm.rows = kBatchMatmulMaxGatherStep;
  EXPECT_TRUE(batch_matmul_mve_applies(bmm));
  ++bmm.rows;
  EXPECT_FALSE(batch_matmul_mve_applies(bmm));
  EXPECT_EQ(15 * int64_t{kBatchMatmulMaxGatherStep}, int64_t{UINT16_MAX});
  SoftmaxParams softmax{1, kSoftmaxMveMaxDepth};
  EXPECT_TRUE(is_softmax_mve_case(softmax));
  ++softmax.depth;
  EXPECT_FALSE(is_softmax_mve_case(softmax));
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

// QUANTIZE narrows float32 to int8 in place: its output may start where
// its input starts (the planner puts it there), nowhere else inside it.
TEST(OperandOverlap, ANarrowingOutputLiesOnlyOnTheStartOfItsInput) {
  TaoEditor e{compile_for(quantize_model(), Core::kCortexM0)};
  ASSERT_EQ(load(e.bytes), Status::kOk) << log_lines();
  ASSERT_EQ(variant_of(e, 0), "quantize_f32_s8_estimate");
  EXPECT_EQ(kernel_quantize_f32_s8_estimate.in_place_inputs, operand_bit(0));
  const BufferRef x = operand(e, 0, 0), y = operand(e, 0, 1);
  EXPECT_EQ(y.offset, x.offset);
  EXPECT_EQ(x.bytes, 4 * y.bytes);
  for (const uint32_t shift : {1u, 4u, 8u}) {
    TaoEditor moved = e;
    BufferRef inside = y;
    inside.offset = x.offset + shift;
    set_operand(moved, 0, 1, inside);
    moved.fix_checksum();
    EXPECT_EQ(load(moved.bytes), Status::kOperandsOverlap) << shift;
    EXPECT_TRUE(contains(log_lines(), "operation 0 (quantize_f32_s8_estimate): input 0"))
        << log_lines();
  }
}

TEST(OperandAlignment, FloatOperandsAreWordAlignedAtLoad) {
  // QUANTIZE reads its float input as words; DEQUANTIZE writes words.
  EXPECT_EQ(kernel_quantize_f32_s8_ref.signature.input_alignment.word, operand_bit(0));
  EXPECT_EQ(kernel_quantize_f32_s8_estimate.signature.input_alignment.word, operand_bit(0));
  EXPECT_EQ(kernel_dequantize_s8_f32_ref.signature.output_alignment.word, operand_bit(0));
  EXPECT_EQ(kernel_softmax_s8_ref.signature.input_alignment.word, operand_bit(1));
  TaoEditor e{compile_for(quantize_model(), Core::kCortexM0)};
  ASSERT_EQ(load(e.bytes), Status::kOk) << log_lines();
  const uint32_t op = 0;
  ASSERT_EQ(variant_of(e, op), "quantize_f32_s8_estimate");
  const uint32_t room = move_quantize_output_away(e, op);
  for (const uint32_t shift : {1u, 2u, 3u}) {
    TaoEditor moved = e;
    BufferRef in = operand(moved, op, 0);
    ASSERT_LE(uint64_t{in.offset} + in.bytes + shift, room);
    in.offset += shift;
    set_operand(moved, op, 0, in);
    moved.fix_checksum();
    EXPECT_EQ(load(moved.bytes), Status::kMisaligned) << shift << "\n" << log_lines();
    EXPECT_TRUE(contains(log_lines(), "(quantize_f32_s8_estimate): input 0 at arena offset"))
        << log_lines();
  }
}

// The masks come from the signature's element types, operands counted at
// the top level only.
TEST(OperandAlignment, ReadFromTheSignaturesElementTypes) {
  constexpr KernelSignature s(
      "a:s8[n,m], b:s16[x], c?:i32[2]{sum(a[i], b)} (constant) -> out:s8|s16[n], st:f32[k]; "
      "scratch:s32[4]; params=P{a,b}");
  static_assert(s.inputs == 3 && s.outputs == 2);
  static_assert(s.input_alignment.halfword == operand_bit(1));
  static_assert(s.input_alignment.word == operand_bit(2));
  static_assert(s.output_alignment.halfword == operand_bit(0));
  static_assert(s.output_alignment.word == operand_bit(1));
  static_assert(s.output_alignment.of(0) == 2 && s.output_alignment.of(1) == 4);
  static_assert(s.input_alignment.of(0) == 1);
  // int16 activations and state, whatever the operator.
  EXPECT_EQ(kernel_fully_connected_s16_ref.signature.input_alignment.halfword, operand_bit(0));
  EXPECT_EQ(kernel_fully_connected_s16_ref.signature.output_alignment.halfword, operand_bit(0));
  EXPECT_EQ(kernel_svdf_s8_state16_ref.signature.output_alignment.halfword, operand_bit(1));
  EXPECT_EQ(kernel_unidirectional_lstm_s8_ref.signature.output_alignment.halfword, operand_bit(2));
  EXPECT_EQ(kernel_requantize_int_ref.signature.input_alignment.word, operand_bit(0));
}

// Every declaration names operands the variant has, and in place only
// where there is one output to lie on.
TEST(OperandDeclarations, NameOperandsTheVariantHas) {
  for (uint32_t id = 0; id < kernel_count(); ++id) {
    const KernelDescriptor& d = *find_kernel(id);
    SCOPED_TRACE(d.name);
    EXPECT_EQ(d.in_place_inputs >> d.max_inputs, 0);
    // The signature lists every operand, in order: its types are where the
    // loader's alignment masks come from. A repeated input ("inputs:s8[...]
    // x num_inputs") is listed once, and only bytes may be: the loader
    // checks no alignment past the listed operands.
    EXPECT_EQ(d.signature.outputs, d.num_outputs);
    EXPECT_GE(d.signature.inputs, d.min_inputs);
    EXPECT_LE(d.signature.inputs, d.max_inputs);
    if (d.signature.inputs < d.max_inputs)
      EXPECT_EQ(d.signature.input_alignment.of(d.signature.inputs - 1u), 1u);
    if (d.in_place_inputs != 0) EXPECT_EQ(d.num_outputs, 1);
  }
}

}  // namespace
}  // namespace tinyaot::test
