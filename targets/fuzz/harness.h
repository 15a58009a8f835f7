// The fuzzing firmware's memory and its guarded runs: where the sandbox's
// block, the program copy and the arena live, and a sandboxed call on an
// arena between two guard zones whose bytes are checked afterwards (so a
// write the MPU cannot see, v7-M's granularity, is still caught).
#pragma once

#include <stdint.h>

#include "sandbox.h"
#include "tinyaot/runtime.h"

namespace tinyaot::fuzz {

constexpr uint32_t kGuardBytes = 4096;

// What privileged code and the sandboxed functions share: it lives in the
// sandbox's own block, the only memory besides the arena it may write.
struct Shared {
  const uint8_t* program_data;
  uint32_t program_bytes;
  uint8_t* arena;
  Program program;
  uint32_t operation;  // the operation running when a run stopped
  char log[256];       // the runtime's last log line
};

struct Layout {
  Shared* shared;
  uint8_t* program;  // the program copy, read-only to the sandbox
  uint32_t program_capacity;
  uint8_t* arena_end;  // the arena ends here, a guard zone follows
  uint32_t arena_capacity;
  uint8_t* free;  // the rest of the big region, for the seeds
  uint8_t* free_end;
};

// Places everything in this board's free RAM and big region and sets up
// the sandbox (budget: SysTick periods per call). Prints why and returns a
// board exit code on failure.
uint32_t plan_layout(uint32_t budget_periods, Layout* layout);

struct GuardedRun {
  SandboxExit exit;
  uint32_t result;    // on kReturned
  FaultReport fault;  // on kFault
  bool breached;      // a guard zone byte changed
  int64_t breach_at;  // the first one, from the arena's start
};

// The sandboxed steps (argument: the layout's Shared record). Loading
// fills shared->program; running takes its operations one at a time
// (shared->operation says which ran last), each as run_program would run
// it within the whole program, so a fault or a timeout names its
// operation. Both return a Status.
uint32_t sandboxed_load(void* shared);
uint32_t sandboxed_run(void* shared);

// A runtime log hook for sandboxed code: the line goes to the Shared
// record's log (the console is privileged).
void capture_log(const char* message);

// Calls function(layout.shared) in the sandbox with an arena of
// `arena_bytes` (at most arena_capacity) filled with the fuzzers' pattern
// (shared->arena points at it) and `read_only` readable.
GuardedRun run_guarded(const Layout& layout, SandboxFunction function, uint32_t arena_bytes,
                       Span read_only);

}  // namespace tinyaot::fuzz
