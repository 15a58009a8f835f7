// The cases of the flat ADD / SUB variants (add_s8_flat, sub_s8_flat), asked
// by their validate on the device and by the lowering on the host, so the
// compiler never picks a variant the loader would refuse.
//
// TFLite rescales each input by scale / (2 * larger input scale): the input
// with the larger scale gets exactly 0.5 (multiplier 2^30, shift 0), and
// its scaled value is exactly (x + offset) * 2^19 in both rounding modes.
// The flat variants rely on that: one input is such an exact one, the
// other exact too or a rescale below 0.5 (shift <= -1). Freestanding.
#pragma once

#include <stdint.h>

#include "kernels/elementwise/add_sub_onnx.h"
#include "kernels/elementwise/elementwise.h"
#include "kernels/elementwise/elementwise_mve.h"
#include "tinyaot/load_time.h"

namespace tinyaot {

constexpr int32_t kAddExactMultiplier = int32_t{1} << 30;

inline bool is_exact_input_scale(int32_t multiplier, int32_t shift) {
  return multiplier == kAddExactMultiplier && shift == 0;
}

// A rescale below 0.5: the variants' exact 32-bit arithmetic needs a right
// shift of at least one.
inline bool is_smaller_input_scale(int32_t multiplier, int32_t shift) {
  return multiplier >= 0 && shift <= -1 && shift >= -31;
}

// The walk reads both inputs at the output's own index: every axis longer
// than one steps both inputs by the number of elements inside it.
inline bool is_flat_broadcast(const BroadcastShape& shape) {
  int64_t inner = 1;
  for (int d = kBroadcastRank - 1; d >= 0; --d) {
    if (shape.dims[d] > 1 && (shape.strides1[d] != inner || shape.strides2[d] != inner))
      return false;
    inner *= shape.dims[d];
  }
  return true;
}

// The output step folds the output offset into its rounding constant,
// offset * 2^s: |s| <= 23 keeps that sum within int32 (see add_sub_s8_flat).
TINYAOT_LOAD_TIME inline bool is_add_sub_flat_case(const AddSubParams& p) {
  const bool first_exact = is_exact_input_scale(p.input1_multiplier, p.input1_shift);
  const bool second_exact = is_exact_input_scale(p.input2_multiplier, p.input2_shift);
  const bool other_fits =
      first_exact ? (second_exact || is_smaller_input_scale(p.input2_multiplier, p.input2_shift))
                  : (second_exact && is_smaller_input_scale(p.input1_multiplier, p.input1_shift));
  return is_flat_broadcast(p.shape) && other_fits && p.left_shift == 20 &&
         p.output_multiplier >= 0 && p.output_shift <= -1 && p.output_shift >= -23;
}

// The flat variants' case in rounding mode onnx: the lowering's onnx
// parameters (add_sub_onnx.h), the flat walk, an estimate that cannot
// overflow (add_sub_onnx_fast.h).
TINYAOT_LOAD_TIME inline bool is_add_sub_onnx_flat_case(const AddSubParams& p) {
  return is_flat_broadcast(p.shape) && is_onnx_add_sub_params(p) &&
         is_valid_onnx_add_sub_fast(p.onnx_fast);
}

// The case of the MVE variants (add_s8_mve, sub_s8_mve): rows as
// is_row_broadcast takes them, one input exact and the other exact or
// a rescale below 0.5, the output a right shift (any: the vector step adds
// the output offset after the shift).
TINYAOT_LOAD_TIME inline bool is_add_sub_mve_case(const AddSubParams& p) {
  const bool first_exact = is_exact_input_scale(p.input1_multiplier, p.input1_shift);
  const bool second_exact = is_exact_input_scale(p.input2_multiplier, p.input2_shift);
  const bool other_fits =
      first_exact ? (second_exact || is_smaller_input_scale(p.input2_multiplier, p.input2_shift))
                  : (second_exact && is_smaller_input_scale(p.input1_multiplier, p.input1_shift));
  return is_row_broadcast(p.shape) && other_fits && p.left_shift == 20 &&
         p.output_multiplier >= 0 && p.output_shift <= -1 && p.output_shift >= -31;
}

}  // namespace tinyaot
