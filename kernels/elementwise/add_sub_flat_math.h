// The per-element arithmetic of the flat ADD / SUB variants: TFLite's
// input rescale and output requantization (quant.h's requantize in the
// program's rounding mode), rewritten for the operands ADD actually has so
// that no general 64-bit shift and no branch remain. Freestanding.
//
// An input value v = x + offset lies in [-256, 255]. Its scaled value is
// requantize(v * 2^20, m, -s). quant.h derives, for s >= 1 and m >= 0,
//   double: floor((v*m + 2^10 + (2^(s-1) - [v < 0]) * 2^11) / 2^(11+s))
//   single: floor((v*m + 2^(10+s)) / 2^(11+s))
// (its forms with x = v * 2^20, numerator and divisor divided by 2^20).
//
// With a 32x32->64 multiply, both numerator and divisor times 2^21 (x' =
// v * 2^21, |x'| <= 2^29):
//   double: (high word of x'*m + 2^31 + (2^(s-1) - [x' < 0]) * 2^32) >> s
//   single: (high word of x'*m + 2^(s-1) * 2^32) >> s
// since floor(floor(a / 2^32) / 2^s) = floor(a / 2^(32+s)). On DSP cores
// that high word is one SMMLAR (SMMLA), with the bracket as accumulator.
//
// Without one (Armv6-M, Armv8-M Baseline), m = mh * 2^11 + ml (ml < 2^11)
// splits the product into two 32-bit ones, |v*mh| < 2^28 and |v*ml| < 2^19:
//   double: (v*mh + 2^(s-1) - [v < 0] + ((v*ml + 2^10) >> 11)) >> s
//   single: (v*mh + 2^(s-1) + ((v*ml) >> 11)) >> s
// by the same nesting of floors, with the multiples of 2^11 taken out.
//
// The output: raw = sum of the scaled inputs, |raw| <= 2^28, and
// requantize(raw, m, -s) + offset with s >= 1. With raw2 = 2 * raw (exact,
// |raw2| <= 2^29), gemmlowp's doubling high multiply floor((raw*m +
// 2^30) / 2^31) is floor((raw2*m + 2^31) / 2^32), so the same forms hold
// with x' = raw2, and the offset joins the accumulator as offset * 2^s
// (|offset * 2^s| <= 2^30 for s <= 23: add_sub_cases.h). Cores without a
// long multiply use quant.h's exact 16-bit halves for this product.
#pragma once

#include <stdint.h>

#include "kernels/common/quant.h"

namespace tinyaot {
namespace add_sub_flat {

#if defined(__ARM_ARCH_6M__) || defined(__ARM_ARCH_8M_BASE__)
constexpr bool kHasLongMultiply = false;
#else
constexpr bool kHasLongMultiply = true;
#endif

// The high word of x*m + acc * 2^32 + (kRound ? 2^31 : 0).
template <bool kRound>
inline int32_t high_multiply_add(int32_t x, int32_t m, int32_t acc) {
#if defined(__ARM_FEATURE_DSP)
  int32_t result;
  if constexpr (kRound) {
    __asm__("smmlar %0, %1, %2, %3" : "=r"(result) : "r"(x), "r"(m), "r"(acc));
  } else {
    __asm__("smmla %0, %1, %2, %3" : "=r"(result) : "r"(x), "r"(m), "r"(acc));
  }
  return result;
#elif defined(__ARM_ARCH_7M__)
  // GCC 12 accumulates into (2^31, 0) and adds `acc` after the SMLAL (two
  // MOVs and two ADDs); with `acc` as the high accumulator it is one MOV.
  uint32_t low = kRound ? uint32_t{1} << 31 : 0;
  int32_t high = acc;
  __asm__("smlal %0, %1, %2, %3" : "+r"(low), "+r"(high) : "r"(x), "r"(m));
  return high;
#else
  const int64_t product = static_cast<int64_t>(x) * m;
  const uint64_t sum = static_cast<uint64_t>(product) + (static_cast<uint64_t>(acc) << 32) +
                       (kRound ? uint64_t{1} << 31 : 0);
  return static_cast<int32_t>(static_cast<int64_t>(sum) >> 32);
#endif
}

// Rescale by the long multiply: x2 = v * 2^21 (or the doubled raw sum),
// base = 2^(s-1) (plus offset * 2^s for the output).
template <Rounding R>
inline int32_t scale_long(int32_t x2, int32_t m, int32_t base, int32_t shift_right) {
  if constexpr (R == Rounding::kDouble) {
    return high_multiply_add<true>(x2, m, base + (x2 >> 31)) >> shift_right;
  } else {
    return high_multiply_add<false>(x2, m, base) >> shift_right;
  }
}

// Rescale of an input by two 32-bit products: v = x + offset, m = mh *
// 2^11 + ml, base = 2^(s-1).
template <Rounding R>
inline int32_t scale_split(int32_t v, int32_t mh, int32_t ml, int32_t base, int32_t shift_right) {
  if constexpr (R == Rounding::kDouble) {
    return (v * mh + base + (v >> 31) + ((v * ml + (int32_t{1} << 10)) >> 11)) >> shift_right;
  } else {
    return (v * mh + base + ((v * ml) >> 11)) >> shift_right;
  }
}

// Armv6-M and Armv8-M Baseline have no SSAT: a separate loop for the
// full range would gain them nothing but code.
#if defined(__ARM_ARCH_6M__) || defined(__ARM_ARCH_8M_BASE__)
constexpr bool kHasSsat = false;
#else
constexpr bool kHasSsat = true;
#endif

// The clamp to the activation range; to int8 alone (one SSAT) when the
// range is all of int8, as with a fused ReLU whose output zero point is
// -128: two registers fewer in the loop.
template <bool kFullRange>
inline int8_t clamp_output(int32_t value, int32_t act_min, int32_t act_max) {
  if constexpr (kFullRange && kHasSsat) {
#if !defined(__ARM_ARCH_6M__) && !defined(__ARM_ARCH_8M_BASE__) && defined(__arm__)
    int32_t result;
    __asm__("ssat %0, #8, %1" : "=r"(result) : "r"(value));
    return static_cast<int8_t>(result);
#else
    return saturate_i8(value);
#endif
  } else {
    value = value < act_min ? act_min : value;
    value = value > act_max ? act_max : value;
    return static_cast<int8_t>(value);
  }
}

}  // namespace add_sub_flat
}  // namespace tinyaot
