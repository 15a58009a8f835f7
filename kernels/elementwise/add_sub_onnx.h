// ADD and SUB in rounding mode onnx: onnxruntime's float32 chains
// (tests/onnx_ops/README.md), each operation rounded. Both operands are
// dequantized, a = f32(sa * f32(qa - za)); ADD is QLinearAdd, c =
// f32(f32(a + b) / sc) clamped to [lo - zc, hi - zc], q = rint(f32(c +
// zc)) (the zero point added before the rounding); SUB runs in float32
// between DequantizeLinear and QuantizeLinear, q = clamp(rint(f32(f32(a -
// b) / sc))) + zc. The lowering stores the three scales' bits in the
// multiplier fields and leaves every shift 0 (is_onnx_add_sub_params).
// add_s8_ref / sub_s8_ref run onnx_add_sub per element through their
// broadcast walk; add_s8_flat / sub_s8_flat run onnx_add_sub_flat.
#pragma once

#include <stdint.h>

#include "kernels/common/fpu.h"
#include "kernels/common/onnx_requantize.h"
#include "kernels/elementwise/elementwise.h"

namespace tinyaot {

// The lowering's parameters in mode onnx: no shift (TFLite's have a left
// shift of 20), so the flat variants tell them from TFLite's.
inline bool is_onnx_add_sub_params(const AddSubParams& p) {
  return p.left_shift == 0 && p.input1_shift == 0 && p.input2_shift == 0 && p.output_shift == 0;
}

// One element, the chain as written above. On a core without an FPU the
// float operations are the compiler's soft-float calls.
template <int kSign>
inline int8_t onnx_add_sub(int8_t a, int8_t b, const AddSubParams& p) {
  const float x = rounded_product(float_of_bits(static_cast<uint32_t>(p.input1_multiplier)) *
                                  static_cast<float>(a + p.input1_offset));
  const float y = rounded_product(float_of_bits(static_cast<uint32_t>(p.input2_multiplier)) *
                                  static_cast<float>(b + p.input2_offset));
  const float c =
      (kSign > 0 ? x + y : x - y) / float_of_bits(static_cast<uint32_t>(p.output_multiplier));
  const float lo = static_cast<float>(p.act_min - p.output_offset);
  const float hi = static_cast<float>(p.act_max - p.output_offset);
  if constexpr (kSign > 0) {
    const float shifted = clamp_float(c, lo, hi) + static_cast<float>(p.output_offset);
    return static_cast<int8_t>(round_half_to_even(shifted));
  } else {
    const float rounded = round_half_to_even(clamp_float(c, lo, hi));
    return static_cast<int8_t>(static_cast<int32_t>(rounded) + p.output_offset);
  }
}

// `count` elements of two inputs of the output's shape (no broadcast).
// With an FPU the clamp moves after the rounding, done by VCVTR
// (round_to_int32), so that it is two integer compares: the same int8.
// The bounds lo and hi are integers, rounding is monotonic and
// saturating, and f32(c + zc) is monotonic in c and exact at c = lo - zc
// and hi - zc, so clamping c to [lo - zc, hi - zc] before adding zc and
// rounding gives clamp(rint(f32(c + zc)), lo, hi); likewise for SUB,
// clamp(rint(c), lo - zc, hi - zc). Without an FPU, onnx_add_sub per
// element.
template <int kSign>
void onnx_add_sub_flat(const int8_t* a, const int8_t* b, int8_t* out, int32_t count,
                       const AddSubParams& p) {
#if defined(TINYAOT_FPU_F32)
  const float sa = float_of_bits(static_cast<uint32_t>(p.input1_multiplier));
  const float sb = float_of_bits(static_cast<uint32_t>(p.input2_multiplier));
  const float sc = float_of_bits(static_cast<uint32_t>(p.output_multiplier));
  const int32_t offset_a = p.input1_offset, offset_b = p.input2_offset;
  const int32_t zc = p.output_offset;
  const float zc_float = static_cast<float>(zc);
  // The bounds the rounded value is clamped to, before zc is added (SUB)
  // or with it (ADD).
  const int32_t lo = kSign > 0 ? p.act_min : p.act_min - zc;
  const int32_t hi = kSign > 0 ? p.act_max : p.act_max - zc;
  const int32_t added = kSign > 0 ? 0 : zc;
  for (int32_t i = 0; i < count; ++i) {
    const float x = rounded_product(sa * static_cast<float>(a[i] + offset_a));
    const float y = rounded_product(sb * static_cast<float>(b[i] + offset_b));
    const float c = (kSign > 0 ? x + y : x - y) / sc;
    int32_t q = round_to_int32(kSign > 0 ? c + zc_float : c);
    q = q < lo ? lo : (q > hi ? hi : q);
    out[i] = static_cast<int8_t>(q + added);
  }
#else
  for (int32_t i = 0; i < count; ++i) out[i] = onnx_add_sub<kSign>(a[i], b[i], p);
#endif
}

}  // namespace tinyaot
