// The memory protection unit, as the fuzzing sandbox uses it: regions that
// give unprivileged code access to spans of memory. With PRIVDEFENA set,
// privileged code keeps the default memory map, while an unprivileged
// access that no region grants faults (MemManage). Two MPU models:
//   v7-M (M3, M4, M7): power-of-two regions aligned to their size, each cut
//   in eight subregions that can be left out; where regions overlap the
//   highest-numbered one applies. A span is granted with the smallest such
//   region, so up to an eighth of it may be granted beyond each end.
//   v8-M (M33, M55): base and limit at 32-byte granularity; regions must
//   not overlap; no encoding gives privileged code more than unprivileged
//   code, so the sandbox turns the MPU on only while the code it runs runs
//   (sandbox_switch.S writes MPU_CTRL on the way in and out).
#pragma once

#include <stdint.h>

namespace tinyaot::fuzz {

// [begin, end) in the address space.
struct Span {
  uintptr_t begin;
  uintptr_t end;
  uint32_t bytes() const { return static_cast<uint32_t>(end - begin); }
};

// What unprivileged code may do in a region (privileged code may read and
// write it on v7-M; see above for v8-M).
enum class Access : uint8_t { kReadExecute, kRead, kReadWrite };

uint32_t mpu_region_count();
// Grants `access` to at least `span` through region `number` (normal
// memory, so unaligned accesses behave as in RAM); returns what the region
// grants in fact, which may be wider on v7-M.
Span mpu_grant(uint32_t number, Span span, Access access);
void mpu_revoke(uint32_t number);
// MPU_CTRL: the value outside the sandbox (as the board left it) and inside.
uint32_t mpu_control_outside();
constexpr uint32_t kMpuControlInside = (1u << 2) | 1u;  // PRIVDEFENA, ENABLE

}  // namespace tinyaot::fuzz
