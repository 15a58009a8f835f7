// `tinyaot export`: one or more programs become a self-contained folder
// that a firmware project builds with nothing but its own C/C++ cross
// compiler: the runtime's sources, the sources of only the kernel variants
// the programs use (with a registry of exactly those, at the ids the
// programs record), the programs as aligned const arrays, a C API header
// per library (NAME.h), a build description (CMake or Arduino) and the
// manifest tinyaot-runtime.json (format version, ISA classes, rounding
// modes, every kernel's ABI).
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace tinyaot::cli {

struct ExportArgs {
  std::vector<std::string> programs;
  std::string output, name, format = "cmake";
};

// Registers the subcommand and its options on `app`.
CLI::App* add_export_command(CLI::App& app, ExportArgs& args);

// Writes the folder (all or nothing: built in a temporary folder beside it
// and renamed into place). Throws std::runtime_error naming what is wrong
// and where.
int do_export(const ExportArgs& args);

}  // namespace tinyaot::cli
