#include "mpu.h"

namespace tinyaot::fuzz {
namespace {

volatile uint32_t& reg(uint32_t address) { return *reinterpret_cast<volatile uint32_t*>(address); }

constexpr uint32_t kMpuType = 0xe000ed90;
constexpr uint32_t kMpuCtrl = 0xe000ed94;
constexpr uint32_t kMpuRnr = 0xe000ed98;
constexpr uint32_t kMpuRbar = 0xe000ed9c;
constexpr uint32_t kMpuRasr = 0xe000eda0;  // v7-M; RLAR on v8-M

void barrier() { asm volatile("dsb\n isb" ::: "memory"); }

#if defined(__ARM_ARCH_8M_MAIN__) || defined(__ARM_ARCH_8_1M_MAIN__)

constexpr uint32_t kMpuMair0 = 0xe000edc0;

// Attribute 0 of MAIR0: normal memory, non-cacheable (device memory, the
// reset value 0, would fault on the unaligned accesses kernels make).
constexpr uint32_t kNormalMemory = 0x44;

Span grant(uint32_t number, Span span, Access access) {
  const uint32_t base = static_cast<uint32_t>(span.begin) & ~31u;
  const uint32_t end = (static_cast<uint32_t>(span.end) + 31u) & ~31u;
  // AP[2:1]: 01 read-write, 11 read-only, both at any privilege level.
  const uint32_t ap = access == Access::kReadWrite ? 1u : 3u;
  const uint32_t execute_never = access == Access::kReadExecute ? 0u : 1u;
  reg(kMpuMair0) = (reg(kMpuMair0) & ~0xffu) | kNormalMemory;
  reg(kMpuRnr) = number;
  reg(kMpuRbar) = base | (ap << 1) | execute_never;
  reg(kMpuRasr) = ((end - 1u) & ~31u) | 1u;  // limit, attribute 0, enabled
  barrier();
  return {base, end};
}

#else  // v7-M

Span grant(uint32_t number, Span span, Access access) {
  const uint32_t begin = static_cast<uint32_t>(span.begin);
  const uint32_t last = static_cast<uint32_t>(span.end) - 1u;
  // The smallest aligned power-of-two block holding the span (32 bytes at least).
  uint32_t size_log2 = 5;
  while (size_log2 < 32 && (begin >> size_log2) != (last >> size_log2)) ++size_log2;
  const uint32_t size = size_log2 == 32 ? 0u : 1u << size_log2;
  const uint32_t base = size == 0 ? 0u : begin & ~(size - 1u);
  // Leave out the subregions (an eighth each, in regions of 256 bytes or
  // more) outside the span.
  uint32_t disabled = 0;
  Span granted{base, base + size};
  if (size_log2 >= 8) {
    const uint32_t sub = size / 8;
    const uint32_t first = (begin - base) / sub;
    const uint32_t count = (last - base) / sub - first + 1;
    disabled = 0xffu & ~(((1u << count) - 1u) << first);
    granted = {base + first * sub, base + (first + count) * sub};
  }
  // AP: 010 unprivileged read-only, 011 read-write (privileged read-write
  // in both); TEX=001 C=0 B=0: normal memory, non-cacheable.
  const uint32_t ap = access == Access::kReadWrite ? 3u : 2u;
  const uint32_t execute_never = access == Access::kReadExecute ? 0u : 1u;
  reg(kMpuRnr) = number;
  reg(kMpuRbar) = base;
  reg(kMpuRasr) = (execute_never << 28) | (ap << 24) | (1u << 19) | (disabled << 8) |
                  ((size_log2 - 1u) << 1) | 1u;
  barrier();
  return granted;
}

#endif

}  // namespace

uint32_t mpu_region_count() { return (reg(kMpuType) >> 8) & 0xffu; }

Span mpu_grant(uint32_t number, Span span, Access access) { return grant(number, span, access); }

void mpu_revoke(uint32_t number) {
  reg(kMpuRnr) = number;
  reg(kMpuRasr) = 0;
  barrier();
}

uint32_t mpu_control_outside() { return reg(kMpuCtrl); }

}  // namespace tinyaot::fuzz
