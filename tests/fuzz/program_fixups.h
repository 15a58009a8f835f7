// What every loader fuzzer, and every test replaying the committed loader
// regressions, does to candidate bytes before loading them: shared by the
// host libFuzzer target (fuzz_loader.cpp), the on-core fuzzing firmware
// (targets/fuzz/) and the tests, so all explore the same checks.
// Freestanding: C headers only, no allocation.
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "tinyaot/kernel_abi.h"
#include "tinyaot/program_format.h"

namespace tinyaot::fuzz {

// Rewrites what a mutation never guesses, in place. Each kernel table entry
// naming a variant this build has gets that variant's version and ABI
// fingerprint: a mutation never guesses a 32-bit hash, and a committed
// regression input must still reach the check it was saved for after a
// variant's version or signature changes (tests/bad_input_test.cpp covers
// those refusals). Then the checksum is recomputed (when the bytes hold a
// header), otherwise nearly every mutation would stop at the CRC and the
// structural checks behind it would never be explored. Running it twice
// changes nothing, so fixed-up bytes saved as a regression replay as run.
inline void fix_up_program(uint8_t* bytes, uint32_t size) {
  if (size < sizeof(ProgramHeader)) return;
  ProgramHeader h;
  memcpy(&h, bytes, sizeof(h));
  const uint64_t table_end =
      uint64_t{h.kernels_offset} + uint64_t{h.num_kernels} * sizeof(AbiEntry);
  for (uint32_t i = 0; table_end <= size && i < h.num_kernels; ++i) {
    AbiEntry e;
    uint8_t* at = bytes + h.kernels_offset + uint64_t{i} * sizeof(AbiEntry);
    memcpy(&e, at, sizeof(e));
    const KernelDescriptor* d = find_kernel(e.kernel_id);
    if (d == nullptr) continue;
    e.version = d->version;
    e.fingerprint = abi_fingerprint(*d);
    memcpy(at, &e, sizeof(e));
  }
  // Read again: a mutated table may overlap the header.
  uint32_t declared = 0;
  memcpy(&declared, bytes + offsetof(ProgramHeader, file_bytes), sizeof(declared));
  const uint32_t covered = declared >= sizeof(ProgramHeader) && declared <= size ? declared : size;
  const uint32_t crc = program_checksum(bytes, covered);
  memcpy(bytes + offsetof(ProgramHeader, checksum), &crc, sizeof(crc));
}

// The arena's contents before a fuzzed run. Kernels must cope with any
// input values, so the pattern only needs to be deterministic.
inline uint8_t arena_fill_byte(uint32_t index) { return static_cast<uint8_t>(index * 37u + 11u); }

}  // namespace tinyaot::fuzz
