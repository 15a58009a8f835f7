// Mutations of .tao programs for the on-core fuzzer: deterministic from
// (seed, program index), so any program of a run can be made again alone.
// Aimed by the program's own section table (the seed's, before mutation):
// half the programs take all their mutations in one operation (its
// parameters, operand references, record and kernel table entry), so that
// several meet in one kernel call; the others anywhere, most on the
// parameters, operand references and operation records, where shapes,
// strides and offsets live. A kernel table entry can be switched to
// another variant of the same operator, so every variant meets parameters
// planned for its siblings. Size never changes (truncation is the host
// fuzzer's and bad_input_test's). Freestanding.
#pragma once

#include <stdint.h>

namespace tinyaot::fuzz {

class Random {
 public:
  Random(uint64_t seed, uint64_t index);
  uint64_t next();
  uint32_t below(uint32_t bound);  // uniform in [0, bound), bound > 0
  bool one_in(uint32_t n) { return below(n) == 0; }

 private:
  uint64_t state_;
};

// One applied mutation, for the report of a failing program.
struct Mutation {
  const char* what;  // e.g. "set word", "switch variant"
  const char* area;  // e.g. "params"
  uint32_t offset;   // in the program
  uint32_t value;    // the value written (or the variant's kernel id)
};

constexpr uint32_t kMaxMutations = 8;

struct MutationTrace {
  Mutation applied[kMaxMutations];
  uint32_t count = 0;
};

// Applies 1 to kMaxMutations mutations (fewer more often) to the program in
// place. The caller fixes checksum and fingerprints afterwards
// (tests/fuzz/program_fixups.h).
void mutate_program(uint8_t* program, uint32_t bytes, Random& random, MutationTrace* trace);

}  // namespace tinyaot::fuzz
