// Checks that a crash becomes a failed run, not a hang:
//   -append "fault"     executes an undefined instruction   -> exit 0xfa
//   -append "overflow"  recurses through the whole stack     -> exit 0xfb
//   -append "ok"        returns normally                     -> exit 0
#include <string.h>

#include "board.h"
#include "semihosting.h"

namespace {

char g_command_line[128];
volatile uint32_t g_depth_limit = 0xffffffffu;  // never reached; keeps the recursion finite to GCC

// Each frame keeps a live buffer so the recursion really consumes stack.
[[gnu::noinline]] uint32_t recurse(uint32_t depth) {
  volatile uint8_t frame[256];
  if (depth == g_depth_limit) return 0;
  frame[depth % sizeof(frame)] = static_cast<uint8_t>(depth);
  return frame[0] + recurse(depth + 1) + frame[depth % sizeof(frame)];
}

}  // namespace

int main() {
  if (!tinyaot::semihosting::command_line(g_command_line, sizeof(g_command_line))) {
    return tinyaot::board::kExitUsage;
  }
  const char* mode = strchr(g_command_line, ' ');
  mode = mode == nullptr ? "" : mode + 1;
  if (strcmp(mode, "fault") == 0) asm volatile("udf #0");
  if (strcmp(mode, "overflow") == 0) return static_cast<int>(recurse(0));
  return strcmp(mode, "ok") == 0 ? 0 : static_cast<int>(tinyaot::board::kExitUsage);
}
