// The generated files of an exported library (see export.h): each a
// function of what the export collected, so the texts are written in one
// place and the folder layout in another (export.cpp).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tinyaot/kernel_abi.h"

namespace tinyaot::cli {

// One program of the library, loaded and validated by the host runtime.
struct ExportedProgram {
  std::string file;    // the .tao it came from (for comments and errors)
  std::string prefix;  // lower-case C prefix of its functions: "kws"
  std::string model;   // the name its refusals use, as `tinyaot verify` names it
  std::vector<uint8_t> bytes;
  nlohmann::json report;  // compiler/emit/report.h: core, isa, arena_bytes, inputs, outputs...
  IsaClass isa;
  Rounding rounding;
  std::vector<uint32_t> kernel_ids;  // its kernel table's registry ids
};

// One kernel variant the library holds, at the id the programs record.
struct ExportedKernel {
  uint32_t id;
  const KernelDescriptor* descriptor;
};

struct Library {
  std::string name;  // lower-case: target, header and library-wide functions
  std::vector<ExportedProgram> programs;
  std::vector<ExportedKernel> kernels;  // by id
  std::vector<std::string> sources;     // every .c/.cpp under src/, for the build files
};

std::string upper(const std::string& text);

std::string header_text(const Library& library);          // src/<name>.h
std::string api_text(const Library& library);             // src/<name>.cpp
std::string program_arrays_text(const Library& library);  // src/<name>_programs.c
std::string registry_text(const Library& library);
std::string config_text(
    const Library& library);  // src/tinyaot/config.h            // src/runtime/registry.cpp
std::string cmake_text(const Library& library);               // CMakeLists.txt
std::string library_properties_text(const Library& library);  // Arduino
std::string arduino_example_text(const Library& library);     // examples/<name>_basic/...ino
nlohmann::json manifest(const Library& library);              // tinyaot-runtime.json

}  // namespace tinyaot::cli
