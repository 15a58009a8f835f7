// libFuzzer target: bytes as a .tao program through the loader and, when it
// loads, the executor. The program's kernel table and checksum are fixed up
// first (program_fixups.h), so that mutations reach the structural checks
// behind them and a committed regression input still reaches the check it
// was saved for after a kernel's version or signature changes.
#include <cstdint>
#include <cstring>

#include "fuzz_target_support.h"
#include "program_fixups.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace tinyaot;
  if (size > 0xffffffffu) return 0;
  fuzz::ExactBuffer copy(size);
  if (size > 0) std::memcpy(copy.data(), data, size);
  const auto bytes = static_cast<uint32_t>(size);
  fuzz::fix_abi_and_checksum(copy.data(), bytes);
  Program program;
  if (load_program(copy.data(), bytes, &program) != Status::kOk) return 0;
  // A loaded program may still fail at run time (a kernel refusing its
  // data); only memory errors and crashes are bugs here.
  (void)fuzz::run_bounded(program);
  return 0;
}
