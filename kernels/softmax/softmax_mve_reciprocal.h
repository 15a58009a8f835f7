// softmax_s8_mve's reciprocal of a row's Q12 sum in vector lanes, in a
// header of its own so that the variant sweep's firmware checks it
// against fixed_point::reciprocal on the core
// (tests/variant_sweep/softmax_reciprocal_check.h). MVE cores only.
#pragma once

#include <stdint.h>

#include "kernels/common/fixed_point.h"

#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1)
#include <arm_mve.h>

namespace tinyaot {

// fixed_point::reciprocal of a positive Q12 sum with `headroom_plus_one`
// (1 to 31) leading zeros, its Newton-Raphson steps in vector lanes:
// gemmlowp's operations are single MVE instructions there (mul: VQRDMULH;
// add, sub: VADD, VSUB, wrapping; rescale to more integer bits: VQSHL,
// saturating as saturating_rounding_mul_by_pot), about 20 instructions
// against about 100 of 64-bit scalar products.
inline int32_t softmax_reciprocal_mve(int32_t sum, int headroom_plus_one) {
  // The sum normalized to [1, 2), less one: a in [0, 1) in Q0.
  const int32_t a =
      static_cast<int32_t>((static_cast<uint32_t>(sum) << headroom_plus_one) - (1u << 31));
  // rounding_half_sum(a, one(0)) of a >= 0: (a + 2^31) / 2.
  const int32x4_t half_denominator = vdupq_n_s32((a >> 1) + (1 << 30));
  int32x4_t x = vaddq_n_s32(vqrdmulhq_n_s32(half_denominator, fixed_point::kMinusThirtyTwoOver17),
                            fixed_point::kFortyEightOver17);
  const int32x4_t one_q2 = vdupq_n_s32(fixed_point::one(2));
  for (int i = 0; i < 3; ++i) {
    const int32x4_t one_minus_half_denominator_times_x =
        vsubq_s32(one_q2, vqrdmulhq_s32(half_denominator, x));
    x = vaddq_s32(x, vqshlq_n_s32(vqrdmulhq_s32(x, one_minus_half_denominator_times_x), 4 - 2));
  }
  return vgetq_lane_s32(vqshlq_n_s32(x, 1 - 0), 0);  // Q2 read as Q1, to Q0
}

}  // namespace tinyaot

#endif
