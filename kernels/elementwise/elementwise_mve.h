// What the MVE element-wise variants (add_s8_mve, sub_s8_mve, mul_s8_mve)
// share: their shape case, the walk over rows, and the requantization by
// scalar constants. Freestanding, header-only.
//
// The case: the innermost axis contiguous in at least one input and
// contiguous or broadcast (stride 0) in the other (or of one element), any
// broadcast outside it. A row is then a vector loop over the contiguous
// operands; a same-shape operation is one row (the compiler folds
// contiguous axes), a per-channel operand (a row repeated) one row per
// pixel, a scalar operand (stride 0 inside the row) one value per row,
// which the kernels fold into their per-row constants (its lanes then read
// the other input's row and multiply it by 0: no extra loop).
#pragma once

#include <stdint.h>

#include "kernels/common/quant.h"
#include "kernels/elementwise/broadcast.h"

#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1)
#include <arm_mve.h>
#endif

namespace tinyaot {

inline bool is_row_broadcast(const BroadcastShape& shape) {
  constexpr int kInner = kBroadcastRank - 1;
  const int32_t s1 = shape.strides1[kInner], s2 = shape.strides2[kInner];
  return shape.dims[kInner] == 1 || (s1 == 1 && (s2 == 1 || s2 == 0)) || (s1 == 0 && s2 == 1);
}

// Whether input 1 (2) is one value per row: its innermost stride is 0 and
// the row longer than one.
inline bool is_row_scalar1(const BroadcastShape& shape) {
  return shape.dims[kBroadcastRank - 1] > 1 && shape.strides1[kBroadcastRank - 1] == 0;
}
inline bool is_row_scalar2(const BroadcastShape& shape) {
  return shape.dims[kBroadcastRank - 1] > 1 && shape.strides2[kBroadcastRank - 1] == 0;
}

#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1)

// requantize<R>(x, m, -s) on four lanes, for m >= 0 and a right shift
// s >= 1 held in core registers (`negative_shift` = -s): the instructions
// of output_step_mve.h's requantize_mve, whose comment says why they give
// TFLite's bits and whose sweep check proves it on the core, in their
// scalar-operand forms (VQRDMULH/VQDMULH Qd, Qn, Rm; VRSHL Qda, Rm).
template <Rounding R>
inline int32x4_t requantize_mve_n(int32x4_t x, int32_t multiplier, int32_t negative_shift) {
  if constexpr (R == Rounding::kSingle) {
    return vrshlq_n_s32(vqdmulhq_n_s32(x, multiplier), negative_shift);
  } else {
    const int32x4_t y = vqrdmulhq_n_s32(x, multiplier);
    return vrshlq_n_s32(vqaddq_s32(y, vshrq_n_s32(y, 31)), negative_shift);
  }
}

// A row of n outputs, four lanes a step: `step` maps the two inputs'
// values (widened by VLDRB.S32) to four int32 outputs, stored narrowed by
// VSTRB.32; the last 1-3 under one VCTP32 predicate, no scalar epilogue.
template <typename Step>
inline void rows_x4(const int8_t* a, const int8_t* b, int8_t* out, int32_t n, const Step& step) {
  for (; n >= 4; n -= 4, a += 4, b += 4, out += 4)
    vstrbq_s32(out, step(vldrbq_s32(a), vldrbq_s32(b)));
  if (n > 0) {
    const mve_pred16_t lanes = vctp32q(static_cast<uint32_t>(n));
    vstrbq_p_s32(out, step(vldrbq_z_s32(a, lanes), vldrbq_z_s32(b, lanes)), lanes);
  }
}

#endif

}  // namespace tinyaot
