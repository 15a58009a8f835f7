#include "support/test_support.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>

namespace tinyaot::test {

std::string shared_dir_searched() {
  if (const char* env = std::getenv("TINYAOT_SHARED")) return env;
  return (std::filesystem::path(TINYAOT_SOURCE_DIR) / ".." / "shared").lexically_normal().string();
}

std::optional<std::string> shared_dir() {
  const std::filesystem::path candidate = shared_dir_searched();
  if (std::filesystem::exists(candidate / "golden"))
    return std::filesystem::canonical(candidate).string();
  return std::nullopt;
}

std::optional<std::string> expected_refusal(const std::string& model) {
  std::ifstream list(std::filesystem::path(TINYAOT_SOURCE_DIR) / "tests" / "support" /
                     "awaiting_support.txt");
  if (!list) throw std::runtime_error("cannot open tests/support/awaiting_support.txt");
  for (std::string line; std::getline(list, line);) {
    if (line.empty() || line[0] == '#') continue;
    const size_t gap = line.find_first_of(" \t");
    const size_t words = line.find_first_not_of(" \t", gap);
    if (gap == std::string::npos || words == std::string::npos)
      throw std::runtime_error("awaiting_support.txt: malformed line '" + line + "'");
    if (line.compare(0, gap, model) == 0 && gap == model.size()) return line.substr(words);
  }
  return std::nullopt;
}

std::optional<std::vector<uint8_t>> compile_shared_model(const std::string& path,
                                                         const CompileOptions& options) {
  const std::vector<uint8_t> model = read_file(path);
  const std::optional<std::string> refusal =
      expected_refusal(std::filesystem::path(path).stem().string());
  try {
    std::vector<uint8_t> program = compile_model(model.data(), model.size(), options).program;
    if (refusal) {
      ADD_FAILURE() << path << " compiles now: take it off tests/support/awaiting_support.txt";
    }
    return program;
  } catch (const CompileError& e) {
    if (!refusal || std::string(e.what()).find(*refusal) == std::string::npos) {
      ADD_FAILURE() << path << ": " << e.what()
                    << (refusal ? " (awaiting_support.txt expects '" + *refusal + "')" : "");
    }
    return std::nullopt;
  }
}

std::vector<uint8_t> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot open " + path);
  return std::vector<uint8_t>((std::istreambuf_iterator<char>(in)),
                              std::istreambuf_iterator<char>());
}

void write_file(const std::string& path, const std::vector<uint8_t>& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
}

Status run_stream_on_host(const std::vector<uint8_t>& program_bytes,
                          const std::vector<std::vector<std::vector<uint8_t>>>& steps,
                          std::vector<std::vector<std::vector<uint8_t>>>* outputs) {
  std::vector<uint8_t> storage(program_bytes.size() + 16);
  uint8_t* base = storage.data() + (16 - reinterpret_cast<uintptr_t>(storage.data()) % 16) % 16;
  std::memcpy(base, program_bytes.data(), program_bytes.size());
  Program program;
  Status status = load_program(base, static_cast<uint32_t>(program_bytes.size()), &program);
  if (status != Status::kOk) return status;
  std::vector<uint8_t> arena_storage(program.header->arena_bytes + 16, 0xA5);
  uint8_t* arena =
      arena_storage.data() + (16 - reinterpret_cast<uintptr_t>(arena_storage.data()) % 16) % 16;
  status = reset_state(program, arena, program.header->arena_bytes);
  if (status != Status::kOk) return status;
  outputs->clear();
  for (const auto& inputs : steps) {
    if (inputs.size() != program.header->num_inputs) return Status::kBadArgument;
    for (size_t i = 0; i < inputs.size(); ++i) {
      if (inputs[i].size() != program.inputs[i].bytes) return Status::kBadArgument;
      std::memcpy(input_data(program, arena, static_cast<uint32_t>(i)), inputs[i].data(),
                  inputs[i].size());
    }
    status = run_program(program, arena, program.header->arena_bytes);
    if (status != Status::kOk) return status;
    outputs->emplace_back();
    for (uint32_t i = 0; i < program.header->num_outputs; ++i) {
      const uint8_t* out = output_data(program, arena, i);
      outputs->back().emplace_back(out, out + program.outputs[i].bytes);
    }
  }
  return Status::kOk;
}

Status run_on_host(const std::vector<uint8_t>& program_bytes,
                   const std::vector<std::vector<uint8_t>>& inputs,
                   std::vector<std::vector<uint8_t>>* outputs) {
  std::vector<std::vector<std::vector<uint8_t>>> steps;
  const Status status = run_stream_on_host(program_bytes, {inputs}, &steps);
  if (status == Status::kOk) *outputs = std::move(steps.front());
  return status;
}

std::string compile_error(const std::vector<uint8_t>& model, std::vector<uint8_t>* program) {
  try {
    CompileOptions options;
    Compilation c = compile_model(model.data(), model.size(), options);
    if (program) *program = std::move(c.program);
    return "";
  } catch (const CompileError& e) {
    const std::string message = e.what();
    return message.empty() ? "(empty message)" : message;
  } catch (const std::exception& e) {
    ADD_FAILURE() << "compile_model threw a non-CompileError exception: " << e.what();
    return std::string("(unexpected exception) ") + e.what();
  }
}

}  // namespace tinyaot::test
