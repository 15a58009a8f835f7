#include "export.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <stdexcept>

#include "compiler/compile.h"
#include "compiler/emit/report.h"
#include "export_sources.h"
#include "export_text.h"
#include "file_io.h"
#include "runtime_manifest.h"
#include "runtime_verify.h"
#include "tinyaot/runtime.h"

namespace tinyaot::cli {
namespace {

namespace fs = std::filesystem;
using Error = std::runtime_error;

bool is_c_identifier(const std::string& text) {
  if (text.empty() || std::isdigit(static_cast<unsigned char>(text[0]))) return false;
  for (char c : text) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  }
  return true;
}

// A file stem as a lower-case C identifier: "kws-ref.v2" -> "kws_ref_v2".
std::string identifier_from(const std::string& stem) {
  std::string id;
  for (char c : stem) {
    const auto u = static_cast<unsigned char>(c);
    id += std::isalnum(u) ? static_cast<char>(std::tolower(u)) : '_';
  }
  if (id.empty() || std::isdigit(static_cast<unsigned char>(id[0]))) id = "m" + id;
  return id;
}

std::string lower(const std::string& text) {
  std::string result = text;
  for (char& c : result) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return result;
}

std::string library_name(const ExportArgs& a) {
  if (a.name.empty()) return identifier_from(fs::path(a.programs.front()).stem().string());
  if (!is_c_identifier(a.name))
    throw Error("--name '" + a.name +
                "' is not a C identifier (letters, digits and _, not starting with a digit)");
  return lower(a.name);
}

ExportedProgram load_exported(const std::string& path, const std::string& prefix) {
  ExportedProgram p;
  p.file = fs::path(path).filename().string();
  p.prefix = prefix;
  p.bytes = read_file(path);
  p.model = program_model_name(p.bytes, fs::path(path).stem().string());
  try {
    p.report = program_report(p.bytes);  // validates it with this build's loader
  } catch (const CompileError& e) {
    throw Error("'" + path + "': " + e.what());
  }
  ProgramHeader h;
  std::memcpy(&h, p.bytes.data(), sizeof(h));
  p.isa = static_cast<IsaClass>(h.isa);
  p.rounding = static_cast<Rounding>(h.rounding);
  for (uint32_t i = 0; i < h.num_kernels; ++i) {
    AbiEntry e;
    std::memcpy(&e, p.bytes.data() + h.kernels_offset + i * sizeof(AbiEntry), sizeof(e));
    p.kernel_ids.push_back(e.kernel_id);
  }
  return p;
}

Library collect(const ExportArgs& a) {
  Library library;
  library.name = library_name(a);
  std::map<std::string, std::string> prefixes;  // prefix -> program, to refuse clashes
  for (const std::string& path : a.programs) {
    const std::string prefix =
        a.programs.size() == 1
            ? library.name
            : library.name + "_" + identifier_from(fs::path(path).stem().string());
    if (!prefixes.emplace(prefix, path).second)
      throw Error("'" + path + "' and '" + prefixes[prefix] + "' would both be " + prefix +
                  "_...: give the programs different file names");
    library.programs.push_back(load_exported(path, prefix));
  }
  const ExportedProgram& first = library.programs.front();
  for (const ExportedProgram& p : library.programs) {
    if (p.isa != first.isa)
      throw Error("'" + p.file + "' is planned for ISA class " +
                  p.report["isa"].get<std::string>() + " and '" + first.file + "' for " +
                  first.report["isa"].get<std::string>() +
                  ": one library serves one ISA class; export them separately");
  }
  std::map<uint32_t, const KernelDescriptor*> used;
  for (const ExportedProgram& p : library.programs) {
    for (uint32_t id : p.kernel_ids) used[id] = find_kernel(id);  // checked by the loader
  }
  for (const auto& [id, descriptor] : used) library.kernels.push_back({id, descriptor});
  return library;
}

void write_text(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  out.close();
  if (!out) throw Error("cannot write '" + path.string() + "'");
}

// The whole folder, into `dir` (a fresh temporary folder).
void write_library(Library& library, const fs::path& dir, const std::string& format) {
  std::vector<std::string> kernel_names;
  for (const ExportedKernel& k : library.kernels) kernel_names.push_back(k.descriptor->name);
  const fs::path src = dir / "src";
  for (const SourceFile& file : runtime_sources(TINYAOT_SOURCE_DIR, kernel_names)) {
    fs::create_directories((src / file.to).parent_path());
    fs::copy_file(file.from, src / file.to);
    const fs::path extension = fs::path(file.to).extension();
    if (extension == ".cpp" || extension == ".S") library.sources.push_back(file.to);
  }
  const std::string& name = library.name;
  const fs::path registry = fs::path(kRegistrySource).lexically_relative("runtime");
  library.sources.push_back("runtime/" + registry.generic_string());
  library.sources.push_back(name + ".cpp");
  library.sources.push_back(name + "_programs.c");
  std::sort(library.sources.begin(), library.sources.end());
  write_text(src / "runtime" / registry, registry_text(library));
  write_text(src / fs::path(kConfigHeader).lexically_relative("runtime/include"),
             config_text(library));
  write_text(src / (name + ".h"), header_text(library));
  write_text(src / (name + ".cpp"), api_text(library));
  write_text(src / (name + "_programs.c"), program_arrays_text(library));
  write_text(dir / kRuntimeManifestFile, manifest(library).dump(1) + "\n");
  if (format == "cmake") {
    write_text(dir / "CMakeLists.txt", cmake_text(library));
  } else {
    write_text(dir / "library.properties", library_properties_text(library));
    write_text(dir / "examples" / (name + "_basic") / (name + "_basic.ino"),
               arduino_example_text(library));
  }
}

// Puts `built` at `target`: replaces an earlier export (or an empty
// folder) there, refuses anything else.
void move_into_place(const fs::path& built, const fs::path& target) {
  if (!fs::exists(target)) {
    fs::rename(built, target);
    return;
  }
  const bool earlier_export = fs::is_regular_file(target / kRuntimeManifestFile);
  if (!fs::is_directory(target) || !(earlier_export || fs::is_empty(target)))
    throw Error("'" + target.string() +
                "' exists and is not an earlier export: refusing to replace it");
  const fs::path old = built.string() + "-old";
  fs::rename(target, old);
  fs::rename(built, target);
  fs::remove_all(old);
}

}  // namespace

