#include "semihosting.h"

namespace tinyaot::semihosting {
namespace {

enum Operation : uint32_t {
  kSysOpen = 0x01,
  kSysClose = 0x02,
  kSysWrite0 = 0x04,
  kSysWrite = 0x05,
  kSysRead = 0x06,
  kSysFlen = 0x0c,
  kSysGetCmdline = 0x15,
  kSysExitExtended = 0x20,
};

// ADP_Stopped_ApplicationExit: the reason under which QEMU passes the
// code through (plain SYS_EXIT only reports 0 or 1 on AArch32).
constexpr uint32_t kApplicationExit = 0x20026;

uint32_t call(uint32_t operation, const void* argument) {
  register uint32_t r0 asm("r0") = operation;
  register const void* r1 asm("r1") = argument;
  asm volatile(
      ".syntax unified\n"
      "bkpt 0xab"
      : "+r"(r0)
      : "r"(r1)
      : "memory");
  return r0;
}

uint32_t length_of(const char* text) {
  uint32_t n = 0;
  while (text[n] != '\0') ++n;
  return n;
}

}  // namespace

int32_t open(const char* path, uint32_t mode) {
  const uint32_t block[3] = {reinterpret_cast<uint32_t>(path), mode, length_of(path)};
  return static_cast<int32_t>(call(kSysOpen, block));
}

void close(int32_t handle) {
  const uint32_t block[1] = {static_cast<uint32_t>(handle)};
  call(kSysClose, block);
}

int32_t file_length(int32_t handle) {
  const uint32_t block[1] = {static_cast<uint32_t>(handle)};
  return static_cast<int32_t>(call(kSysFlen, block));
}

// SYS_READ and SYS_WRITE return the number of bytes NOT transferred.
bool read(int32_t handle, void* buffer, uint32_t bytes) {
  const uint32_t block[3] = {static_cast<uint32_t>(handle), reinterpret_cast<uint32_t>(buffer),
                             bytes};
  return call(kSysRead, block) == 0;
}

bool write(int32_t handle, const void* buffer, uint32_t bytes) {
  const uint32_t block[3] = {static_cast<uint32_t>(handle), reinterpret_cast<uint32_t>(buffer),
                             bytes};
  return call(kSysWrite, block) == 0;
}

void write0(const char* text) { call(kSysWrite0, text); }

bool command_line(char* buffer, uint32_t capacity) {
  if (capacity == 0) return false;
  uint32_t block[2] = {reinterpret_cast<uint32_t>(buffer), capacity};
  if (call(kSysGetCmdline, block) != 0) return false;
  buffer[block[1] < capacity ? block[1] : capacity - 1] = '\0';
  return true;
}

void exit(uint32_t code) {
  const uint32_t block[2] = {kApplicationExit, code};
  for (;;) call(kSysExitExtended, block);
}

char* next_token(char** cursor) {
  char* p = *cursor;
  while (*p == ' ') ++p;
  if (*p == '\0') return nullptr;
  char* token = p;
  while (*p != '\0' && *p != ' ') ++p;
  if (*p == ' ') *p++ = '\0';
  *cursor = p;
  return token;
}

bool parse_unsigned(const char* text, uint64_t* value) {
  if (text == nullptr || *text == '\0') return false;
  uint64_t v = 0;
  for (; *text != '\0'; ++text) {
    if (*text < '0' || *text > '9') return false;
    v = v * 10 + static_cast<uint64_t>(*text - '0');
  }
  *value = v;
  return true;
}

}  // namespace tinyaot::semihosting
