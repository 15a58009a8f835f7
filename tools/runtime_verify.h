// `tinyaot verify --runtime`: checks a program against another runtime
// build, described by its manifest (tools/runtime_manifest.h), without
// loading it there: the same refusals that runtime's loader would make
// (format version, ISA class, rounding mode, each operation's kernel
// variant, version, parameters, operand counts and ABI fingerprint).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace tinyaot::cli {

// One line "FAIL <model> op <index> <operator>: <what differs>" (or
// "FAIL <model>: ..." for the whole program) per failure; empty when the
// program fits. `model` names the program in the lines. Throws
// std::runtime_error for a program this CLI cannot read (not a tinyaot
// program, corrupt, truncated) or a manifest lacking a field.
std::vector<std::string> verify_against_manifest(const std::vector<uint8_t>& program,
                                                 const std::string& model,
                                                 const nlohmann::json& manifest);

// The model's name recorded in the program's debug section, or `fallback`
// when the program is stripped.
std::string program_model_name(const std::vector<uint8_t>& program, const std::string& fallback);

// DIR (holding tinyaot-runtime.json) or a manifest file, parsed. Throws
// std::runtime_error naming the file when it is missing or not JSON.
nlohmann::json read_runtime_manifest(const std::string& dir_or_file);

}  // namespace tinyaot::cli
