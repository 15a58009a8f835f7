// What a mutated or committed program is given before the loader sees it,
// by the loader fuzzer and by the tests that replay the committed loader
// regressions: each kernel table entry naming a variant this build has
// gets that variant's version and ABI fingerprint, then the checksum is
// recomputed. Otherwise nearly every mutation would stop at the CRC, a
// mutation would never guess a 32-bit hash, and a regression saved for a
// check behind the ABI table would stop at it after a variant's version
// or signature changes (tests/bad_input_test.cpp covers those refusals).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "tinyaot/kernel_abi.h"
#include "tinyaot/program_format.h"

namespace tinyaot::fuzz {

inline void fix_abi_and_checksum(uint8_t* data, uint32_t bytes) {
  if (bytes < sizeof(ProgramHeader)) return;
  ProgramHeader h;
  std::memcpy(&h, data, sizeof(h));
  const uint64_t table_end =
      uint64_t{h.kernels_offset} + uint64_t{h.num_kernels} * sizeof(AbiEntry);
  for (uint32_t i = 0; table_end <= bytes && i < h.num_kernels; ++i) {
    AbiEntry e;
    uint8_t* at = data + h.kernels_offset + uint64_t{i} * sizeof(AbiEntry);
    std::memcpy(&e, at, sizeof(e));
    const KernelDescriptor* d = find_kernel(e.kernel_id);
    if (d == nullptr) continue;
    e.version = d->version;
    e.fingerprint = abi_fingerprint(*d);
    std::memcpy(at, &e, sizeof(e));
  }
  const uint32_t declared = h.file_bytes;
  const uint32_t covered =
      declared >= sizeof(ProgramHeader) && declared <= bytes ? declared : bytes;
  const uint32_t crc = program_checksum(data, covered);
  std::memcpy(data + offsetof(ProgramHeader, checksum), &crc, sizeof(crc));
}

}  // namespace tinyaot::fuzz
