#include "session.h"

#include <string.h>

#include "board.h"
#include "markers.h"
#include "semihosting.h"
#include "text.h"

namespace tinyaot::runner {
namespace {

char g_command_line[2048];

void print_value(const char* key, uint64_t value) {
  board::Line line;
  board::print(line.text(key).text(": ").dec(value).c_str());
}

void print_problem(const char* what, const char* detail) {
  board::Line line;
  board::print(line.text("tinyaot-runner: ").text(what).text(detail).c_str());
}

void log_to_console(const char* message) {
  board::Line line;
  board::print(line.text("tinyaot-log: ").text(message).c_str());
}

bool add_file(const char** list, uint32_t* count, const char* path) {
  if (path == nullptr || *count == kMaxFiles) return false;
  list[(*count)++] = path;
  return true;
}

// Parses "[PROGRAM] [--stream] [--input FILE]... [--output FILE]... [--batch LIST]"
// in place.
bool parse_arguments(char* cursor, CommandLine* line) {
  while (char* token = semihosting::next_token(&cursor)) {
    bool ok = true;
    if (strcmp(token, "--batch") == 0 && line->batch == nullptr) {
      line->batch = semihosting::next_token(&cursor);
      ok = line->batch != nullptr;
    } else if (strcmp(token, "--stream") == 0) {
      line->stream = true;
    } else if (strcmp(token, "--input") == 0 || strcmp(token, "-i") == 0) {
      ok = add_file(line->inputs, &line->num_inputs, semihosting::next_token(&cursor));
    } else if (strcmp(token, "--output") == 0 || strcmp(token, "-o") == 0) {
      ok = add_file(line->outputs, &line->num_outputs, semihosting::next_token(&cursor));
    } else if (token[0] != '-' && line->program == nullptr) {
      line->program = token;
    } else {
      ok = false;
    }
    if (!ok) {
      print_problem("bad argument near ", token);
      return false;
    }
  }
  return true;
}

}  // namespace

uint32_t write_file(const char* path, const uint8_t* data, uint32_t bytes) {
  const int32_t handle = semihosting::open(path, semihosting::kModeWriteBinary);
  if (handle < 0) {
    print_problem("cannot create ", path);
    return board::kExitFile;
  }
  const bool ok = semihosting::write(handle, data, bytes);
  semihosting::close(handle);
  if (!ok) {
    print_problem("cannot write ", path);
    return board::kExitFile;
  }
  return 0;
}

bool parse_command_line(CommandLine* line) {
  if (!semihosting::command_line(g_command_line, sizeof(g_command_line))) {
    print_problem("cannot read the command line", " (too long for the buffer?)");
    return false;
  }
  char* cursor = g_command_line;
  semihosting::next_token(&cursor);  // the kernel (firmware) path QEMU puts first
  if (!parse_arguments(cursor, line)) return false;
  if (line->batch != nullptr && (line->program != nullptr || line->num_inputs != 0 ||
                                 line->num_outputs != 0 || line->stream)) {
    print_problem("--batch takes the runs from its list only", "");
    return false;
  }
  return true;
}

uint32_t open_batch(const char* path, BatchList* list) {
  list->handle = semihosting::open(path, semihosting::kModeReadBinary);
  const int32_t length = list->handle < 0 ? -1 : semihosting::file_length(list->handle);
  if (length < 0) {
    print_problem("cannot read the batch list ", path);
    return board::kExitFile;
  }
  list->unread = static_cast<uint32_t>(length);
  list->filled = list->next = 0;
  return 0;
}

BatchLine next_batch_line(BatchList* list, CommandLine* line) {
  char* const buffer = g_command_line;
  const uint32_t capacity = sizeof(g_command_line) - 1;  // room for a final NUL
  for (;;) {
    // Keep the unread rest of the buffer, then top it up from the file.
    memmove(buffer, buffer + list->next, list->filled - list->next);
    list->filled -= list->next;
    list->next = 0;
    uint32_t more = capacity - list->filled;
    if (more > list->unread) more = list->unread;
    if (more != 0 && !semihosting::read(list->handle, buffer + list->filled, more)) {
      print_problem("cannot read the batch list", "");
      return BatchLine::kMalformed;
    }
    list->filled += more;
    list->unread -= more;
    if (list->filled == 0) return BatchLine::kEnd;
    uint32_t end = 0;
    while (end < list->filled && buffer[end] != '\n') ++end;
    if (end == list->filled && list->unread != 0) {
      print_problem("a batch line is longer than the buffer", "");
      return BatchLine::kMalformed;
    }
    buffer[end] = '\0';  // the newline, or the spare byte after the last line
    list->next = end < list->filled ? end + 1 : end;
    *line = CommandLine();
    if (!parse_arguments(buffer, line)) return BatchLine::kMalformed;
    if (line->batch != nullptr || line->program == nullptr) {
      if (line->batch == nullptr && line->num_inputs == 0 && line->num_outputs == 0) continue;
      print_problem("a batch line needs a program and no --batch", "");
      return BatchLine::kMalformed;
    }
    return BatchLine::kRun;
  }
}

void install_log_hook() { set_log_hook(log_to_console); }

uint32_t read_file(const char* path, uint8_t* buffer, uint32_t capacity, uint32_t* bytes,
                   bool exact) {
  const int32_t handle = semihosting::open(path, semihosting::kModeReadBinary);
  if (handle < 0) {
    print_problem("cannot open ", path);
    return board::kExitFile;
  }
  const int32_t length = semihosting::file_length(handle);
  uint32_t code = 0;
  if (length < 0) {
    print_problem("cannot size ", path);
    code = board::kExitFile;
  } else if (exact && static_cast<uint32_t>(length) != capacity) {
    // A short or long input is a mistake in the set-up, not something to pad.
    board::Line line;
    line.text("tinyaot-runner: ")
        .text(path)
        .text(" has ")
        .dec(static_cast<uint32_t>(length))
        .text(" bytes, the input needs ")
        .dec(capacity);
    board::print(line.c_str());
    code = board::kExitFile;
  } else if (static_cast<uint32_t>(length) > capacity) {
    board::Line line;
    line.text("tinyaot-runner: ")
        .text(path)
        .text(" is ")
        .dec(static_cast<uint32_t>(length))
        .text(" bytes; only ")
        .dec(capacity)
        .text(" fit");
    board::print(line.c_str());
    code = board::kExitNoFit;
  } else if (!semihosting::read(handle, buffer, static_cast<uint32_t>(length))) {
    print_problem("cannot read ", path);
    code = board::kExitFile;
  }
  semihosting::close(handle);
  *bytes = length < 0 ? 0 : static_cast<uint32_t>(length);
  return code;
}

uint32_t run_vectors(const Program& program, uint8_t* arena, uint32_t arena_capacity,
                     const CommandLine& line) {
  const ProgramHeader& h = *program.header;
  print_value("tinyaot-arena-bytes", h.arena_bytes);
  const uint32_t per_in = h.num_inputs;
  const uint32_t per_out = h.num_outputs;
  uint32_t vectors = 1;
  if (line.num_inputs != 0) {
    vectors = per_in == 0 ? 0 : line.num_inputs / per_in;
    if (vectors == 0 || vectors * per_in != line.num_inputs) {
      print_problem("the input files are not a whole number of vectors", "");
      return board::kExitUsage;
    }
  }
  if (line.num_outputs != 0 && line.num_outputs != vectors * per_out) {
    print_problem("give every output of every vector, or none", "");
    return board::kExitUsage;
  }
  if (arena_capacity < h.arena_bytes) {
    board::Line message;
    message.text("tinyaot-runner: the arena needs ")
        .dec(h.arena_bytes)
        .text(" bytes; ")
        .dec(arena_capacity)
        .text(" are free");
    board::print(message.c_str());
    return board::kExitNoFit;
  }
  for (uint32_t v = 0; v < vectors; ++v) {
    if (v == 0 || !line.stream) {
      const Status reset = reset_state(program, arena, arena_capacity);
      if (reset != Status::kOk) return report_load_failure(reset);
    }
    for (uint32_t i = 0; line.num_inputs != 0 && i < per_in; ++i) {
      uint32_t bytes = 0;
      const uint32_t code = read_file(line.inputs[v * per_in + i], input_data(program, arena, i),
                                      program.inputs[i].bytes, &bytes, true);
      if (code != 0) return code;
    }
    tinyaot_mark_start();
    const Status status = run_program(program, arena, arena_capacity);
    tinyaot_mark_stop();
    if (status != Status::kOk) {
      board::Line message;
      board::print(message.text("tinyaot-status: ").text(status_name(status)).c_str());
      return static_cast<uint32_t>(status);
    }
    for (uint32_t o = 0; line.num_outputs != 0 && o < per_out; ++o) {
      const uint32_t code = write_file(line.outputs[v * per_out + o],
                                       output_data(program, arena, o), program.outputs[o].bytes);
      if (code != 0) return code;
    }
  }
  print_value("tinyaot-vectors", vectors);
  board::print("tinyaot-status: kOk");
  return 0;
}

uint32_t report_load_failure(Status status) {
  board::Line line;
  board::print(line.text("tinyaot-status: ").text(status_name(status)).c_str());
  return static_cast<uint32_t>(status);
}

}  // namespace tinyaot::runner
