// Shared by the fuzz targets: exact-size aligned buffers (so the sanitizer
// sees a read one byte past the end) and a bounded load-and-run.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>

#include "../support/exact_buffer.h"
#include "program_fixups.h"
#include "tinyaot/runtime.h"

namespace tinyaot::fuzz {

// Arenas above this are not allocated: the fuzzer hunts memory errors, not
// the host's allocator limits.
constexpr uint32_t kMaxArenaBytes = 16u << 20;

using tinyaot::ExactBuffer;

// Runs a loaded program on an exact-size arena filled with the fuzzers'
// pattern (program_fixups.h).
inline Status run_bounded(const Program& program) {
  const uint32_t arena_bytes = program.header->arena_bytes;
  if (arena_bytes > kMaxArenaBytes) return Status::kOk;
  ExactBuffer arena(arena_bytes);
  for (uint32_t i = 0; i < arena_bytes; ++i) arena.data()[i] = arena_fill_byte(i);
  // State too: a fuzzed state table must be refused at load or stay in
  // the arena.
  const Status reset = reset_state(program, arena.data(), arena_bytes);
  if (reset != Status::kOk) return reset;
  return run_program(program, arena.data(), arena_bytes);
}

[[noreturn]] inline void die(const char* what, const char* detail) {
  std::fprintf(stderr, "tinyaot fuzz: %s: %s\n", what, detail);
  std::abort();
}

}  // namespace tinyaot::fuzz
