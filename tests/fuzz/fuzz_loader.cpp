// libFuzzer target: bytes as a .tao program through the loader and, when it
// loads, the executor, after the fix-ups of the kernel table (versions and
// ABI fingerprints) and the checksum that let mutations reach the checks
// behind them (program_fixups.h, shared with the on-core fuzzing firmware in
// targets/fuzz/ and the tests that replay the committed regressions).
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
  fuzz::fix_up_program(copy.data(), bytes);
  Program program;
  if (load_program(copy.data(), bytes, &program) != Status::kOk) return 0;
  // A loaded program may still fail at run time (a kernel refusing its
  // data); only memory errors and crashes are bugs here.
  (void)fuzz::run_bounded(program);
  return 0;
}
