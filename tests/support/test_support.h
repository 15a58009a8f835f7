// Shared helpers for the test suite: where ../shared is, file I/O, and a
// one-call compile -> load -> run path through the same pipeline as the CLI.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "compiler/compile.h"

namespace tinyaot::test {

// ../shared beside the project root (or $TINYAOT_SHARED), or nullopt when
// it holds no golden set: tests then GTEST_SKIP, giving shared_dir_searched().
std::optional<std::string> shared_dir();
// Where shared_dir() looked, for the skip messages.
std::string shared_dir_searched();

// Words that the refusal of a shared model tinyaot cannot compile yet must
// contain (tests/support/awaiting_support.txt), or nullopt for a model it
// must compile. `model` is the file's stem, e.g. "trained_lstm_int8".
std::optional<std::string> expected_refusal(const std::string& model);

// For tests over every shared model: compiles the model at `path`, or
// checks that it is refused as awaiting_support.txt says. Returns the
// program, or nullopt when the model was refused (as expected, or not: then
// a test failure is recorded); a listed model that compiles is a failure too.
std::optional<std::vector<uint8_t>> compile_shared_model(const std::string& path,
                                                         const CompileOptions& options);

// Compiles `model` with the C++ API and default options. Returns the
// CompileError's message ("(empty message)" for an empty one), or "" when
// the model compiled (then `program`, if given, holds it). Any other
// exception is a test failure, and its message is returned so that the
// caller's loop goes on and one bug does not hide the others.
std::string compile_error(const std::vector<uint8_t>& model,
                          std::vector<uint8_t>* program = nullptr);

std::vector<uint8_t> read_file(const std::string& path);
void write_file(const std::string& path, const std::vector<uint8_t>& bytes);

// Runs a compiled program on the host runtime, one inference per step on
// one arena, state carried from a reset (the arena starts as garbage).
// Returns the runtime status and fills `outputs` (per step, one byte
// vector per program output).
Status run_stream_on_host(const std::vector<uint8_t>& program,
                          const std::vector<std::vector<std::vector<uint8_t>>>& steps,
                          std::vector<std::vector<std::vector<uint8_t>>>* outputs);

// One inference from a reset state. Returns the runtime status and fills
// `outputs` (one byte vector per program output).
Status run_on_host(const std::vector<uint8_t>& program,
                   const std::vector<std::vector<uint8_t>>& inputs,
                   std::vector<std::vector<uint8_t>>* outputs);

}  // namespace tinyaot::test
