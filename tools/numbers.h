// Number formatting shared by the CLI's tables.
#pragma once

#include <cstdint>
#include <string>

namespace tinyaot::cli {

// 1234567 -> "1,234,567".
inline std::string with_commas(uint64_t n) {
  const std::string digits = std::to_string(n);
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

}  // namespace tinyaot::cli
