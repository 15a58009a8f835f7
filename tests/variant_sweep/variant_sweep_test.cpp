// The variant sweeps on the host (under the suite's sanitizers): the same
// cases as the firmware runs on each core (same seed, same generators), on
// the portable paths of every variant, and a check that the sweep catches
// a variant that is wrong by one or writes past its scratch.
#include "tests/variant_sweep/variant_sweep.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "kernels/elementwise/elementwise.h"
#include "kernels/kernel_list.h"
#include "tests/variant_sweep/limit_cases.h"
#include "tinyaot/runtime.h"

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TINYAOT_SWEEP_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define TINYAOT_SWEEP_ASAN 1
#endif
#if defined(TINYAOT_SWEEP_ASAN)
#include <sanitizer/asan_interface.h>
#endif

namespace tinyaot {
namespace {

// The firmware's defaults: the same cases as on the cores.
constexpr uint64_t kSeed = sweep::kDefaultSeed;
constexpr uint32_t kCases = sweep::kDefaultCases;

std::vector<std::string> g_printed;
void collect(const char* line) { g_printed.push_back(line); }

std::string printed() {
  std::string all;
  for (const std::string& line : g_printed) all += line + "\n";
  return all;
}

#if defined(TINYAOT_SWEEP_ASAN)
// Reads past an operand become AddressSanitizer reports, as with operands
// allocated to their exact size.
void poison(void* begin, uint32_t bytes, bool fence) {
  if (fence) {
    ASAN_POISON_MEMORY_REGION(begin, bytes);
  } else {
    ASAN_UNPOISON_MEMORY_REGION(begin, bytes);
  }
}
#endif

sweep::Workspace g_workspace;

sweep::Workspace& workspace() {
#if defined(TINYAOT_SWEEP_ASAN)
  static const bool fenced = (g_workspace.fence = poison, true);
  (void)fenced;
#endif
  return g_workspace;
}

sweep::VariantTally sweep_quietly(const KernelDescriptor& kernel, uint32_t cases) {
  g_printed.clear();
  return sweep::sweep_variant(kernel, kSeed, 0, cases, workspace(), collect);
}

TEST(VariantSweep, EveryVariantMatchesItsReference) {
  uint32_t swept = 0;
  for (uint32_t id = 0; id < kernel_count(); ++id) {
    const KernelDescriptor& kernel = *find_kernel(id);
    EXPECT_FALSE(sweep::lacks_sweep(kernel)) << kernel.name << " has no family sweep";
    if (!sweep::is_swept(kernel, IsaClass::kMve)) continue;
    const sweep::VariantTally tally = sweep_quietly(kernel, kCases);
    EXPECT_EQ(tally.cases, kCases);
    EXPECT_EQ(tally.failed, 0u) << kernel.name << ":\n" << printed();
    const uint32_t modes = sweep::sweeps_onnx(kernel, sweep::family_of(kernel)) ? 3 : 2;
    EXPECT_EQ(tally.runs, modes * kCases) << kernel.name << ": every rounding mode it has";
    ++swept;
  }
  EXPECT_GE(swept, 6u);  // conv 1x1/DSP/MVE, depthwise 3x3, FC DSP/MVE
}

TEST(VariantSweep, SweptVariantsFollowTheIsaClass) {
  EXPECT_TRUE(sweep::is_swept(kernel_conv2d_s8_1x1, IsaClass::kScalar));
  EXPECT_TRUE(sweep::is_swept(kernel_conv2d_s8_im2col, IsaClass::kScalar));
  EXPECT_FALSE(sweep::is_swept(kernel_conv2d_s8_im2col_mve, IsaClass::kDsp));
  EXPECT_FALSE(sweep::is_swept(kernel_fully_connected_s8_mve, IsaClass::kDsp));
  EXPECT_TRUE(sweep::is_swept(kernel_fully_connected_s8_mve, IsaClass::kMve));
  EXPECT_FALSE(sweep::is_swept(kernel_conv2d_s8_ref, IsaClass::kMve));  // the reference itself
  EXPECT_FALSE(sweep::is_swept(kernel_softmax_s8_ref, IsaClass::kMve));
}

// A case replays alone: the same seed and index give the same shape.
TEST(VariantSweep, CasesAreReproducible) {
  sweep::Text first, again, other;
  sweep::check_case(kernel_conv2d_s8_im2col, kSeed, 7, workspace(), &first);
  sweep::check_case(kernel_conv2d_s8_im2col, kSeed, 8, workspace(), &other);
  sweep::check_case(kernel_conv2d_s8_im2col, kSeed, 7, workspace(), &again);
  EXPECT_STREQ(first.c_str(), again.c_str());
  EXPECT_STRNE(first.c_str(), other.c_str());
}

// Stand-ins for a variant: copies of the reference convolution's
// descriptor (so they take the reference's constants unchanged) that ask
// for a little scratch, with a run that wraps the real one.
const KernelDescriptor& wrapped = kernel_conv2d_s8_ref;

uint32_t stand_in_scratch(const void*) { return 24; }

KernelDescriptor stand_in(const char* name, KernelRunFn run) {
  KernelDescriptor copy = wrapped;
  copy.name = name;
  copy.run = run;
  copy.scratch_bytes = stand_in_scratch;
  return copy;
}

// One output byte off by one.
Status run_off_by_one(const KernelArgs& args) {
  const Status status = wrapped.run(args);
  auto* out = static_cast<int8_t*>(args.outputs[0].data);
  const uint32_t last = args.outputs[0].bytes - 1;
  out[last] = static_cast<int8_t>(out[last] == 127 ? 126 : out[last] + 1);
  return status;
}

// One byte written just past the scratch.
Status run_past_scratch(const KernelArgs& args) {
  const Status status = wrapped.run(args);
  static_cast<uint8_t*>(args.scratch.data)[args.scratch.bytes] = 0;
  return status;
}

TEST(VariantSweep, AStandInThatIsRightPasses) {
  const sweep::VariantTally tally = sweep_quietly(stand_in("reference_copy", wrapped.run), 50);
  EXPECT_EQ(tally.failed, 0u) << printed();
}

TEST(VariantSweep, CatchesAnOffByOneOutput) {
  const sweep::VariantTally tally = sweep_quietly(stand_in("off_by_one", run_off_by_one), 20);
  EXPECT_EQ(tally.failed, 20u);
  ASSERT_GE(g_printed.size(), 2u);
  EXPECT_NE(g_printed[0].find("FAIL off_by_one case 0 (replay: --seed 1 --variant off_by_one "
                              "--case 0): output differs from the reference"),
            std::string::npos)
      << printed();
  EXPECT_NE(g_printed[0].find("bytes_differing 1"), std::string::npos) << printed();
  EXPECT_NE(g_printed[1].find("input_depth"), std::string::npos) << printed();
}

TEST(VariantSweep, CatchesAWritePastScratch) {
  // The guard pattern is the check on a core: here without the fence,
  // which AddressSanitizer would report first.
  const sweep::FenceFn fence = workspace().fence;
  workspace().fence = nullptr;
  const sweep::VariantTally tally = sweep_quietly(stand_in("overrun", run_past_scratch), 5);
  workspace().fence = fence;
  EXPECT_EQ(tally.failed, 5u);
  EXPECT_NE(printed().find("wrote outside its scratch"), std::string::npos) << printed();
}

// Case placement: over a run of 16 cases every activation base residue
// mod 16 and every word residue for constants, and each choice of input
// written over (none, input 0, input 1) for a variant that declares both.
TEST(VariantSweep, CasesMeetEveryBaseAndEveryInPlaceInput) {
  const KernelDescriptor& add = kernel_add_s8_flat;
  ASSERT_EQ(add.in_place_inputs, kElementwiseInPlaceInputs);
  uint32_t inputs = 0, outputs = 0, second = 0, quants = 0, in_place[3] = {};
  for (uint32_t index = 0; index < 48; ++index) {
    sweep::Case c;
    sweep::Text detail;
    ASSERT_EQ(sweep::draw_case(add, kSeed, index, workspace(), &c, &detail), nullptr);
    inputs |= 1u << c.at.input;
    outputs |= 1u << c.at.output;
    second |= 1u << c.at.filter;  // ADD's second input is an activation too
    ++in_place[c.at.in_place + 1];
    sweep::Case conv;
    ASSERT_EQ(sweep::draw_case(kernel_conv2d_s8_im2col, kSeed, index, workspace(), &conv, &detail),
              nullptr);
    EXPECT_EQ(conv.at.filter % 4, 0u) << "weights are constants, on a word";
    EXPECT_EQ(conv.at.scratch % 4, 0u);
    EXPECT_EQ(conv.at.in_place, -1) << "convolutions declare no input in place";
    quants |= 1u << conv.at.quant;
  }
  EXPECT_EQ(inputs, 0xFFFFu);
  EXPECT_EQ(outputs, 0xFFFFu);
  EXPECT_EQ(second, 0xFFFFu);
  EXPECT_EQ(quants, 0x1111u);  // 0, 4, 8, 12
  EXPECT_GT(in_place[0], 0u);
  EXPECT_GT(in_place[1], 0u);
  // Input 1 in place needs it as large as the output (no broadcast).
  EXPECT_GT(in_place[2], 0u);
}

// Stand-ins for an ADD variant (the reference's descriptor, so they take
// its params and constants unchanged).
const KernelDescriptor& wrapped_add = kernel_add_s8_ref;

KernelDescriptor add_stand_in(const char* name, KernelRunFn run) {
  KernelDescriptor copy = wrapped_add;
  copy.name = name;
  copy.run = run;
  return copy;
}

// Declares both inputs safe in place but writes its whole output before
// reading them: right out of place, wrong over an input.
Status run_output_first(const KernelArgs& args) {
  std::vector<int8_t> result(args.outputs[0].bytes);
  const Operand out = {result.data(), args.outputs[0].bytes};
  KernelArgs copy = args;
  copy.outputs = &out;
  std::memset(args.outputs[0].data, 0, args.outputs[0].bytes);
  const Status status = wrapped_add.run(copy);
  std::memcpy(args.outputs[0].data, result.data(), result.size());
  return status;
}

TEST(VariantSweep, CatchesAVariantThatIsNotSafeInPlace) {
  const sweep::VariantTally tally =
      sweep_quietly(add_stand_in("output_first", run_output_first), 60);
  // Cases 1, 4, 7, ... put the output over input 0: about a third fail.
  EXPECT_GE(tally.failed, 15u) << printed();
  EXPECT_LT(tally.failed, 60u) << "out of place it is right";
  EXPECT_NE(printed().find("output_over_input 0"), std::string::npos) << printed();
}

// Reads its first input from the word its base lies in, as a kernel that
// assumes word-aligned activations would.
Status run_word_aligned_input(const KernelArgs& args) {
  Operand inputs[2] = {args.inputs[0], args.inputs[1]};
  const auto base = reinterpret_cast<uintptr_t>(inputs[0].data);
  std::vector<int8_t> shifted(inputs[0].bytes);
  std::memcpy(shifted.data(), reinterpret_cast<const void*>(base - base % 4), shifted.size());
  inputs[0].data = shifted.data();
  KernelArgs copy = args;
  copy.inputs = inputs;
  return wrapped_add.run(copy);
}

TEST(VariantSweep, CatchesAVariantThatAssumesAWordAlignedBase) {
  const sweep::FenceFn fence = workspace().fence;
  workspace().fence = nullptr;  // it reads below its operand on purpose
  const sweep::VariantTally tally =
      sweep_quietly(add_stand_in("word_aligned", run_word_aligned_input), 32);
  workspace().fence = fence;
  // Three bases in four are off a word; the cases whose first input lies
  // on one pass.
  EXPECT_GE(tally.failed, 16u) << printed();
  EXPECT_LT(tally.failed, 32u) << printed();
}

// The variants' declared limits: at and near them equal to the reference,
// one past them refused (limit_cases.h).
TEST(VariantSweep, LimitCasesHold) {
  uint32_t with_limits = 0;
  for (uint32_t id = 0; id < kernel_count(); ++id) {
    const KernelDescriptor& kernel = *find_kernel(id);
    sweep::Case unused;
    sweep::LimitCase limit{};
    const uint32_t count = sweep::limit_case(kernel, 0, &unused, &limit);
    if (count == 0) continue;
    g_printed.clear();
    const sweep::VariantTally tally = sweep::sweep_limits(kernel, kSeed, workspace(), collect);
    EXPECT_EQ(tally.cases, count) << kernel.name;
    EXPECT_EQ(tally.failed, 0u) << kernel.name << ":\n" << printed();
    ++with_limits;
  }
  EXPECT_EQ(with_limits, 3u);  // depthwise, softmax and batch-matmul MVE
}

// A softmax variant that takes rows past its declared 8191 values (the
// reference's validate in the MVE variant's descriptor) is caught.
TEST(VariantSweep, CatchesAVariantPastItsLimit) {
  KernelDescriptor lax = kernel_softmax_s8_mve;
  lax.validate = kernel_softmax_s8_ref.validate;
  g_printed.clear();
  const sweep::VariantTally tally = sweep::sweep_limits(lax, kSeed, workspace(), collect);
  EXPECT_EQ(tally.failed, 1u) << printed();
  EXPECT_NE(printed().find("a row of 8192"), std::string::npos) << printed();
  EXPECT_NE(printed().find("takes a case past its declared limit"), std::string::npos) << printed();
}

#if defined(TINYAOT_SWEEP_ASAN)
bool g_tails_fenced = true;

// The last byte before `p`'s 8-byte granule: AddressSanitizer cannot
// poison the start of a granule and not its end, so below an operand based
// inside one the fence begins there.
const uint8_t* below_granule(const uint8_t* p) {
  return p - reinterpret_cast<uintptr_t>(p) % 8 - 1;
}

Status run_checking_fences(const KernelArgs& args) {
  const auto* input = static_cast<const uint8_t*>(args.inputs[0].data);
  const auto* filter = static_cast<const uint8_t*>(args.inputs[1].data);
  const auto* output = static_cast<const uint8_t*>(args.outputs[0].data);
  const auto* scratch = static_cast<const uint8_t*>(args.scratch.data);
  g_tails_fenced = g_tails_fenced && __asan_address_is_poisoned(input + args.inputs[0].bytes) &&
                   __asan_address_is_poisoned(filter + args.inputs[1].bytes) &&
                   __asan_address_is_poisoned(output + args.outputs[0].bytes) &&
                   __asan_address_is_poisoned(below_granule(output)) &&
                   __asan_address_is_poisoned(scratch + args.scratch.bytes) &&
                   !__asan_address_is_poisoned(input + args.inputs[0].bytes - 1) &&
                   !__asan_address_is_poisoned(scratch + args.scratch.bytes - 1);
  return wrapped.run(args);
}

TEST(VariantSweep, OperandTailsArePoisonedDuringARun) {
  const sweep::VariantTally tally = sweep_quietly(stand_in("fenced", run_checking_fences), 20);
  EXPECT_EQ(tally.failed, 0u) << printed();
  EXPECT_TRUE(g_tails_fenced);
}
#endif

}  // namespace
}  // namespace tinyaot
