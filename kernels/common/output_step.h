// The step every int8 kernel that requantizes ends an output with, written
// once: bias add, requantization, output offset, clamp to the activation
// range, narrowing to int8. And the one place a kernel turns the program's
// rounding mode into a compile-time one (freestanding, header-only).
#pragma once

#include <stdint.h>

#include "kernels/common/quant.h"
#include "tinyaot/config.h"

namespace tinyaot {

struct ActivationRange {
  int32_t act_min, act_max;
};

// TFLite's clamp, max with act_min then min with act_max (with act_min <=
// act_max, checked at load, the same as any clamp; GCC 12 emits two
// compares with conditional moves, no branch), and the narrowing to int8.
// Range: anything with act_min and act_max.
template <typename Range>
inline int8_t clamp_output(int32_t value, const Range& r) {
  value = value < r.act_min ? r.act_min : value;
  value = value > r.act_max ? r.act_max : value;
  return static_cast<int8_t>(value);
}

// TFLite's integer kernels do this in plain int32 arithmetic, which wraps on
// the hardware they run on: the bias add, the left shift inside the
// requantization and the output offset add wrap here too (without C++'s
// signed-overflow UB), so a pathological accumulator or a large shift gives
// TFLite's bits, not undefined behaviour.
template <Rounding R>
inline int8_t output_step(int32_t acc, int32_t bias, int32_t multiplier, int32_t shift,
                          int32_t output_offset, int32_t act_min, int32_t act_max) {
  const int32_t scaled = requantize<R>(wrapping_add(acc, bias), multiplier, shift);
  return clamp_output(wrapping_add(scaled, output_offset), ActivationRange{act_min, act_max});
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

// A channel's requantized value plus the output offset, before the clamp,
// from an accumulator that already holds the channel's bias (a kernel may
// start its sums from the bias instead of adding it per output). Wraps
// like output_step above.
template <Rounding R>
inline int32_t output_value(uint32_t biased_acc, const ChannelQuant& q, int32_t output_offset) {
  return wrapping_add(requantize<R>(static_cast<int32_t>(biased_acc), q), output_offset);
}

// The same for a channel with a precomputed rescale (has_fast_rescale):
// the fast variants' step, no test, no general path.
template <Rounding R>
inline int32_t fast_output_value(uint32_t biased_acc, const ChannelQuant& q,
                                 int32_t output_offset) {
  return wrapping_add(requantize_fast<R>(static_cast<int32_t>(biased_acc), q), output_offset);
}

// The per-channel form: the channel's bias and precomputed rescale, the
// output offset and activation range of a parameter struct that names them
// output_offset, act_min and act_max (every weighted operator's does, and
// OutputRange). `acc` may be an unsigned sum: it is the int32
// accumulator's bits.
template <Rounding R, typename Params>
inline int8_t output_step(uint32_t acc, const ChannelQuant& q, const Params& p) {
  return clamp_output(output_value<R>(acc + static_cast<uint32_t>(q.bias), q, p.output_offset), p);
}

// The per-channel step of the fast variants (has_fast_rescale).
template <Rounding R, typename Params>
inline int8_t fast_output_step(uint32_t acc, const ChannelQuant& q, const Params& p) {
  return clamp_output(fast_output_value<R>(acc + static_cast<uint32_t>(q.bias), q, p.output_offset),
                      p);
}

// Four outputs' values (output_value: offset added, not clamped) narrowed
// to int8 and clamped to the activation range, packed into one word, byte
// i = value i, for kernels whose outputs come four at a time. On a DSP
// core: SSAT each value to int8 and BFI it into place, then both bounds on
// the four bytes at once (SSUB8 sets a GE flag per byte, SEL takes the
// bound's byte where it is exceeded): 11 instructions for four outputs
// where clamp_output takes six each (two compares, two ITs, two moves).
// The activation range lies within int8 (checked at load), so clamping
// to int8 first changes nothing.
struct PackedRange {
  uint32_t act_min4, act_max4;  // the bound in each byte
};

template <typename Range>
inline PackedRange packed_range(const Range& r) {
  return {0x01010101u * static_cast<uint8_t>(r.act_min),
          0x01010101u * static_cast<uint8_t>(r.act_max)};
}

inline uint32_t clamp_pack4(int32_t v0, int32_t v1, int32_t v2, int32_t v3, PackedRange r) {
#if defined(__ARM_FEATURE_DSP) && __ARM_FEATURE_DSP
  uint32_t word, t1, t2, t3;
  __asm__(
      "ssat %[w], #8, %[v0]\n\t"
      "ssat %[t1], #8, %[v1]\n\t"
      "ssat %[t2], #8, %[v2]\n\t"
      "ssat %[t3], #8, %[v3]\n\t"
      "bfi %[w], %[t1], #8, #8\n\t"
      "bfi %[w], %[t2], #16, #8\n\t"
      "bfi %[w], %[t3], #24, #8\n\t"
      "ssub8 %[t1], %[w], %[lo]\n\t"
      "sel %[w], %[w], %[lo]\n\t"
      "ssub8 %[t1], %[w], %[hi]\n\t"
      "sel %[w], %[hi], %[w]"
      : [w] "=&r"(word), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3)
      : [v0] "r"(v0), [v1] "r"(v1), [v2] "r"(v2), [v3] "r"(v3), [lo] "r"(r.act_min4),
        [hi] "r"(r.act_max4)
      : "cc");
  return word;
#else
  const ActivationRange range{static_cast<int8_t>(r.act_min4), static_cast<int8_t>(r.act_max4)};
  const auto byte = [&](int32_t v) {
    return static_cast<uint32_t>(static_cast<uint8_t>(clamp_output(v, range)));
  };
  return byte(v0) | byte(v1) << 8 | byte(v2) << 16 | byte(v3) << 24;
#endif
}

// Marks a kernel's loop function compiled for one rounding mode: kept out
// of line. Inlined into `run` beside its twin for the other mode, GCC 12
// allocates registers for both loop nests at once and spills inside the
// inner loops (conv2d_s8_ref on Cortex-M0: 17.3 instructions per MAC
// instead of 13.3; the 3x3 depthwise on M4: 10 per tap instead of 8). The
// call happens once per kernel call.
#define TINYAOT_MODE_LOOP __attribute__((noinline))

// Marks a function whose independent chains (a group's four output steps)
// GCC 12's first scheduling pass would interleave until they no longer fit
// the registers: it hoists every chain's loads to the top and spills (the
// depthwise group's four steps: about 85 instructions instead of about 60).
#if defined(__GNUC__) && !defined(__clang__)
#define TINYAOT_NO_SCHEDULE __attribute__((optimize("no-schedule-insns")))
#else
#define TINYAOT_NO_SCHEDULE
#endif

// A rounding mode as a type, so a kernel's loop can take it as an argument
// and be compiled once per mode.
template <Rounding R>
struct RoundingMode {
  static constexpr Rounding value = R;
};

// Calls body(RoundingMode<R>{}) for the program's mode: the kernel branches
// on the mode once per call, its loop (a generic lambda or a template) is
// compiled for each mode with no branch inside. For a kernel with TFLite's
// modes only: a program in mode onnx never runs it (the compiler never
// picks it, the loader refuses it: kernels/onnx_kernels.h).
// A build for one mode (TINYAOT_ROUNDING_ONLY, tinyaot/config.h) compiles
// only that one; its loader refuses programs in another. An onnx-only
// build compiles such a kernel in mode tflm, which it never runs.
template <typename Body>
inline auto with_rounding(Rounding rounding, Body&& body) {
#if defined(TINYAOT_ROUNDING_ONLY)
  (void)rounding;
  constexpr Rounding kOnly = static_cast<Rounding>(TINYAOT_ROUNDING_ONLY);
  return body(RoundingMode < kOnly == Rounding::kOnnx ? Rounding::kDouble : kOnly > {});
#else
  if (rounding == Rounding::kSingle) return body(RoundingMode<Rounding::kSingle>{});
  return body(RoundingMode<Rounding::kDouble>{});
#endif
}

// The same for a kernel with the onnx mode too (kernels/onnx_kernels.h).
template <typename Body>
inline auto with_any_rounding(Rounding rounding, Body&& body) {
#if defined(TINYAOT_ROUNDING_ONLY)
  (void)rounding;
  return body(RoundingMode<static_cast<Rounding>(TINYAOT_ROUNDING_ONLY)>{});
#else
  if (rounding == Rounding::kOnnx) return body(RoundingMode<Rounding::kOnnx>{});
  return with_rounding(rounding, static_cast<Body&&>(body));
#endif
}

}  // namespace tinyaot
