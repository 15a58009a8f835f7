// The runner firmware: one image per core runs any program.
//   -append "PROGRAM.tao [--input FILE]... [--output FILE]..."
// The program is read into the board's big region; the arena takes the
// free RAM (after the program where the big region is RAM, on microbit).
#include <stdint.h>

#include "board.h"
#include "session.h"
#include "text.h"

using namespace tinyaot;

namespace {

uint8_t* align16(uint8_t* p) {
  return reinterpret_cast<uint8_t*>((reinterpret_cast<uintptr_t>(p) + 15) & ~uintptr_t{15});
}

uint32_t bytes_between(const uint8_t* begin, const uint8_t* end) {
  return end > begin ? static_cast<uint32_t>(end - begin) : 0;
}

}  // namespace

int main() {
  runner::install_log_hook();
  runner::CommandLine line;
  if (!runner::parse_command_line(&line)) return board::kExitUsage;
  if (line.program == nullptr) {
    board::print("tinyaot-runner: usage: PROGRAM.tao [--input FILE]... [--output FILE]...");
    return board::kExitUsage;
  }
  const board::Region big = board::big_region();
  const board::Region ram = board::ram_free_region();
  const bool shared = big.begin == ram.begin;

  uint8_t* const program_data = big.begin;  // 16-byte aligned by sections.ld
  uint32_t program_bytes = 0;
  const uint32_t code = runner::read_file(line.program, program_data,
                                          bytes_between(big.begin, big.end), &program_bytes);
  if (code != 0) {
    if (code == board::kExitNoFit) board::print("tinyaot-runner: use the embedded form");
    return static_cast<int>(code);
  }
  board::Line size_line;
  board::print(size_line.text("tinyaot-program-bytes: ").dec(program_bytes).c_str());

  Program program;
  const Status status = load_program(program_data, program_bytes, &program);
  if (status != Status::kOk) return static_cast<int>(runner::report_load_failure(status));

  uint8_t* const arena = shared ? align16(program_data + program_bytes) : ram.begin;
  return static_cast<int>(runner::run_vectors(program, arena, bytes_between(arena, ram.end), line));
}
