// Which files of the source tree an exported library needs: the runtime's
// sources (all but the full registry, which the export generates for its
// own kernels), the file defining each kernel variant used, and everything
// those include, followed transitively (a header's same-named .cpp beside
// it comes along: its implementation). Nothing else is copied.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace tinyaot::cli {

struct SourceFile {
  std::filesystem::path from;  // in the source tree
  std::string to;              // relative to the exported src/ folder
};

// The runtime source the export replaces with its generated registry.
inline constexpr const char* kRegistrySource = "runtime/registry.cpp";

// `root` is the tinyaot source tree; `kernels` the variant names (as in
// kernels/kernel_list.h). Throws std::runtime_error when a variant's
// definition or an included file cannot be found.
std::vector<SourceFile> runtime_sources(const std::filesystem::path& root,
                                        const std::vector<std::string>& kernels);

}  // namespace tinyaot::cli
