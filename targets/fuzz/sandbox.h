// Runs a function unprivileged, on its own stack, under the MPU and a time
// budget, and comes back whatever it does: returns, faults, or runs too
// long. What it may touch: the firmware's code and read-only data, its
// static data read-only (the runtime reads its log hook there), its own
// block (stack and the data it shares with the caller) read-write, and the
// spans given per call; any other access faults at the instruction that
// makes it (within the MPU's granularity, mpu.h). For v7-M and v8-M
// mainline cores (sandbox_switch.S); SysTick is the budget timer, so run
// QEMU with -icount shift=0 for a budget in instructions.
#pragma once

#include <stdint.h>

#include "mpu.h"

namespace tinyaot::fuzz {

enum class SandboxExit : uint32_t { kReturned = 1, kFault = 2, kTimeout = 3 };

// What the exception that ended a faulting call reported.
struct FaultReport {
  uint32_t exception;  // IPSR: 3 HardFault, 4 MemManage, 5 BusFault, 6 UsageFault, ...
  bool frame_read;     // pc and lr come from the stacked frame (not a stacking fault)
  uint32_t pc;
  uint32_t lr;
  // The faulting instruction is a UDF, the trap compilers insert
  // (__builtin_trap; -fsanitize-undefined-trap-on-error: undefined behaviour).
  bool trap;
  uint32_t cfsr;
  uint32_t hfsr;
  uint32_t mmfar;
  uint32_t bfar;
};

// Per call: a span the function may read and one it may read and write
// (either may be empty, {0, 0}).
struct SandboxSpans {
  Span read_only;
  Span read_write;
};

using SandboxFunction = uint32_t (*)(void* argument);

// Installs the vector table, stacks floating-point state eagerly (a left
// call never restores it) and grants the fixed regions. `own_block` holds
// the sandbox's stack (growing down from `stack_top`) and whatever the
// caller shares with it. `budget_periods`: SysTick periods of 2^18 core
// clocks per call. Returns false if the core has too few MPU regions.
bool sandbox_init(Span own_block, uintptr_t stack_top, uint32_t budget_periods);

// Calls function(argument) in the sandbox. On kReturned, *result is what it
// returned; on kFault, *fault says what happened.
SandboxExit sandbox_call(SandboxFunction function, void* argument, const SandboxSpans& spans,
                         uint32_t* result, FaultReport* fault);

// The spans the MPU granted at the last call (wider than asked on v7-M).
SandboxSpans sandbox_granted();

}  // namespace tinyaot::fuzz
