// Which files of the source tree an exported library needs: the runtime's
// sources (all but the full registry and the build configuration, which
// the export generates for its own kernels and programs), the file defining
// each kernel variant used, and everything those include or use, followed
// transitively: a header's same-named .cpp beside it (its implementation),
// and the kernel source defining a function or descriptor they name (a
// family's shared validate; a descriptor an inline helper compares with,
// which an unoptimised build links against). The registry holds only the
// variants used; nothing else is copied.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace tinyaot::cli {

struct SourceFile {
  std::filesystem::path from;  // in the source tree
  std::string to;              // relative to the exported src/ folder
};

// The runtime source the export replaces with its generated registry, and
// the build configuration it replaces with its own (as tinyaot/config.h).
inline constexpr const char* kRegistrySource = "runtime/registry.cpp";
inline constexpr const char* kConfigHeader = "runtime/include/tinyaot/config.h";

// `root` is the tinyaot source tree; `kernels` the variant names (as in
// kernels/kernel_list.h). Throws std::runtime_error when a variant's
// definition or an included file cannot be found.
std::vector<SourceFile> runtime_sources(const std::filesystem::path& root,
                                        const std::vector<std::string>& kernels);

}  // namespace tinyaot::cli
