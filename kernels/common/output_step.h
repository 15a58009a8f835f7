// The step every int8 kernel that requantizes ends an output with, written
// once: bias add, requantization, output offset, clamp to the activation
// range, narrowing to int8. And the one place a kernel turns the program's
// rounding mode into a compile-time one (freestanding, header-only).
#pragma once

#include <stdint.h>

#include "kernels/common/quant.h"

namespace tinyaot {

// TFLite's integer kernels do this in plain int32 arithmetic, which wraps on
// the hardware they run on: the bias add, the left shift inside the
// requantization and the output offset add wrap here too (without C++'s
// signed-overflow UB), so a pathological accumulator or a large shift gives
// TFLite's bits, not undefined behaviour.
template <Rounding R>
inline int8_t output_step(int32_t acc, int32_t bias, int32_t multiplier, int32_t shift,
                          int32_t output_offset, int32_t act_min, int32_t act_max) {
  const int32_t scaled = requantize<R>(wrapping_add(acc, bias), multiplier, shift);
  // TFLite's order, max with act_min then min with act_max: with act_min
  // <= act_max (checked at load) the same as any clamp, and GCC 12 emits
  // it as two compares with conditional moves, no branch.
  int32_t value = wrapping_add(scaled, output_offset);
  value = value < act_min ? act_min : value;
  value = value > act_max ? act_max : value;
  return static_cast<int8_t>(value);
}

// The per-channel form: the channel's bias and rescale, the output offset
// and activation range of a parameter struct that names them output_offset,
// act_min and act_max (every weighted operator's does). `acc` may be an
// unsigned sum: it is the int32 accumulator's bits.
template <Rounding R, typename Params>
inline int8_t output_step(uint32_t acc, const ChannelQuant& q, const Params& p) {
  return output_step<R>(static_cast<int32_t>(acc), q.bias, q.multiplier, q.shift, p.output_offset,
                        p.act_min, p.act_max);
}

// The output offset and activation range, for a kernel to copy into locals
// before its loop: a store through int8_t* may alias any object as far as
// the compiler knows, so read through the parameter struct they are
// reloaded after every output (an LDRD and an LDR per output on M4).
struct OutputRange {
  int32_t output_offset, act_min, act_max;
};

template <typename Params>
inline OutputRange output_range(const Params& p) {
  return {p.output_offset, p.act_min, p.act_max};
}

// Marks a kernel's loop function compiled for one rounding mode: kept out
// of line. Inlined into `run` beside its twin for the other mode, GCC 12
// allocates registers for both loop nests at once and spills inside the
// inner loops (conv2d_s8_ref on Cortex-M0: 17.3 instructions per MAC
// instead of 13.3; the 3x3 depthwise on M4: 10 per tap instead of 8). The
// call happens once per kernel call.
#define TINYAOT_MODE_LOOP __attribute__((noinline))

// A rounding mode as a type, so a kernel's loop can take it as an argument
// and be compiled once per mode.
template <Rounding R>
struct RoundingMode {
  static constexpr Rounding value = R;
};

// Calls body(RoundingMode<R>{}) for the program's mode: the kernel branches
// on the mode once per call, its loop (a generic lambda or a template) is
// compiled for each mode with no branch inside.
template <typename Body>
inline auto with_rounding(Rounding rounding, Body&& body) {
  if (rounding == Rounding::kSingle) return body(RoundingMode<Rounding::kSingle>{});
  return body(RoundingMode<Rounding::kDouble>{});
}

}  // namespace tinyaot
