// Calibration image for the instruction counter: -append "N" runs a
// 2-instruction loop N times between the markers, so the reported span
// must be 2N + k with k the same for every N.
#include <stdint.h>

#include "board.h"
#include "markers.h"
#include "semihosting.h"

extern "C" void tinyaot_spin(uint32_t iterations);

namespace {

char g_command_line[128];

uint32_t parse_iterations(const char* text) {
  while (*text != '\0' && *text != ' ') ++text;  // the firmware path
  while (*text == ' ') ++text;
  uint32_t n = 0;
  for (; *text >= '0' && *text <= '9'; ++text) n = n * 10 + static_cast<uint32_t>(*text - '0');
  return n;
}

}  // namespace

int main() {
  if (!tinyaot::semihosting::command_line(g_command_line, sizeof(g_command_line))) {
    return tinyaot::board::kExitUsage;
  }
  const uint32_t n = parse_iterations(g_command_line);
  if (n == 0) return tinyaot::board::kExitUsage;
  tinyaot_mark_start();
  tinyaot_spin(n);
  tinyaot_mark_stop();
  return 0;
}
