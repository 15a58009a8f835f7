// ADD and SUB in rounding mode onnx without the float32 chain for nearly
// every element (add_sub_onnx.h has the chain). Freestanding: the lowering
// and the variant sweep on the device compute the constants with
// onnx_add_sub_fast_constants, the flat variant runs them.
//
// The estimate. With a = qa - za, b = qb - zb (|a|, |b| <= 255), ra =
// sa / sc and rb = sb / sc, the chain approximates the exact value
// E = a*ra +- b*rb + zc (SUB: zc added after the rounding, the same
// integer). In fixed point with S fraction bits, Ma = round(ra * 2^S),
// Mb = +-round(rb * 2^S), and the margin M (below):
//   t = qa*Ma + qb*Mb + K,  K = -za*Ma - zb*Mb + zc*2^S + 2^(S-1) + M,
// so t - M = 2^S * (F + 1/2) with F = a*Ma/2^S + b*Mb/2^S + zc.
//
// The bound. Each float32 operation rounds to nearest, a relative error of
// at most u = 2^-24 (every scale in [2^-40, 2^40]: no value of the chain
// is subnormal or overflows). With R = 255 * (ra + rb) >= |a*ra| + |b*rb|:
//   x + y (or x - y) has error <= u*R*sc from the two products, its own
//   rounding u*(1+u)*R*sc, the division u*(1+u)^2*R: the quotient c is
//   within R*u*(3 + 4u) of a*ra +- b*rb;
//   ADD's f32(c + zc) adds u*|c + zc| <= u*(R*(1 + 4u) + 128),
// so the chain's value v before rint is within
//   Ef = u * (R * (4 + 8u) + 128)
// of E (clamping before the rounding changes nothing: add_sub_onnx.h).
// The estimate errs by |a*(Ma - ra*2^S) + b*(|Mb| - rb*2^S)| / 2^S <=
// 255 * (ea + eb) / 2^S, ea and eb the constants' own rounding. So with
// M > 255 * (ea + eb) + Ef * 2^S (in units of 2^-S), when the fraction of
// t - M, f = (t - M) mod 2^S, lies in [M, 2^S - M), F is at least M / 2^S
// from every half-integer k + 1/2 and v lies strictly between the same
// two: rint(v) = floor(F + 1/2) = (t - M) >> S = t >> S (adding M carries
// no further as f + M < 2^S). Else, t mod 2^S in [0, 2M) (about 2M / 2^S
// of the elements, and every exact tie), the element runs the chain.
//
// The range: every term of t and K is at most 128 * |Ma| or |Mb| in
// magnitude, so 256 * (|Ma| + |Mb|) + 2^(S-1) + M + 128 * 2^S < 2^31 keeps
// every partial sum within int32; S is the largest that does, up to 30.
// With the margin wider than 1/64 of the unit (scale ratios above about
// 2^15) the fast path would pay little: shift 0, every element runs the
// chain.
#pragma once

#include <stdint.h>

namespace tinyaot {

// shift == 0: no fast path.
struct OnnxAddSubFast {
  int32_t multiplier1;  // Ma
  int32_t multiplier2;  // Mb, negative for SUB
  int32_t shift;        // S
  int32_t margin;       // M
};

namespace onnx_add_sub_fast_detail {

constexpr double kUnitRoundoff = 1.0 / 16777216.0;  // 2^-24

inline double magnitude(double x) { return x < 0 ? -x : x; }

// Whether a scale keeps the chain's values normal and finite.
inline bool in_fast_range(float scale) {
  return scale >= 1.0f / 1099511627776.0f && scale <= 1099511627776.0f;  // 2^-40, 2^40
}

// The sum of the magnitudes of t's terms (see the header), in int64: it
// stays within int32 when this is below 2^31.
inline int64_t term_magnitudes(int64_t m1, int64_t m2, int shift, int64_t margin) {
  const int64_t abs1 = m1 < 0 ? -m1 : m1, abs2 = m2 < 0 ? -m2 : m2;
  return 256 * (abs1 + abs2) + (int64_t{1} << (shift - 1)) + margin + (int64_t{128} << shift);
}

}  // namespace onnx_add_sub_fast_detail

// The constants for scales sa, sb (inputs) and sc (output), ADD (kSign
// +1) or SUB (-1).
inline OnnxAddSubFast onnx_add_sub_fast_constants(float sa, float sb, float sc, int sign) {
  using namespace onnx_add_sub_fast_detail;
  OnnxAddSubFast none{0, 0, 0, 0};
  if (!in_fast_range(sa) || !in_fast_range(sb) || !in_fast_range(sc)) return none;
  const double ra = static_cast<double>(sa) / static_cast<double>(sc);
  const double rb = static_cast<double>(sb) / static_cast<double>(sc);
  const double u = kUnitRoundoff;
  const double chain_error = u * ((255 * (ra + rb)) * (4 + 8 * u) + 128);
  for (int shift = 30; shift >= 8; --shift) {
    const double unit = static_cast<double>(int64_t{1} << shift);
    const double scaled_a = ra * unit, scaled_b = rb * unit;
    if (scaled_a + scaled_b >= 2147483648.0 / 256) continue;
    const int64_t m1 = static_cast<int64_t>(scaled_a + 0.5);
    const int64_t m2 = static_cast<int64_t>(scaled_b + 0.5);
    // ra * unit is off the exact ratio by a relative 2^-52 at most (one
    // division, one exact scaling): 2^-21 of a unit below 2^31.
    const double constants_error = magnitude(static_cast<double>(m1) - scaled_a) +
                                   magnitude(static_cast<double>(m2) - scaled_b) + 2.0 / 2097152.0;
    // + 2: strictly above the bound, and the bound's own double rounding.
    const double bound = 255 * constants_error + chain_error * unit;
    const int64_t margin = static_cast<int64_t>(bound) + 2;
    if (term_magnitudes(m1, m2, shift, margin) >= (int64_t{1} << 31)) continue;
    if (margin * 64 >= (int64_t{1} << shift)) return none;
    return {static_cast<int32_t>(m1), static_cast<int32_t>(sign * m2), shift,
            static_cast<int32_t>(margin)};
  }
  return none;
}

// Whether `fast` holds constants the loop can run without overflow: none,
// or a shift in [8, 30] with the margin below a quarter unit and every
// term within int32 (a program's parameters are not trusted).
inline bool is_valid_onnx_add_sub_fast(const OnnxAddSubFast& fast) {
  if (fast.shift == 0) return true;
  if (fast.shift < 8 || fast.shift > 30 || fast.margin < 0) return false;
  if (int64_t{fast.margin} * 4 >= (int64_t{1} << fast.shift)) return false;
  return onnx_add_sub_fast_detail::term_magnitudes(fast.multiplier1, fast.multiplier2, fast.shift,
                                                   fast.margin) < (int64_t{1} << 31);
}

}  // namespace tinyaot
