// What both firmwares (program read from a file, program linked in) share:
// the -append command line, file transfers, and running the program on
// each input vector between the instruction-count markers.
#pragma once

#include <stdint.h>

#include "tinyaot/runtime.h"

namespace tinyaot::runner {

constexpr uint32_t kMaxFiles = 64;

// -append "[PROGRAM] [--stream] [--input FILE]... [--output FILE]..."
// Files go in vector order: with a program of I inputs and O outputs,
// inputs 0..I-1 and outputs 0..O-1 are the first vector, and so on. Each
// vector runs from a reset state; with --stream the vectors are one
// stream, state carried from each to the next (reset once, first).
// Paths contain no spaces (QEMU passes the string as is).
// Or -append "--batch LIST": LIST is a text file of runs, one per line,
// each in the form above with its PROGRAM (many programs per launch).
struct CommandLine {
  const char* program = nullptr;
  const char* batch = nullptr;
  bool stream = false;
  const char* inputs[kMaxFiles];
  uint32_t num_inputs = 0;
  const char* outputs[kMaxFiles];
  uint32_t num_outputs = 0;
};

// Reads the semihosting command line; prints why and returns false if it
// is malformed.
bool parse_command_line(CommandLine* line);

// The runs of a batch list, read one line at a time into the buffer the
// command line was read into (the list's path must not be used after
// open_batch).
struct BatchList {
  int32_t handle = -1;
  uint32_t unread = 0;  // bytes of the file not yet read
  uint32_t filled = 0;  // bytes in the buffer
  uint32_t next = 0;    // where the next line starts in the buffer
};

// Returns a board exit code (0 on success).
uint32_t open_batch(const char* path, BatchList* list);

enum class BatchLine { kRun, kEnd, kMalformed };

// Parses the next non-empty line of the list into *line (which it resets);
// prints why when the line is malformed or too long.
BatchLine next_batch_line(BatchList* list, CommandLine* line);

// Sends the runtime's log lines to the console.
void install_log_hook();

// Reads a whole file into [buffer, buffer + capacity); *bytes gets its
// length. With `exact`, the file must be exactly `capacity` bytes. Returns
// a board exit code (0 on success).
uint32_t read_file(const char* path, uint8_t* buffer, uint32_t capacity, uint32_t* bytes,
                   bool exact = false);

// Writes `bytes` bytes to a new file at `path`; prints why and returns a
// board exit code on failure (0 on success).
uint32_t write_file(const char* path, const uint8_t* data, uint32_t bytes);

// Runs a loaded program once per vector of files (once on whatever the
// arena holds if no input is given), each from a reset state unless the
// line says --stream, writing outputs, and prints the
// summary lines. Returns the exit code: the runtime status of the first
// failure, or a board exit code for a file problem.
uint32_t run_vectors(const Program& program, uint8_t* arena, uint32_t arena_capacity,
                     const CommandLine& line);

// Prints the failing status and returns it as an exit code.
uint32_t report_load_failure(Status status);

}  // namespace tinyaot::runner
