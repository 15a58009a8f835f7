// The runtime manifest (tinyaot-runtime.json): what one runtime build
// accepts, written beside it so that a program can be checked against that
// runtime without running it (`tinyaot verify --runtime`):
//   {"format_version": N, "isa_classes": ["dsp"], "rounding_modes": ["tflm", "single"],
//    "kernels": [{"name", "id", "version", "params_bytes", "min_inputs", "max_inputs",
//                 "num_outputs", "isa", "fingerprint"}]}
// format_version is the program format the runtime reads; a kernel's fields
// are its descriptor's (kernels/kernel_list.h), the fingerprint its
// abi_fingerprint.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <vector>

#include "tinyaot/target.h"

namespace tinyaot::cli {

inline constexpr const char* kRuntimeManifestFile = "tinyaot-runtime.json";

// The manifest of a runtime holding the registry's variants `kernel_ids`
// (in that order), built for `isa_classes`, accepting `rounding_modes`.
// Throws std::invalid_argument for an id outside the registry.
nlohmann::json runtime_manifest(const std::vector<uint32_t>& kernel_ids,
                                const std::vector<IsaClass>& isa_classes,
                                const std::vector<Rounding>& rounding_modes);

// This CLI's own runtime: every variant, the ISA classes it accepts (all of
// them on the host), both rounding modes.
nlohmann::json builtin_runtime_manifest();

}  // namespace tinyaot::cli
