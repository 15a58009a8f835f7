/* A user's firmware: runs the exported keyword-spotting model (kws.h) on
 * each input file named on the command line and prints its scores. */
#include <stdint.h>
#include <string.h>

#include "console.h"
#include "kws.h"

/* The arena: planned by the compiler, placed by us (here plain .bss in
 * RAM; a section attribute would put it in a given RAM bank). */
static uint8_t arena[KWS_ARENA_BYTES] __attribute__((aligned(KWS_ARENA_ALIGNMENT)));

static void print_hex(const char* label, const uint8_t* bytes, uint32_t count) {
  static const char digits[] = "0123456789abcdef";
  char line[64 + 2 * KWS_OUTPUT0_BYTES];
  uint32_t n = (uint32_t)strlen(label);
  memcpy(line, label, n);
  for (uint32_t i = 0; i < count && n + 3 < sizeof(line); ++i) {
    line[n++] = digits[bytes[i] >> 4];
    line[n++] = digits[bytes[i] & 15];
  }
  line[n] = '\0';
  console_print(line);
}

static void print_status(const char* what, int status) {
  char line[160] = {0};
  strncat(line, what, sizeof(line) - 1);
  strncat(line, ": ", sizeof(line) - 1 - strlen(line));
  strncat(line, kws_status_text(status), sizeof(line) - 1 - strlen(line));
  console_print(line);
}

int main(void) {
  kws_set_log_hook(console_print);
  int status = kws_init();
  if (status != KWS_OK) {
    print_status("kws_init", status);
    return status;
  }
  static char command[1024];
  if (!console_command_line(command, sizeof(command))) return 0xe1;
  /* Words separated by spaces; the first is the kernel's own path. */
  char* cursor = command;
  for (int word = 0;; ++word) {
    while (*cursor == ' ') ++cursor;
    if (*cursor == '\0') break;
    char* path = cursor;
    while (*cursor != ' ' && *cursor != '\0') ++cursor;
    if (*cursor == ' ') *cursor++ = '\0';
    if (word == 0) continue;
    if (!console_read_file(path, kws_input(arena, 0), KWS_INPUT0_BYTES)) {
      console_print("cannot read an input file of KWS_INPUT0_BYTES bytes");
      return 0xe2;
    }
    status = kws_invoke(arena);
    if (status != KWS_OK) {
      print_status("kws_invoke", status);
      return status;
    }
    print_hex("output 0: ", (const uint8_t*)kws_output(arena, 0), KWS_OUTPUT0_BYTES);
  }
  return 0;
}
