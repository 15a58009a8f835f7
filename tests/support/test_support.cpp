#include "support/test_support.h"

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

Status run_on_host(const std::vector<uint8_t>& program_bytes,
                   const std::vector<std::vector<uint8_t>>& inputs,
                   std::vector<std::vector<uint8_t>>* outputs) {
  std::vector<uint8_t> storage(program_bytes.size() + 16);
  uint8_t* base = storage.data() + (16 - reinterpret_cast<uintptr_t>(storage.data()) % 16) % 16;
  std::memcpy(base, program_bytes.data(), program_bytes.size());
  Program program;
  Status status = load_program(base, static_cast<uint32_t>(program_bytes.size()), &program);
  if (status != Status::kOk) return status;
  if (inputs.size() != program.header->num_inputs) return Status::kBadArgument;
  std::vector<uint8_t> arena_storage(program.header->arena_bytes + 16, 0xA5);
  uint8_t* arena =
      arena_storage.data() + (16 - reinterpret_cast<uintptr_t>(arena_storage.data()) % 16) % 16;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (inputs[i].size() != program.inputs[i].bytes) return Status::kBadArgument;
    std::memcpy(input_data(program, arena, static_cast<uint32_t>(i)), inputs[i].data(),
                inputs[i].size());
  }
  status = run_program(program, arena, program.header->arena_bytes);
  if (status != Status::kOk) return status;
  outputs->clear();
  for (uint32_t i = 0; i < program.header->num_outputs; ++i) {
    const uint8_t* out = output_data(program, arena, i);
    outputs->emplace_back(out, out + program.outputs[i].bytes);
  }
  return Status::kOk;
}

}  // namespace tinyaot::test
