// Arm semihosting (bkpt 0xab), the firmware's only channel to the host:
// file I/O relative to QEMU's working directory, console output, the
// command line given with -append, and the exit status.
#pragma once

#include <stdint.h>

namespace tinyaot::semihosting {

// Open modes (ISO C fopen modes in the semihosting numbering).
constexpr uint32_t kModeReadBinary = 1;   // "rb"
constexpr uint32_t kModeWrite = 4;        // "w"
constexpr uint32_t kModeWriteBinary = 5;  // "wb"

// Returns a handle, or -1.
int32_t open(const char* path, uint32_t mode);
void close(int32_t handle);
// Length of an open file, or -1.
int32_t file_length(int32_t handle);
// Both return true only when every byte was transferred.
bool read(int32_t handle, void* buffer, uint32_t bytes);
bool write(int32_t handle, const void* buffer, uint32_t bytes);
// NUL-terminated text to QEMU's stderr; usable before .data is set up.
void write0(const char* text);
// "<kernel path> <-append string>", NUL-terminated; false if it does not fit.
bool command_line(char* buffer, uint32_t capacity);

// The command line's tokens: splits in place at spaces and returns the next
// token (nullptr at the end); parses a decimal number (false if `text` is
// not one).
char* next_token(char** cursor);
bool parse_unsigned(const char* text, uint64_t* value);
// SYS_EXIT_EXTENDED: QEMU exits with `code` mod 256.
[[noreturn]] void exit(uint32_t code);

}  // namespace tinyaot::semihosting
