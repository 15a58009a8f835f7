#include "harness.h"

#include <string.h>

#include "board.h"
#include "program_fixups.h"

namespace tinyaot::fuzz {
namespace {

// The sandbox's own block: its stack, and the Shared record at the top.
constexpr uint32_t kOwnBlockBytes = 32 * 1024;
// The arena ends at a multiple of this, so the v7-M MPU grants it exactly
// up to its end; it holds at most this much.
constexpr uint32_t kArenaWindow = 256 * 1024;
// The program copy starts this far into the big region (its guard below
// stays inside the region), and the seeds the same distance after it.
constexpr uint32_t kProgramWindow = 1024 * 1024;

Shared* g_shared;  // for capture_log

uintptr_t align_up(uintptr_t value, uintptr_t alignment) {
  return (value + alignment - 1) & ~(alignment - 1);
}
uintptr_t align_down(uintptr_t value, uintptr_t alignment) { return value & ~(alignment - 1); }
uintptr_t address(const void* p) { return reinterpret_cast<uintptr_t>(p); }

uint8_t guard_byte(uint32_t index) { return static_cast<uint8_t>(0xa5u ^ (index * 29u)); }

void fill_guard(uint8_t* begin) {
  for (uint32_t i = 0; i < kGuardBytes; ++i) begin[i] = guard_byte(i);
}

// Offset of the first changed byte of a guard zone, or kGuardBytes.
uint32_t first_breach(const uint8_t* begin) {
  for (uint32_t i = 0; i < kGuardBytes; ++i) {
    if (begin[i] != guard_byte(i)) return i;
  }
  return kGuardBytes;
}

}  // namespace

uint32_t plan_layout(uint32_t budget_periods, Layout* layout) {
  const board::Region ram = board::ram_free_region();
  const board::Region big = board::big_region();
  const uintptr_t own = align_up(address(ram.begin), kOwnBlockBytes);
  const uintptr_t arena_end = align_down(address(ram.end) - kGuardBytes, kArenaWindow);
  const uintptr_t arena_floor = own + kOwnBlockBytes + kGuardBytes;
  const uintptr_t program = align_up(address(big.begin), kProgramWindow) + kProgramWindow;
  if (big.begin == ram.begin || arena_end <= arena_floor ||
      program + 2 * kProgramWindow > address(big.end)) {
    board::print("tinyaot-fuzz: this board's memory does not fit the fuzzer's layout");
    return board::kExitNoFit;
  }
  const uintptr_t shared = align_down(own + kOwnBlockBytes - sizeof(Shared), 8);
  layout->shared = reinterpret_cast<Shared*>(shared);
  g_shared = layout->shared;
  layout->program = reinterpret_cast<uint8_t*>(program);
  layout->program_capacity = kProgramWindow - kGuardBytes;
  layout->arena_end = reinterpret_cast<uint8_t*>(arena_end);
  const uintptr_t room = arena_end - arena_floor;
  layout->arena_capacity = static_cast<uint32_t>(room < kArenaWindow ? room : kArenaWindow);
  layout->free = reinterpret_cast<uint8_t*>(program + kProgramWindow);
  layout->free_end = big.end;
  if (!sandbox_init({own, own + kOwnBlockBytes}, shared, budget_periods)) {
    board::print("tinyaot-fuzz: the core has too few MPU regions for the sandbox");
    return board::kExitUsage;
  }
  return 0;
}

void capture_log(const char* message) {
  strncpy(g_shared->log, message, sizeof(g_shared->log) - 1);
  g_shared->log[sizeof(g_shared->log) - 1] = '\0';
}

uint32_t sandboxed_load(void* shared) {
  Shared& s = *static_cast<Shared*>(shared);
  return static_cast<uint32_t>(load_program(s.program_data, s.program_bytes, &s.program));
}

uint32_t sandboxed_run(void* shared) {
  Shared& s = *static_cast<Shared*>(shared);
  const Program& whole = s.program;
  ProgramHeader one = *whole.header;
  one.num_ops = 1;
  Program single = whole;
  single.header = &one;
  // A state table the loader accepted is written inside the sandboxed arena.
  if (const Status reset = reset_state(whole, s.arena, whole.header->arena_bytes);
      reset != Status::kOk)
    return static_cast<uint32_t>(reset);
  for (s.operation = 0; s.operation < whole.header->num_ops; ++s.operation) {
    single.ops = whole.ops + s.operation;
    const Status status = run_program(single, s.arena, whole.header->arena_bytes);
    if (status != Status::kOk) return static_cast<uint32_t>(status);
  }
  return static_cast<uint32_t>(Status::kOk);
}

GuardedRun run_guarded(const Layout& layout, SandboxFunction function, uint32_t arena_bytes,
                       Span read_only) {
  uint8_t* const arena = layout.arena_end - arena_bytes;
  for (uint32_t i = 0; i < arena_bytes; ++i) arena[i] = arena_fill_byte(i);
  fill_guard(arena - kGuardBytes);
  fill_guard(layout.arena_end);
  layout.shared->arena = arena;
  GuardedRun run{};
  run.exit = sandbox_call(function, layout.shared,
                          {read_only, {address(arena), address(layout.arena_end)}}, &run.result,
                          &run.fault);
  const uint32_t below = first_breach(arena - kGuardBytes);
  const uint32_t above = first_breach(layout.arena_end);
  run.breached = below != kGuardBytes || above != kGuardBytes;
  if (below != kGuardBytes) {
    run.breach_at = static_cast<int64_t>(below) - kGuardBytes;
  } else if (above != kGuardBytes) {
    run.breach_at = static_cast<int64_t>(arena_bytes) + above;
  }
  return run;
}

}  // namespace tinyaot::fuzz
