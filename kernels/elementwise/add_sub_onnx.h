// ADD and SUB in rounding mode onnx: onnxruntime's float32 chains
// (tests/onnx_ops/README.md), each operation rounded. Both operands are
// dequantized, a = f32(sa * f32(qa - za)); ADD is QLinearAdd, c =
// f32(f32(a + b) / sc) clamped to [lo - zc, hi - zc], q = rint(f32(c +
// zc)) (the zero point added before the rounding); SUB runs in float32
// between DequantizeLinear and QuantizeLinear, q = clamp(rint(f32(f32(a -
// b) / sc))) + zc. The lowering stores the three scales' bits in the
// multiplier fields and leaves every shift 0 (is_onnx_add_sub_params).
// add_s8_ref / sub_s8_ref run onnx_add_sub per element through their
// broadcast walk; add_s8_flat / sub_s8_flat run onnx_add_sub_flat, which
// decides nearly every element by a fixed-point estimate instead
// (add_sub_onnx_fast.h).
#pragma once

#include <stdint.h>

#include "kernels/common/fpu.h"
#include "kernels/common/onnx_requantize.h"
#include "kernels/elementwise/add_sub_flat_math.h"
#include "kernels/elementwise/elementwise.h"

#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1)
#include <arm_mve.h>
#endif

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

// The estimate's constants for one call (add_sub_onnx_fast.h).
struct OnnxEstimate {
  int32_t multiplier1, multiplier2, base, shift;
  uint32_t fraction_mask, undecided_below;
  int32_t act_min, act_max;
};

// Elements from `i` on with the estimate, up to `count` or the first one
// it leaves undecided; returns where it stopped. Out of line and without
// calls, so that its constants stay in registers (the chain's calls would
// take them away on every core).
template <bool kFullRange>
[[gnu::noinline]] int32_t estimate_until_undecided(const int8_t* a, const int8_t* b, int8_t* out,
                                                   int32_t i, int32_t count,
                                                   const OnnxEstimate& estimate) {
  const OnnxEstimate k = estimate;  // locals: stores through `out` cannot change them
  for (; i < count; ++i) {
    // a*M1 + base first: two multiply-accumulates.
    const int32_t t = b[i] * k.multiplier2 + (a[i] * k.multiplier1 + k.base);
    if ((static_cast<uint32_t>(t) & k.fraction_mask) < k.undecided_below) break;
    out[i] = add_sub_flat::clamp_output<kFullRange>(t >> k.shift, k.act_min, k.act_max);
  }
  return i;
}

#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1)
// The estimate on four lanes (VLDRB.S32, VMLAS and VMLA, VAND and VMINV
// for the undecided lanes, VSHL by -S, the clamp, a narrowing VSTRB), the last 1-3 under one VCTP32
// predicate, from `i` on up to `count` or the first step with an undecided lane, which it leaves
// unwritten; returns where it stopped. Out of line and without calls, as
// estimate_until_undecided.
[[gnu::noinline]] inline int32_t estimate_x4_until_undecided(const int8_t* a, const int8_t* b,
                                                             int8_t* out, int32_t i, int32_t count,
                                                             const OnnxEstimate& estimate) {
  const OnnxEstimate k = estimate;  // locals: stores through `out` cannot change them
  const int32x4_t multiplier1 = vdupq_n_s32(k.multiplier1);
  const uint32x4_t fraction_mask = vdupq_n_u32(k.fraction_mask);
  const int32x4_t act_min = vdupq_n_s32(k.act_min), act_max = vdupq_n_s32(k.act_max);
  const int32_t right_shift = -k.shift;  // VSHL by a negative count: an arithmetic shift right
  const auto estimate_of = [&](int32x4_t va, int32x4_t vb) {
    return vmlaq_n_s32(vmlasq_n_s32(va, multiplier1, k.base), vb, k.multiplier2);
  };
  const auto fraction_of = [&](int32x4_t t) {
    return vandq_u32(vreinterpretq_u32_s32(t), fraction_mask);
  };
  const auto output_of = [&](int32x4_t t) {
    return vminq_s32(vmaxq_s32(vshlq_r_s32(t, right_shift), act_min), act_max);
  };
  // Whole steps unpredicated (the predicate register would be moved in
  // and out of a core register for every step), the last under VCTP32.
  // A step is undecided when its least fraction is (VMINV: one compare
  // in core registers, not VCMP and VMRS).
  const int8_t* next_a = a + i;
  const int8_t* next_b = b + i;
  int8_t* next_out = out + i;
  int32_t left = count - i;
  for (; left >= 4; left -= 4, next_a += 4, next_b += 4, next_out += 4) {
    const int32x4_t t = estimate_of(vldrbq_s32(next_a), vldrbq_s32(next_b));
    if (vminvq_u32(UINT32_MAX, fraction_of(t)) < k.undecided_below) return count - left;
    vstrbq_s32(next_out, output_of(t));
  }
  if (left > 0) {
    const mve_pred16_t lanes = vctp32q(static_cast<uint32_t>(left));
    const int32x4_t t = estimate_of(vldrbq_z_s32(next_a, lanes), vldrbq_z_s32(next_b, lanes));
    if (vminvq_p_u32(UINT32_MAX, fraction_of(t), lanes) < k.undecided_below) return count - left;
    vstrbq_p_s32(next_out, output_of(t), lanes);
  }
  return count;
}
#endif

// `count` elements with the estimate, the chain where it is too near a
// tie to decide.
template <int kSign>
void onnx_add_sub_estimated(const int8_t* a, const int8_t* b, int8_t* out, int32_t count,
                            const AddSubParams& p) {
  const OnnxAddSubFast& fast = p.onnx_fast;
  const int32_t unit = int32_t{1} << fast.shift;
  OnnxEstimate k;
  k.multiplier1 = fast.multiplier1;
  k.multiplier2 = fast.multiplier2;
  k.base = p.input1_offset * fast.multiplier1 + p.input2_offset * fast.multiplier2 +
           p.output_offset * unit + unit / 2 + fast.margin;
  k.shift = fast.shift;
  k.fraction_mask = static_cast<uint32_t>(unit) - 1;
  k.undecided_below = 2 * static_cast<uint32_t>(fast.margin);
  k.act_min = p.act_min;
  k.act_max = p.act_max;
#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1)
  // A step with an undecided lane: its elements by the chain, each read
  // before it is written, as in place needs.
  for (int32_t i = 0;;) {
    i = estimate_x4_until_undecided(a, b, out, i, count, k);
    if (i >= count) return;
    for (const int32_t end = count - i < 4 ? count : i + 4; i < end; ++i)
      out[i] = onnx_add_sub<kSign>(a[i], b[i], p);
  }
#else
  const bool full_range = p.act_min == -128 && p.act_max == 127;
  for (int32_t i = 0;; ++i) {
    i = full_range ? estimate_until_undecided<true>(a, b, out, i, count, k)
                   : estimate_until_undecided<false>(a, b, out, i, count, k);
    if (i == count) return;
    out[i] = onnx_add_sub<kSign>(a[i], b[i], p);
  }
#endif
}

// `count` elements of two inputs of the output's shape (no broadcast):
// with the estimate when the lowering gave its constants, else the chain
// for every element. With an FPU the clamp moves after the rounding, done by VCVTR
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
  if (p.onnx_fast.shift != 0) {
    onnx_add_sub_estimated<kSign>(a, b, out, count, p);
    return;
  }
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
