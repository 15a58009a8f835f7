#include "self_test.h"

#include "board.h"
#include "text.h"

namespace tinyaot::fuzz {
namespace {

// A multiple of 16 (as arenas are) but not of 32: on v8-M the MPU grants
// from 16 bytes below the arena, which only the guard zone can watch.
constexpr uint32_t kProbeArenaBytes = 4096 + 16;
constexpr uint32_t kReturnValue = 42;

const Layout* g_probe_layout;      // read by the probes (statics are readable)
volatile uint32_t g_probe_target;  // a firmware variable the probes must not write
volatile uint32_t g_probe_depth_limit =
    0xffffffffu;  // never reached: keeps recursion finite to GCC

uint32_t returns(void*) { return kReturnValue; }

uint32_t writes_past_the_end(void* argument) {
  volatile uint8_t* arena = static_cast<Shared*>(argument)->arena;
  arena[kProbeArenaBytes] = 1;
  return 0;
}

uint32_t writes_before_the_start(void* argument) {
  volatile uint8_t* arena = static_cast<Shared*>(argument)->arena;
  arena[-1] = 1;
  return 0;
}

uint32_t reads_the_corpus(void*) {
  return *reinterpret_cast<volatile const uint32_t*>(g_probe_layout->free);
}

uint32_t writes_its_program(void*) {
  *reinterpret_cast<volatile uint8_t*>(g_probe_layout->program) = 1;
  return 0;
}

uint32_t writes_firmware_statics(void*) {
  g_probe_target = 1;
  return 0;
}

uint32_t traps(void*) { __builtin_trap(); }

uint32_t runs_forever(void*) {
  for (volatile uint32_t spin = 0;; spin = spin + 1) {
  }
}

// Each frame keeps a live buffer so the recursion really consumes stack.
[[gnu::noinline]] uint32_t recurse(uint32_t depth) {
  volatile uint8_t frame[256];
  if (depth == g_probe_depth_limit) return 0;
  frame[depth % sizeof(frame)] = static_cast<uint8_t>(depth);
  return frame[0] + recurse(depth + 1) + frame[depth % sizeof(frame)];
}

uint32_t overflows_its_stack(void*) { return recurse(0); }

enum class Expect { kReturn, kFault, kFaultOrBreach, kTrap, kTimeout };

struct Probe {
  const char* name;
  SandboxFunction function;
  Expect expect;
};

constexpr Probe kProbes[] = {
    {"returns", returns, Expect::kReturn},
    {"writes one byte past the arena", writes_past_the_end, Expect::kFault},
    {"writes one byte before the arena", writes_before_the_start, Expect::kFaultOrBreach},
    {"reads memory it was not given", reads_the_corpus, Expect::kFault},
    {"writes its read-only program", writes_its_program, Expect::kFault},
    {"writes the firmware's variables", writes_firmware_statics, Expect::kFault},
    {"overflows its stack", overflows_its_stack, Expect::kFault},
    {"traps (as undefined behaviour does under the sanitizer)", traps, Expect::kTrap},
    {"runs forever", runs_forever, Expect::kTimeout},
    {"returns after all that", returns, Expect::kReturn},
};

bool as_expected(const GuardedRun& run, Expect expect) {
  const bool fault = run.exit == SandboxExit::kFault;
  switch (expect) {
    case Expect::kReturn:
      return run.exit == SandboxExit::kReturned && run.result == kReturnValue && !run.breached;
    case Expect::kFault:
      return fault && !run.fault.trap && !run.breached;
    case Expect::kTrap:
      return fault && run.fault.trap;
    case Expect::kFaultOrBreach:
      return fault || (run.exit == SandboxExit::kReturned && run.breached);
    case Expect::kTimeout:
      return run.exit == SandboxExit::kTimeout;
  }
  return false;
}

const char* exit_name(const GuardedRun& run) {
  if (run.breached) return "guard zone written";
  if (run.exit == SandboxExit::kFault && run.fault.trap) return "trap";
  switch (run.exit) {
    case SandboxExit::kReturned:
      return "returned";
    case SandboxExit::kFault:
      return "fault";
    case SandboxExit::kTimeout:
      return "timeout";
  }
  return "?";
}

}  // namespace

uint32_t run_self_test(const Layout& layout) {
  g_probe_layout = &layout;
  const Span program{reinterpret_cast<uintptr_t>(layout.program),
                     reinterpret_cast<uintptr_t>(layout.program) + 64};
  uint32_t failed = 0;
  for (const Probe& probe : kProbes) {
    const GuardedRun run = run_guarded(layout, probe.function, kProbeArenaBytes, program);
    const bool ok = as_expected(run, probe.expect) && g_probe_target == 0;
    failed += ok ? 0 : 1;
    board::Line line;
    line.text("tinyaot-fuzz-self-test: ").text(probe.name).text(": ").text(exit_name(run));
    if (run.exit == SandboxExit::kFault) line.text(" cfsr=").hex(run.fault.cfsr);
    board::print(line.text(ok ? " (as expected)" : " (NOT CAUGHT AS EXPECTED)").c_str());
  }
  return failed == 0 ? 0 : 1;
}

}  // namespace tinyaot::fuzz
