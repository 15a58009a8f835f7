// Reports on a compiled program: a table a person reads at a glance, JSON
// for tools, and an SVG picture of the arena over time.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace tinyaot {

// Validates the program with the runtime's loader, then describes it.
// Throws CompileError when the program does not load.
nlohmann::json program_report(const std::vector<uint8_t>& program);
std::string report_text(const nlohmann::json& report);
std::string report_svg(const nlohmann::json& report);

}  // namespace tinyaot
