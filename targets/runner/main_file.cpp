// The runner firmware: one image per core runs any program.
//   -append "PROGRAM.tao [--input FILE]... [--output FILE]..."
//   -append "--batch LIST"  (one such run per line of LIST; every run is
//                            tried, the exit status is the first failure's)
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

// Reads the run's program into the big region, loads it and runs its vectors.
uint32_t run_file(const runner::CommandLine& line) {
  const board::Region big = board::big_region();
  const board::Region ram = board::ram_free_region();
  const bool shared = big.begin == ram.begin;

  uint8_t* const program_data = big.begin;  // 16-byte aligned by sections.ld
  uint32_t program_bytes = 0;
  const uint32_t code = runner::read_file(line.program, program_data,
                                          bytes_between(big.begin, big.end), &program_bytes);
  if (code != 0) {
    if (code == board::kExitNoFit) board::print("tinyaot-runner: use the embedded form");
    return code;
  }
  board::Line size_line;
  board::print(size_line.text("tinyaot-program-bytes: ").dec(program_bytes).c_str());

  Program program;
  const Status status = load_program(program_data, program_bytes, &program);
  if (status != Status::kOk) return runner::report_load_failure(status);

  uint8_t* const arena = shared ? align16(program_data + program_bytes) : ram.begin;
  return runner::run_vectors(program, arena, bytes_between(arena, ram.end), line);
}

// Every run of the list, each announced on a line of its own.
uint32_t run_batch(const char* list_path) {
  runner::BatchList list;
  uint32_t first_failure = runner::open_batch(list_path, &list);
  if (first_failure != 0) return first_failure;
  uint32_t runs = 0, failed = 0;
  runner::CommandLine line;
  runner::BatchLine next;
  while ((next = runner::next_batch_line(&list, &line)) == runner::BatchLine::kRun) {
    board::Line run_line;
    board::print(
        run_line.text("tinyaot-batch-run: ").dec(runs++).text(" ").text(line.program).c_str());
    const uint32_t code = run_file(line);
    if (code != 0 && failed++ == 0) first_failure = code;
  }
  board::Line summary;
  board::print(summary.text("tinyaot-batch: ")
                   .dec(runs)
                   .text(" runs, ")
                   .dec(failed)
                   .text(" failed")
                   .c_str());
  if (next == runner::BatchLine::kMalformed) return board::kExitUsage;
  return first_failure;
}

}  // namespace

int main() {
  runner::install_log_hook();
  runner::CommandLine line;
  if (!runner::parse_command_line(&line)) return board::kExitUsage;
  if (line.batch != nullptr) return static_cast<int>(run_batch(line.batch));
  if (line.program == nullptr) {
    board::print("tinyaot-runner: usage: PROGRAM.tao [--input FILE]... [--output FILE]...");
    return board::kExitUsage;
  }
  return static_cast<int>(run_file(line));
}
