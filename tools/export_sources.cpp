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

// Variant name -> the .cpp that defines its descriptor ("const
// KernelDescriptor kernel_<name> = {", the form every family uses).
std::map<std::string, fs::path> descriptor_files(const fs::path& root) {
  static const std::regex definition(R"(const KernelDescriptor kernel_(\w+) = \{)");
  std::map<std::string, fs::path> files;
  for (const auto& entry : fs::recursive_directory_iterator(root / "kernels")) {
    if (entry.path().extension() != ".cpp") continue;
    const std::string text = read_text(entry.path());
    for (std::sregex_iterator m(text.begin(), text.end(), definition), end; m != end; ++m)
      files[(*m)[1].str()] = entry.path();
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
  const std::map<std::string, fs::path> definitions = descriptor_files(root);
  for (const std::string& kernel : kernels) {
    const auto found = definitions.find(kernel);
    if (found == definitions.end())
      throw std::runtime_error("no source under '" + (root / "kernels").string() +
                               "' defines kernel variant '" + kernel + "'");
    pending.push_back(found->second.lexically_normal());
  }
  std::set<fs::path> seen;
  std::vector<SourceFile> files;
  while (!pending.empty()) {
    const fs::path file = pending.front();
    pending.pop_front();
    if (!seen.insert(file).second || file == root / kConfigHeader) continue;
    files.push_back({file, exported_path(root, file)});
    for (const std::string& name : quoted_includes(read_text(file))) {
      const fs::path header = resolve_include(root, file, name);
      pending.push_back(header);
      fs::path implementation = header;
      implementation.replace_extension(".cpp");
      if (header.extension() == ".h" && fs::is_regular_file(implementation))
        pending.push_back(implementation);
    }
  }
  std::sort(files.begin(), files.end(),
            [](const SourceFile& a, const SourceFile& b) { return a.to < b.to; });
  return files;
}

}  // namespace tinyaot::cli
