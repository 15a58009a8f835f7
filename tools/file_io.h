// File helpers for the CLI: whole-file reads and all-or-nothing writes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tinyaot::cli {

std::vector<uint8_t> read_file(const std::string& path);  // throws std::runtime_error

// Writes every file or none: each goes to a temporary name first and is
// renamed into place only when all were written; on failure the
// temporaries are removed, so no partial output is ever left behind.
void write_files_atomically(const std::vector<std::pair<std::string, std::vector<uint8_t>>>& files);

}  // namespace tinyaot::cli
