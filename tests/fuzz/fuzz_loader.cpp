// libFuzzer target: bytes as a .tao program through the loader and, when it
// loads, the executor. The checksum is recomputed first (when the bytes hold
// a header), otherwise nearly every mutation would stop at the CRC and the
// structural checks behind it would never be explored. Likewise each kernel
// table entry naming a variant this build has gets that variant's ABI
// fingerprint: a mutation never guesses a 32-bit hash, and a committed
// regression input must still reach the check it was saved for after a
// kernel's signature changes (tests/bad_input_test.cpp covers refusals by
// fingerprint).
#include <cstdint>
#include <cstring>

#include "fuzz_target_support.h"
#include "tinyaot/kernel_abi.h"
#include "tinyaot/program_format.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace tinyaot;
  if (size > 0xffffffffu) return 0;
  fuzz::ExactBuffer copy(size);
  if (size > 0) std::memcpy(copy.data(), data, size);
  const auto bytes = static_cast<uint32_t>(size);
  if (bytes >= sizeof(ProgramHeader)) {
    ProgramHeader h;
    std::memcpy(&h, copy.data(), sizeof(h));
    const uint64_t table_end =
        uint64_t{h.kernels_offset} + uint64_t{h.num_kernels} * sizeof(AbiEntry);
    for (uint32_t i = 0; table_end <= bytes && i < h.num_kernels; ++i) {
      AbiEntry e;
      uint8_t* at = copy.data() + h.kernels_offset + uint64_t{i} * sizeof(AbiEntry);
      std::memcpy(&e, at, sizeof(e));
      const KernelDescriptor* d = find_kernel(e.kernel_id);
      if (d == nullptr) continue;
      e.fingerprint = abi_fingerprint(*d);
      std::memcpy(at, &e, sizeof(e));
    }
    uint32_t declared = 0;
    std::memcpy(&declared, copy.data() + offsetof(ProgramHeader, file_bytes), sizeof(declared));
    const uint32_t covered =
        declared >= sizeof(ProgramHeader) && declared <= bytes ? declared : bytes;
    const uint32_t crc = program_checksum(copy.data(), covered);
    std::memcpy(copy.data() + offsetof(ProgramHeader, checksum), &crc, sizeof(crc));
  }
  Program program;
  if (load_program(copy.data(), bytes, &program) != Status::kOk) return 0;
  // A loaded program may still fail at run time (a kernel refusing its
  // data); only memory errors and crashes are bugs here.
  (void)fuzz::run_bounded(program);
  return 0;
}
