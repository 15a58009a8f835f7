// SOFTMAX's table of exponentials from its Q5.26 input multiplier, and the
// part of it a program stores. Freestanding and header-only: the lowering
// builds the table from the model's beta and input scale
// (softmax_lower.cpp), the variant sweep from drawn multipliers on the
// cores (tests/variant_sweep), by this one code.
#pragma once

#include <stdint.h>

#include "kernels/common/fixed_point.h"
#include "kernels/common/quant.h"
#include "kernels/softmax/softmax.h"
#include "tinyaot/target.h"

namespace tinyaot {

// Integer bits of the rescaled differences (TFLite's kScaledDiffIntegerBits).
constexpr int kSoftmaxDiffIntegerBits = 5;

// TFLite's CalculateInputRadius: the largest |difference| whose rescale
// by 2^shift fits Q5.26; TFLite skips differences beyond it. `shift` in
// [0, 31].
inline int32_t softmax_input_radius(int shift) {
  const int64_t largest = int64_t{(1 << kSoftmaxDiffIntegerBits) - 1}
                          << (31 - kSoftmaxDiffIntegerBits);
  return static_cast<int32_t>(largest >> shift);
}

// TFLite's MultiplyByQuantizedMultiplierGreaterThanOne of a difference
// within the radius: double rounding shifts left (no overflow there) then
// takes the rounding doubling high product; single rounding is the plain
// single-rounding multiply.
inline int32_t softmax_rescale_difference(int32_t difference, int32_t multiplier, int shift,
                                          Rounding rounding) {
  if (rounding == Rounding::kSingle) return requantize_single(difference, multiplier, shift);
  return saturating_rounding_doubling_high_mul(wrapping_shift_left(difference, shift), multiplier);
}

// Fills table[0, kSoftmaxExpTableSize) with gemmlowp's exp (Q0.31) of
// every difference max(row) - x rescaled by multiplier * 2^shift (shift
// in [0, 31], 30 at most in single rounding), 0 past the radius.
inline void fill_softmax_exp_table(int32_t multiplier, int shift, Rounding rounding,
                                   int32_t* table) {
  const int32_t radius = softmax_input_radius(shift);
  for (int32_t d = 0; d < kSoftmaxExpTableSize; ++d) {
    table[d] = d > radius ? 0
                          : fixed_point::exp_on_negative_values(
                                softmax_rescale_difference(-d, multiplier, shift, rounding),
                                kSoftmaxDiffIntegerBits);
  }
}

// The entries a program stores of a full table: up to its last
// exponential at or above kSoftmaxNegligibleExp (the table decreases),
// at least one.
inline int32_t softmax_stored_entries(const int32_t* table) {
  int32_t entries = kSoftmaxExpTableSize;
  while (entries > 1 && table[entries - 1] < kSoftmaxNegligibleExp) --entries;
  return entries;
}

}  // namespace tinyaot
