#include "sandbox.h"

extern "C" {
extern const uint32_t tinyaot_sandbox_vectors[];
// The firmware's code and read-only data: the vector table up to the
// initial values of .data (sections.ld).
extern uint8_t __vectors_start[];
extern uint8_t __data_load[];
extern uint8_t __data_start[];
extern uint8_t __bss_end[];

uint32_t tinyaot_sandbox_enter(tinyaot::fuzz::SandboxFunction function, void* argument,
                               uintptr_t stack_top);
uint32_t tinyaot_sandbox_event(uint32_t ipsr, const uint32_t* frame);

// Shared with sandbox_switch.S.
uint32_t tinyaot_sandbox_saved_msp;
uint32_t tinyaot_sandbox_mpu_inside = tinyaot::fuzz::kMpuControlInside;
uint32_t tinyaot_sandbox_mpu_outside;
}

namespace tinyaot::fuzz {
namespace {

volatile uint32_t& reg(uint32_t address) { return *reinterpret_cast<volatile uint32_t*>(address); }

constexpr uint32_t kIcsr = 0xe000ed04;
constexpr uint32_t kVtor = 0xe000ed08;
constexpr uint32_t kCfsr = 0xe000ed28;
constexpr uint32_t kHfsr = 0xe000ed2c;
constexpr uint32_t kMmfar = 0xe000ed34;
constexpr uint32_t kBfar = 0xe000ed38;
constexpr uint32_t kFpccr = 0xe000ef34;
constexpr uint32_t kSystCsr = 0xe000e010;
constexpr uint32_t kSystRvr = 0xe000e014;
constexpr uint32_t kSystCvr = 0xe000e018;
constexpr uint32_t kPeriodClocks = 1u << 18;

constexpr uint32_t kExceptionSvc = 11;
constexpr uint32_t kExceptionSysTick = 15;
// CFSR bits saying the exception frame was not (fully) stacked: MSTKERR,
// STKERR, and v8-M's STKOF (the stack limit stopped the stacking).
constexpr uint32_t kStackingFaults = (1u << 4) | (1u << 12) | (1u << 20);
constexpr uint32_t kUndefinedInstruction = 1u << 16;  // CFSR.UNDEFINSTR

// MPU region numbers (v7-M boards keep their stack guard in the highest).
enum Region : uint32_t { kCode, kStatics, kOwnBlock, kReadOnly, kReadWrite, kRegionsUsed };

Span g_own_block;
uintptr_t g_stack_top;
uint32_t g_budget_periods;
uint32_t g_periods;
uint32_t g_result;
FaultReport g_fault;
SandboxSpans g_granted;

void start_timer() {
  g_periods = 0;
  reg(kSystRvr) = kPeriodClocks - 1;
  reg(kSystCvr) = 0;
  reg(kSystCsr) = 7;  // enable, interrupt, core clock
}

void stop_timer() {
  reg(kSystCsr) = 0;
  reg(kIcsr) = 1u << 25;  // PENDSTCLR
}

// UDF #imm8 (T1 encoding, 0xdeXX): GCC's __builtin_trap is udf #255,
// clang's udf #254. Read only inside the firmware's code.
bool is_trap_instruction(uint32_t pc) {
  const auto begin = reinterpret_cast<uintptr_t>(__vectors_start);
  const auto end = reinterpret_cast<uintptr_t>(__data_load);
  if (pc < begin || pc + 2 > end || pc % 2 != 0) return false;
  return (*reinterpret_cast<const uint16_t*>(pc) & 0xff00u) == 0xde00u;
}

bool frame_readable(const uint32_t* frame) {
  const auto at = reinterpret_cast<uintptr_t>(frame);
  return at >= g_own_block.begin && at + 32 <= g_stack_top && at % 4 == 0;
}

uint32_t record_fault(uint32_t exception, const uint32_t* frame) {
  const uint32_t cfsr = reg(kCfsr);
  g_fault.exception = exception;
  g_fault.cfsr = cfsr;
  g_fault.hfsr = reg(kHfsr);
  g_fault.mmfar = reg(kMmfar);
  g_fault.bfar = reg(kBfar);
  g_fault.frame_read = (cfsr & kStackingFaults) == 0 && frame_readable(frame);
  g_fault.pc = g_fault.frame_read ? frame[6] : 0;
  g_fault.lr = g_fault.frame_read ? frame[5] : 0;
  g_fault.trap =
      g_fault.frame_read && (cfsr & kUndefinedInstruction) != 0 && is_trap_instruction(g_fault.pc);
  reg(kCfsr) = cfsr;  // write-one-to-clear, ready for the next call
  reg(kHfsr) = g_fault.hfsr;
  return static_cast<uint32_t>(SandboxExit::kFault);
}

Span empty_span() { return {0, 0}; }

Span grant_or_revoke(uint32_t region, Span span, Access access) {
  if (span.end <= span.begin) {
    mpu_revoke(region);
    return empty_span();
  }
  return mpu_grant(region, span, access);
}

}  // namespace

bool sandbox_init(Span own_block, uintptr_t stack_top, uint32_t budget_periods) {
#if defined(__ARM_ARCH_8M_MAIN__) || defined(__ARM_ARCH_8_1M_MAIN__)
  const uint32_t needed = kRegionsUsed;
#else
  const uint32_t needed = kRegionsUsed + 1;  // and the board's stack guard above them
#endif
  if (mpu_region_count() < needed) return false;
  g_own_block = own_block;
  g_stack_top = stack_top;
  g_budget_periods = budget_periods;
  tinyaot_sandbox_mpu_outside = mpu_control_outside();
#if defined(__ARM_FP) || defined(__ARM_FEATURE_MVE)
  reg(kFpccr) &= ~(1u << 30);  // LSPEN off: no lazy state left behind a left call
#endif
  reg(kVtor) = reinterpret_cast<uintptr_t>(tinyaot_sandbox_vectors);
  asm volatile("dsb\n isb" ::: "memory");
  mpu_grant(
      kCode,
      {reinterpret_cast<uintptr_t>(__vectors_start), reinterpret_cast<uintptr_t>(__data_load)},
      Access::kReadExecute);
  mpu_grant(kStatics,
            {reinterpret_cast<uintptr_t>(__data_start), reinterpret_cast<uintptr_t>(__bss_end)},
            Access::kRead);
  mpu_grant(kOwnBlock, own_block, Access::kReadWrite);
  return true;
}

SandboxExit sandbox_call(SandboxFunction function, void* argument, const SandboxSpans& spans,
                         uint32_t* result, FaultReport* fault) {
  g_granted.read_only = grant_or_revoke(kReadOnly, spans.read_only, Access::kRead);
  g_granted.read_write = grant_or_revoke(kReadWrite, spans.read_write, Access::kReadWrite);
#if defined(__ARM_ARCH_8M_MAIN__) || defined(__ARM_ARCH_8_1M_MAIN__)
  asm volatile("msr psplim, %0" ::"r"(g_own_block.begin));
#endif
  g_result = 0;
  g_fault = FaultReport();
  start_timer();
  const uint32_t exit = tinyaot_sandbox_enter(function, argument, g_stack_top);
  stop_timer();
  *result = g_result;
  *fault = g_fault;
  return static_cast<SandboxExit>(exit);
}

SandboxSpans sandbox_granted() { return g_granted; }

}  // namespace tinyaot::fuzz

using namespace tinyaot::fuzz;

// Called by tinyaot_sandbox_exception for every exception taken from the
// sandbox, privileged, with the MPU as outside the sandbox.
uint32_t tinyaot_sandbox_event(uint32_t ipsr, const uint32_t* frame) {
  const uint32_t exception = ipsr & 0x1ffu;
  if (exception == kExceptionSysTick) {
    if (++g_periods < g_budget_periods) return 0;
    stop_timer();
    return static_cast<uint32_t>(SandboxExit::kTimeout);
  }
  stop_timer();
  if (exception == kExceptionSvc && frame_readable(frame)) {
    g_result = frame[0];
    return static_cast<uint32_t>(SandboxExit::kReturned);
  }
  return record_fault(exception, frame);
}
