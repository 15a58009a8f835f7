// Test firmware: every kernel variant this core's ISA class can use, swept
// over random cases against its family's reference kernel, on the core
// itself (tests/variant_sweep/variant_sweep.h). Built per core by
// targets/CMakeLists.txt, run under QEMU by run-variant-sweep.sh.
//
//   -append "[--seed N] [--cases N] [--variant NAME [--case I]]"
//
// Prints the seed, the on-core check of the requantization
// (requantize_check.h; skipped with --variant), one line per variant
// (cases run and passed) and one for its limit cases where it declares
// limits (limit_cases.h; skipped with --case), and each failing case with
// its shape and parameters; exits 0 when every case passed, 1 otherwise, kExitUsage for
// a bad command line.
#include <stdint.h>
#include <string.h>

#include "board.h"
#include "semihosting.h"
#include "tests/variant_sweep/limit_cases.h"
#include "tests/variant_sweep/requantize_check.h"
#include "tests/variant_sweep/softmax_reciprocal_check.h"
#include "tests/variant_sweep/variant_sweep.h"
#include "tinyaot/runtime.h"

using namespace tinyaot;

namespace {

char g_command_line[256];
sweep::Workspace g_workspace;  // static: no heap, no large stack frame

void print_line(const char* line) { board::print(line); }

struct Options {
  uint64_t seed = sweep::kDefaultSeed;
  uint32_t cases = sweep::kDefaultCases;
  const char* variant = nullptr;  // only this one
  int64_t single_case = -1;       // only this case
};

bool parse_options(Options* options) {
  if (!semihosting::command_line(g_command_line, sizeof(g_command_line))) return false;
  char* cursor = g_command_line;
  semihosting::next_token(&cursor);  // the kernel's path
  for (char* token = semihosting::next_token(&cursor); token != nullptr;
       token = semihosting::next_token(&cursor)) {
    char* value = semihosting::next_token(&cursor);
    uint64_t number = 0;
    if (strcmp(token, "--variant") == 0 && value != nullptr) {
      options->variant = value;
    } else if (!semihosting::parse_unsigned(value, &number)) {
      return false;
    } else if (strcmp(token, "--seed") == 0) {
      options->seed = number;
    } else if (strcmp(token, "--cases") == 0) {
      options->cases = static_cast<uint32_t>(number);
    } else if (strcmp(token, "--case") == 0) {
      options->single_case = static_cast<int64_t>(number);
    } else {
      return false;
    }
  }
  return true;
}

}  // namespace

int main() {
  Options options;
  if (!parse_options(&options)) {
    board::print("variant-sweep: usage: [--seed N] [--cases N] [--variant NAME [--case I]]");
    return board::kExitUsage;
  }
  const IsaClass isa = runtime_isa();
  sweep::Text header;
  header.text("variant-sweep: isa ").text(isa_name(isa)).field("seed", int64_t(options.seed));
  header.field("cases", options.cases);
  board::print(header.c_str());

  // The output step's arithmetic itself, as compiled for this core: the
  // sweeps below compare kernels with references that share it.
  bool requantize_ok = true;
  if (options.variant == nullptr) {
    const sweep::RequantizeTally tally =
        sweep::RequantizeCheck(print_line).run(options.seed, 20 * options.cases);
    sweep::Text line;
    line.text("requantize:").field("cases", tally.cases).field("failed", tally.failed);
    line.text(tally.failed == 0 ? " ok" : " FAILED");
    board::print(line.c_str());
    requantize_ok = tally.failed == 0;
  }

#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1)
  // softmax_s8_mve's reciprocal alone: a step off rarely reaches an output.
  if (options.variant == nullptr || strcmp(options.variant, kernel_softmax_s8_mve.name) == 0) {
    const sweep::SoftmaxReciprocalTally tally =
        sweep::check_softmax_reciprocal(options.seed, 20 * options.cases);
    sweep::Text line;
    line.text("softmax reciprocal:").field("cases", tally.cases).field("failed", tally.failed);
    if (tally.failed != 0) line.field("first_failing_sum", tally.first_failing_sum);
    line.text(tally.failed == 0 ? " ok" : " FAILED");
    board::print(line.c_str());
    requantize_ok = requantize_ok && tally.failed == 0;
  }
#endif

  const uint32_t first = options.single_case >= 0 ? uint32_t(options.single_case) : 0;
  const uint32_t count = options.single_case >= 0 ? 1 : options.cases;
  uint32_t variants = 0, failed_variants = 0;
  for (uint32_t id = 0; id < kernel_count(); ++id) {
    const KernelDescriptor& kernel = *find_kernel(id);
    if (sweep::lacks_sweep(kernel)) {
      sweep::Text line;
      line.text("FAIL ").text(kernel.name).text(": a variant of '").text(kernel.op);
      line.text("' with no family sweep (add its family to variant_sweep.h)");
      board::print(line.c_str());
      ++failed_variants;
      continue;
    }
    if (!sweep::is_swept(kernel, isa)) continue;
    if (options.variant != nullptr && strcmp(options.variant, kernel.name) != 0) continue;
    const sweep::VariantTally tally =
        sweep::sweep_variant(kernel, options.seed, first, count, g_workspace, print_line);
    sweep::Text line;
    line.text("variant ").text(kernel.name).text(" (").text(isa_name(kernel.isa)).text("):");
    line.field("cases", tally.cases).field("passed", tally.passed);
    line.field("runs", tally.runs).text(tally.failed == 0 ? " ok" : " FAILED");
    board::print(line.c_str());
    ++variants;
    bool failed = tally.failed != 0;
    sweep::Case unused;
    sweep::LimitCase limit{};
    if (options.single_case < 0 && sweep::limit_case(kernel, 0, &unused, &limit) != 0) {
      const sweep::VariantTally limits =
          sweep::sweep_limits(kernel, options.seed, g_workspace, print_line);
      sweep::Text limit_line;
      limit_line.text("limits ").text(kernel.name).text(":").field("cases", limits.cases);
      limit_line.field("passed", limits.passed).text(limits.failed == 0 ? " ok" : " FAILED");
      board::print(limit_line.c_str());
      failed = failed || limits.failed != 0;
    }
    if (failed) ++failed_variants;
  }
  sweep::Text summary;
  summary.text("variant-sweep:").field("variants", variants).field("failed", failed_variants);
  board::print(summary.c_str());
  if (variants == 0) board::print("variant-sweep: no variant matched");
  return requantize_ok && failed_variants == 0 && variants != 0 ? 0 : 1;
}
