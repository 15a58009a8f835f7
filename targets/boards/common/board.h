// What the startup code offers the firmware above it.
#pragma once

#include <stdint.h>

namespace tinyaot::board {

// Exit codes of the firmware (QEMU's exit status). Runtime status codes
// (tinyaot::Status, small numbers) are passed through unchanged.
constexpr uint32_t kExitUsage = 0xe1;          // bad -append command line
constexpr uint32_t kExitFile = 0xe2;           // a file could not be read or written
constexpr uint32_t kExitNoFit = 0xe3;          // program or arena larger than its region
constexpr uint32_t kExitFault = 0xfa;          // a fault handler ran
constexpr uint32_t kExitStackOverflow = 0xfb;  // stack overflow (fault or paint used up)
constexpr uint32_t kExitWrongCpu = 0xfc;       // CPUID is not the core built for

// A line on QEMU's stdout (semihosting ":tt"), newline appended.
void print(const char* line);

// "HardFault", "MemManage", ... for an exception number (IPSR).
const char* exception_name(uint32_t number);

// Largest stack depth reached so far, from the paint left at reset.
uint32_t stack_high_water_bytes();

// Linker-defined regions (see sections.ld).
struct Region {
  uint8_t* begin;
  uint8_t* end;
};
Region ram_free_region();  // RAM after .bss
Region big_region();       // may equal ram_free_region() (microbit)

}  // namespace tinyaot::board
