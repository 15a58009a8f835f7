#include "file_io.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <stdexcept>

namespace tinyaot::cli {

std::vector<uint8_t> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot open '" + path + "'");
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                             std::istreambuf_iterator<char>());
  if (in.bad()) throw std::runtime_error("cannot read '" + path + "'");
  return bytes;
}

void write_files_atomically(
    const std::vector<std::pair<std::string, std::vector<uint8_t>>>& files) {
  std::vector<std::string> temporaries;
  try {
    for (const auto& [path, bytes] : files) {
      const std::string temporary = path + ".tmp-tinyaot";
      temporaries.push_back(temporary);
      std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
      if (!out) throw std::runtime_error("cannot write '" + path + "'");
      out.write(reinterpret_cast<const char*>(bytes.data()),
                static_cast<std::streamsize>(bytes.size()));
      out.close();
      if (!out) throw std::runtime_error("cannot write '" + path + "'");
    }
    for (size_t i = 0; i < files.size(); ++i)
      std::filesystem::rename(temporaries[i], files[i].first);
  } catch (...) {
    for (const auto& temporary : temporaries) std::remove(temporary.c_str());
    throw;
  }
}

}  // namespace tinyaot::cli
