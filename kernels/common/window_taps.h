// The taps of a window axis that land inside the input, for the kernels
// that clip each output pixel's window once instead of bounds-checking
// every tap (freestanding, header-only).
#pragma once

#include <stdint.h>

namespace tinyaot {

// ceil(n / d) in 32 bits (no 64-bit division, a library call on these cores).
inline uint32_t divide_up(uint32_t n, uint32_t d) { return n / d + (n % d != 0 ? 1 : 0); }

// The run of one axis.
struct TapRange {
  int32_t first, count;  // taps [first, first + count)
  int32_t origin;        // input coordinate of the first of them
};

// Taps k of an axis whose input coordinate origin + k * dilation lands
// inside [0, size). The loader's window checks keep origin at or above
// -INT32_MAX, so both distances fit uint32. Without dilation no division
// (a library call on Cortex-M0).
inline TapRange tap_range(int32_t origin, int32_t size, int32_t filter, int32_t dilation) {
  const uint32_t d = static_cast<uint32_t>(dilation);
  const uint32_t before = origin < 0 ? 0u - static_cast<uint32_t>(origin) : 0u;
  const uint32_t room = origin < size ? static_cast<uint32_t>(size) - static_cast<uint32_t>(origin)
                                      : 0u;  // input from origin to the end
  const uint32_t lo = d == 1 ? before : divide_up(before, d);
  const uint32_t hi = d == 1 ? room : divide_up(room, d);
  const uint32_t taps = static_cast<uint32_t>(filter);
  TapRange r;
  r.first = static_cast<int32_t>(lo < taps ? lo : taps);
  const int32_t last = static_cast<int32_t>(hi < taps ? hi : taps);
  r.count = last > r.first ? last - r.first : 0;
  r.origin = origin + r.first * dilation;
  return r;
}

}  // namespace tinyaot
