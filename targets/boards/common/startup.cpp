// C++ half of the startup: CPU check, C runtime set-up, main, exit, and
// the fault report. The assembly half (startup.S) has already enabled the
// FPU/MVE, set MSPLIM and painted the stack.
#include <stdint.h>

#include "board.h"
#include "semihosting.h"
#include "text.h"

#ifndef TINYAOT_BOARD_CPU_PARTNO
#error "the board's CMake sets TINYAOT_BOARD_CPU_PARTNO"
#endif

extern "C" {
extern uint32_t __data_load[];
extern uint32_t __data_start[];
extern uint32_t __data_end[];
extern uint32_t __bss_start[];
extern uint32_t __bss_end[];
extern uint32_t __stack_limit[];
extern uint32_t __stack_top[];
extern uint8_t __stack_guard_start[];
extern uint8_t __tinyaot_ram_free_start[];
extern uint8_t __tinyaot_ram_free_end[];
extern uint8_t __tinyaot_big_start[];
extern uint8_t __tinyaot_big_end[];
using InitFunction = void (*)();
extern InitFunction __preinit_array_start[];
extern InitFunction __preinit_array_end[];
extern InitFunction __init_array_start[];
extern InitFunction __init_array_end[];

int main();
[[noreturn]] void tinyaot_board_start();
[[noreturn]] void tinyaot_fault_report(uint32_t pc, uint32_t lr, uint32_t exc_return,
                                       uint32_t ipsr);
// Where the exception frame was (written by Fault_Handler in startup.S).
uint32_t tinyaot_fault_frame;
}

namespace tinyaot::board {
namespace {

constexpr uint32_t kStackPattern = 0x5ac5a5c3;  // STACK_PAINT in startup.S

#if !defined(__ARM_ARCH_6M__)
#define TINYAOT_HAS_FAULT_STATUS 1
#endif

volatile uint32_t& reg(uint32_t address) { return *reinterpret_cast<volatile uint32_t*>(address); }

constexpr uint32_t kCpuid = 0xe000ed00;
#if defined(TINYAOT_HAS_FAULT_STATUS)
constexpr uint32_t kCcr = 0xe000ed14;
constexpr uint32_t kShcsr = 0xe000ed24;
constexpr uint32_t kCfsr = 0xe000ed28;
constexpr uint32_t kHfsr = 0xe000ed2c;
constexpr uint32_t kMmfar = 0xe000ed34;
constexpr uint32_t kBfar = 0xe000ed38;
#endif

int32_t g_console = -1;

// QEMU's netduino2 accepts -cpu cortex-m0 but runs an M3: refuse to
// produce numbers on a core other than the one this image was built for.
void check_cpu() {
  const uint32_t cpuid = reg(kCpuid);
  const uint32_t part = (cpuid >> 4) & 0xfff;
  if (part == TINYAOT_BOARD_CPU_PARTNO) return;
  Line line;
  line.text("tinyaot-board: CPUID ")
      .hex(cpuid)
      .text(" has part number ")
      .hex(part)
      .text(", this image is built for ")
      .hex(TINYAOT_BOARD_CPU_PARTNO)
      .text("\n");
  semihosting::write0(line.c_str());
  semihosting::exit(kExitWrongCpu);
}

// v7-M has no stack limit register: an MPU region without access rights
// below the stack turns an overflow into a MemManage fault. The rest of
// the map stays the default one (PRIVDEFENA). It takes the highest region
// number, which wins where regions overlap, so regions a firmware adds
// (targets/fuzz/) never lift it.
void guard_stack() {
#if defined(__ARM_ARCH_7M__) || defined(__ARM_ARCH_7EM__)
  constexpr uint32_t kMpuType = 0xe000ed90, kMpuCtrl = 0xe000ed94, kMpuRnr = 0xe000ed98,
                     kMpuRbar = 0xe000ed9c, kMpuRasr = 0xe000eda0;
  const uint32_t guard = reinterpret_cast<uintptr_t>(__stack_guard_start);
  const uint32_t bytes = reinterpret_cast<uintptr_t>(__stack_limit) - guard;
  const uint32_t regions = (reg(kMpuType) >> 8) & 0xffu;
  if (regions == 0 || bytes < 32 || (bytes & (bytes - 1)) != 0 || guard % bytes != 0) return;
  uint32_t size_field = 0;
  while ((2u << size_field) < bytes) ++size_field;  // region size is 2^(SIZE+1)
  reg(kMpuRnr) = regions - 1;
  reg(kMpuRbar) = guard;
  reg(kMpuRasr) = (1u << 28) | (size_field << 1) | 1u;  // XN, AP = no access, enabled
  reg(kMpuCtrl) = (1u << 2) | 1u;                       // PRIVDEFENA, ENABLE
  asm volatile("dsb\n isb" ::: "memory");
#endif
}

void enable_fault_reporting() {
#if defined(TINYAOT_HAS_FAULT_STATUS)
  // MemManage, BusFault, UsageFault (and SecureFault on v8-M) report as
  // themselves rather than as an escalated HardFault.
  uint32_t enable = (1u << 16) | (1u << 17) | (1u << 18);
#if defined(__ARM_ARCH_8M_MAIN__)
  enable |= 1u << 19;
#endif
  reg(kShcsr) |= enable;
  reg(kCcr) |= 1u << 4;  // DIV_0_TRP: a division by zero is a bug, not 0
#endif
}

// Separate and not inlined: nothing in here may be hoisted above the FPU
// enable in startup.S, and the loops must see the final section symbols.
[[gnu::noinline]] void init_memory() {
  const uint32_t* from = __data_load;
  for (uint32_t* to = __data_start; to < __data_end;) *to++ = *from++;
  for (uint32_t* to = __bss_start; to < __bss_end;) *to++ = 0;
  for (InitFunction* f = __preinit_array_start; f < __preinit_array_end; ++f) (*f)();
  for (InitFunction* f = __init_array_start; f < __init_array_end; ++f) (*f)();
}

}  // namespace

const char* exception_name(uint32_t number) {
  switch (number) {
    case 2:
      return "NMI";
    case 3:
      return "HardFault";
    case 4:
      return "MemManage";
    case 5:
      return "BusFault";
    case 6:
      return "UsageFault";
    case 7:
      return "SecureFault";
    case 11:
      return "SVCall";
    case 12:
      return "DebugMonitor";
    case 14:
      return "PendSV";
    case 15:
      return "SysTick";
    default:
      return number >= 16 ? "IRQ" : "reserved exception";
  }
}

void print(const char* line) {
  if (g_console < 0) g_console = semihosting::open(":tt", semihosting::kModeWrite);
  if (g_console < 0) {
    semihosting::write0(line);
    semihosting::write0("\n");
    return;
  }
  uint32_t length = 0;
  while (line[length] != '\0') ++length;
  semihosting::write(g_console, line, length);
  semihosting::write(g_console, "\n", 1);
}

uint32_t stack_high_water_bytes() {
  const uint32_t* word = __stack_limit;
  while (word < __stack_top && *word == kStackPattern) ++word;
  return static_cast<uint32_t>(reinterpret_cast<uintptr_t>(__stack_top) -
                               reinterpret_cast<uintptr_t>(word));
}

Region ram_free_region() { return {__tinyaot_ram_free_start, __tinyaot_ram_free_end}; }
Region big_region() { return {__tinyaot_big_start, __tinyaot_big_end}; }

}  // namespace tinyaot::board

