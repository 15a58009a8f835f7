// Serializes a compilation into the .tao format (runtime/include/tinyaot/
// program_format.h).
#pragma once

#include <cstdint>
#include <vector>

namespace tinyaot {

struct Compilation;
struct CompileOptions;

std::vector<uint8_t> write_program(const Compilation& compilation, const CompileOptions& options);

}  // namespace tinyaot
