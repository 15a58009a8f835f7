// The embedded firmware: the program is linked into read-only memory (see
// targets/cmake/tinyaot_embed.cmake) and used in place, the way a product
// ships it. Inputs and outputs still travel by semihosting:
//   -append "[--stream] [--input FILE]... [--output FILE]..."
#include <stdint.h>

#include "board.h"
#include "session.h"
#include "text.h"

extern "C" {
extern const uint8_t tinyaot_program[];
extern const uint32_t tinyaot_program_bytes;
}

using namespace tinyaot;

int main() {
  runner::install_log_hook();
  runner::CommandLine line;
  if (!runner::parse_command_line(&line)) return board::kExitUsage;
  if (line.program != nullptr || line.batch != nullptr) {
    board::print(
        "tinyaot-runner: this image embeds its program; give only --stream, --input and --output");
    return board::kExitUsage;
  }
  board::Line size_line;
  board::print(size_line.text("tinyaot-program-bytes: ").dec(tinyaot_program_bytes).c_str());
  Program program;
  const Status status = load_program(tinyaot_program, tinyaot_program_bytes, &program);
  if (status != Status::kOk) return static_cast<int>(runner::report_load_failure(status));
  const board::Region ram = board::ram_free_region();
  return static_cast<int>(
      runner::run_vectors(program, ram.begin, static_cast<uint32_t>(ram.end - ram.begin), line));
}