using namespace tinyaot;

void tinyaot_board_start() {
  board::check_cpu();
  board::enable_fault_reporting();
  board::guard_stack();
  board::init_memory();
  const int code = main();
  const uint32_t used = board::stack_high_water_bytes();
  board::Line line;
  board::print(line.text("tinyaot-stack-bytes: ").dec(used).c_str());
  const uint32_t size = static_cast<uint32_t>(reinterpret_cast<uintptr_t>(__stack_top) -
                                              reinterpret_cast<uintptr_t>(__stack_limit));
  if (used >= size) {
    board::print("tinyaot-board: the stack was used up (overflow likely)");
    semihosting::exit(board::kExitStackOverflow);
  }
  semihosting::exit(static_cast<uint32_t>(code));
}

void tinyaot_fault_report(uint32_t pc, uint32_t lr, uint32_t exc_return, uint32_t ipsr) {
  const uint32_t number = ipsr & 0x1ff;
  // The frame below the stack region, or a v8-M stack-limit fault (STKOF).
  bool overflow = tinyaot_fault_frame < reinterpret_cast<uintptr_t>(__stack_limit);
#if defined(TINYAOT_HAS_FAULT_STATUS) && defined(__ARM_ARCH_8M_MAIN__)
  overflow = overflow || (board::reg(board::kCfsr) & (1u << 20)) != 0;
#endif
  board::Line line;
  line.text(overflow ? "tinyaot-fault: stack overflow: " : "tinyaot-fault: ")
      .text(board::exception_name(number))
      .text(" (exception ")
      .dec(number)
      .text(")");
  // After an overflow the frame was not stacked (or not where it can be read).
  if (!overflow) line.text(" pc=").hex(pc).text(" lr=").hex(lr);
  line.text(" sp=").hex(tinyaot_fault_frame).text(" exc_return=").hex(exc_return);
#if defined(TINYAOT_HAS_FAULT_STATUS)
  line.text(" cfsr=")
      .hex(board::reg(board::kCfsr))
      .text(" hfsr=")
      .hex(board::reg(board::kHfsr))
      .text(" mmfar=")
      .hex(board::reg(board::kMmfar))
      .text(" bfar=")
      .hex(board::reg(board::kBfar));
#endif
  line.text("\n");
  semihosting::write0(line.c_str());
  semihosting::exit(overflow ? board::kExitStackOverflow : board::kExitFault);
}
