#include "export_sources.h"

#include <algorithm>
#include <deque>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <stdexcept>

namespace tinyaot::cli {
namespace {

namespace fs = std::filesystem;

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read '" + path.string() + "'");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// Whether a kernels/ file belongs to the compiler or the tests (it
// includes the compiler, a lowering or GoogleTest) rather than the runtime.
bool compile_time_only(const std::string& text) {
  static const std::regex include(R"re(#\s*include\s*["<][^">]*(compiler/|lower|gtest))re");
  return std::regex_search(text, include);
}

// What the runtime's kernel sources define for other files to use: each
// variant's descriptor ("const KernelDescriptor kernel_<name> = {", the form
// every family uses) and each function a kernels/ header declares (such as
// a family's shared validate), by the file defining it; a declaration may
// start with an attribute macro (TINYAOT_LOAD_TIME, tinyaot/load_time.h).
struct Definitions {
  std::map<std::string, fs::path> variants;  // variant name -> file
  std::map<std::string, fs::path> symbols;   // kernel_<name>, function name -> file
};

Definitions kernel_definitions(const fs::path& root) {
  static const std::regex descriptor(R"(const KernelDescriptor kernel_(\w+) = \{)");
  static const std::regex function(R"(^(?:TINYAOT_[A-Z_]+ )?[A-Za-z_][\w:<>]*[ *&]+(\w+)\()",
                                   std::regex::multiline);
  std::set<std::string> declared;
  std::vector<std::pair<fs::path, std::string>> sources;
  for (const auto& entry : fs::recursive_directory_iterator(root / "kernels")) {
    const std::string ext = entry.path().extension().string();
    if (ext != ".cpp" && ext != ".h") continue;
    const std::string text = read_text(entry.path());
    if (compile_time_only(text)) continue;
    if (ext == ".cpp") {
      sources.push_back({entry.path().lexically_normal(), text});
      continue;
    }
    for (std::sregex_iterator m(text.begin(), text.end(), function), end; m != end; ++m)
      declared.insert((*m)[1].str());
  }
  Definitions d;
  for (const auto& [file, text] : sources) {
    for (std::sregex_iterator m(text.begin(), text.end(), descriptor), end; m != end; ++m) {
      d.variants[(*m)[1].str()] = file;
      d.symbols["kernel_" + (*m)[1].str()] = file;
    }
    for (std::sregex_iterator m(text.begin(), text.end(), function), end; m != end; ++m) {
      if (declared.count((*m)[1].str())) d.symbols.emplace((*m)[1].str(), file);
    }
  }
  return d;
}

// The files defining the symbols `text` uses, other than `self`. A
// declaration is no use: a family header declares all its variants'
// descriptors and shared functions.
std::vector<fs::path> files_used_by(const std::string& text, const fs::path& self,
                                    const Definitions& d) {
  static const std::regex declaration(
      R"(^(extern const KernelDescriptor \w+;|[A-Za-z_][\w:<>]*[ *&]+\w+\([^{;]*\);))",
      std::regex::multiline);
  static const std::regex word(R"(\b[A-Za-z_]\w*\b)");
  const std::string uses = std::regex_replace(text, declaration, "");
  std::vector<fs::path> files;
  for (std::sregex_iterator m(uses.begin(), uses.end(), word), end; m != end; ++m) {
    const auto found = d.symbols.find(m->str());
    if (found != d.symbols.end() && found->second != self) files.push_back(found->second);
  }
  return files;
}

// The quoted includes of a source file ("#include <...>" is the toolchain's).
std::vector<std::string> quoted_includes(const std::string& text) {
  static const std::regex include(R"re(^\s*#\s*include\s*"([^"]+)")re", std::regex::multiline);
  std::vector<std::string> names;
  for (std::sregex_iterator m(text.begin(), text.end(), include), end; m != end; ++m)
    names.push_back((*m)[1].str());
  return names;
}

// As the tree's builds resolve them: beside the includer, then from the
// root, then from runtime/include.
fs::path resolve_include(const fs::path& root, const fs::path& includer, const std::string& name) {
  for (const fs::path& base : {includer.parent_path(), root, root / "runtime" / "include"}) {
    const fs::path candidate = (base / name).lexically_normal();
    if (fs::is_regular_file(candidate)) return candidate;
  }
  throw std::runtime_error("'" + includer.string() + "' includes \"" + name +
                           "\", which is not in the source tree at '" + root.string() + "'");
}

// runtime/include/tinyaot/x.h -> tinyaot/x.h; kernels/a/b.cpp stays.
std::string exported_path(const fs::path& root, const fs::path& file) {
  const fs::path public_headers = root / "runtime" / "include";
  const fs::path relative = file.lexically_relative(public_headers);
  if (!relative.empty() && *relative.begin() != "..") return relative.generic_string();
  return file.lexically_relative(root).generic_string();
}

}  // namespace

std::vector<SourceFile> runtime_sources(const fs::path& root,
                                        const std::vector<std::string>& kernels) {
  std::deque<fs::path> pending;
  for (const auto& entry : fs::directory_iterator(root / "runtime")) {
    if (entry.path().extension() == ".cpp" && entry.path() != root / kRegistrySource)
      pending.push_back(entry.path().lexically_normal());
  }
  const Definitions definitions = kernel_definitions(root);
  for (const std::string& kernel : kernels) {
    const auto found = definitions.variants.find(kernel);
    if (found == definitions.variants.end())
      throw std::runtime_error("no source under '" + (root / "kernels").string() +
                               "' defines kernel variant '" + kernel + "'");
    pending.push_back(found->second);
  }
  std::set<fs::path> seen;
  std::vector<SourceFile> files;
  while (!pending.empty()) {
    const fs::path file = pending.front();
    pending.pop_front();
    if (!seen.insert(file).second || file == root / kConfigHeader) continue;
    files.push_back({file, exported_path(root, file)});
    const std::string text = read_text(file);
    // What it calls or names from another kernel source (a family's shared
    // validate; a descriptor it compares with, which a build without
    // optimisation still links against).
    for (const fs::path& used : files_used_by(text, file, definitions)) pending.push_back(used);
    for (const std::string& name : quoted_includes(text)) {
      const fs::path header = resolve_include(root, file, name);
      pending.push_back(header);
      // A header's implementation beside it: C++, or assembly (a loop
      // that needs every register, assembled for the cores it targets).
      for (const char* extension : {".cpp", ".S"}) {
        fs::path implementation = header;
        implementation.replace_extension(extension);
        if (header.extension() == ".h" && fs::is_regular_file(implementation))
          pending.push_back(implementation);
      }
    }
  }
  std::sort(files.begin(), files.end(),
            [](const SourceFile& a, const SourceFile& b) { return a.to < b.to; });
  return files;
}

}  // namespace tinyaot::cli