CLI::App* add_export_command(CLI::App& app, ExportArgs& args) {
  auto* command = app.add_subcommand(
      "export",
      "Write a self-contained library folder (runtime, only the kernels used, programs, C API "
      "NAME.h) for a firmware project's own build");
  command->add_option("programs", args.programs, ".tao program(s), all for one ISA class")
      ->required()
      ->check(CLI::ExistingFile);
  command->add_option("-o,--output", args.output, "folder to write (replaced if an earlier export)")
      ->required();
  command->add_option("--name", args.name,
                      "C name of the library: NAME.h, name_init... (default: the first "
                      "program's file stem)");
  command->add_option("--format", args.format, "cmake (CMakeLists.txt) or arduino (library)")
      ->check(CLI::IsMember({"cmake", "arduino"}))
      ->capture_default_str();
  return command;
}

int do_export(const ExportArgs& a) {
  Library library = collect(a);
  fs::path target = fs::absolute(a.output).lexically_normal();
  if (!target.has_filename()) target = target.parent_path();  // "out/"
  const fs::path parent = target.parent_path();
  if (!fs::is_directory(parent))
    throw Error("cannot write '" + a.output + "': the folder '" + parent.string() +
                "' does not exist");
  const fs::path temporary =
      parent / ("." + target.filename().string() + ".tinyaot-" + std::to_string(getpid()));
  try {
    fs::create_directory(temporary);
    write_library(library, temporary, a.format);
    move_into_place(temporary, target);
  } catch (const fs::filesystem_error& e) {
    std::error_code ignored;
    fs::remove_all(temporary, ignored);
    throw Error("cannot write '" + a.output + "': " + e.code().message() + " ('" +
                e.path1().string() + "')");
  } catch (...) {
    std::error_code ignored;
    fs::remove_all(temporary, ignored);
    throw;
  }
  std::cerr << "tinyaot: wrote " << a.output << " (" << a.format << ": " << library.name << ".h, "
            << library.kernels.size() << " kernel variant(s), " << library.sources.size()
            << " sources)\n";
  return 0;
}

}  // namespace tinyaot::cli
