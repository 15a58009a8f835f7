#include "console.h"

#include <string.h>

enum {
  kSysOpen = 0x01,
  kSysClose = 0x02,
  kSysWrite = 0x05,
  kSysRead = 0x06,
  kSysFlen = 0x0c,
  kSysGetCmdline = 0x15,
  kModeReadBinary = 1,
  kModeWrite = 4,
};

static int32_t semihost(uint32_t operation, void* block) {
  register uint32_t r0 __asm__("r0") = operation;
  register void* r1 __asm__("r1") = block;
  __asm__ volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
  return (int32_t)r0;
}

static int32_t open_file(const char* path, uint32_t mode) {
  uint32_t block[3] = {(uint32_t)(uintptr_t)path, mode, (uint32_t)strlen(path)};
  return semihost(kSysOpen, block);
}

static void close_file(int32_t handle) {
  uint32_t block[1] = {(uint32_t)handle};
  semihost(kSysClose, block);
}

static void write_bytes(int32_t handle, const void* data, uint32_t bytes) {
  uint32_t block[3] = {(uint32_t)handle, (uint32_t)(uintptr_t)data, bytes};
  semihost(kSysWrite, block);
}

void console_print(const char* line) {
  static int32_t console = -1;
  if (console < 0) console = open_file(":tt", kModeWrite);
  write_bytes(console, line, (uint32_t)strlen(line));
  write_bytes(console, "\n", 1);
}

int console_command_line(char* buffer, uint32_t capacity) {
  uint32_t block[2] = {(uint32_t)(uintptr_t)buffer, capacity};
  return semihost(kSysGetCmdline, block) == 0;
}

int console_read_file(const char* path, void* buffer, uint32_t bytes) {
  const int32_t handle = open_file(path, kModeReadBinary);
  if (handle < 0) return 0;
  uint32_t length_block[1] = {(uint32_t)handle};
  const int32_t length = semihost(kSysFlen, length_block);
  uint32_t read_block[3] = {(uint32_t)handle, (uint32_t)(uintptr_t)buffer, bytes};
  const int ok = length == (int32_t)bytes && semihost(kSysRead, read_block) == 0;
  close_file(handle);
  return ok;
}
