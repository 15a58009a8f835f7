// onnxruntime's requantization (MlasRequantizeOutput), the rounding mode
// `onnx`: the one definition every weighted kernel's output step uses when
// compiled for Rounding::kOnnx (quant.h dispatches here).
//
// onnxruntime computes, per output, with m = f32(f32(sx * sw[c]) / sy)
// formed by the compiler (its bits stored in ChannelQuant::multiplier):
//   v = f32(f32(acc + bias) * m), clamped to [lo - zy, hi - zy],
//   q = rint(v) + zy  (rint: round half to even).
// Here the step returns clamp(rint(f32(f32(acc) * m)), kOnnxStepMin,
// kOnnxStepMax); the caller adds zy and clamps to [lo, hi] in integers.
// That is onnxruntime's value: rint is monotonic and lo - zy, hi - zy are
// integers inside [kOnnxStepMin, kOnnxStepMax] (|lo - zy|, |hi - zy| <= 255
// for int8), so clamping before or after rounding, and to the wider range
// first, give the same integer.
//
// Three implementations of that one function, chosen by what the core has:
// - a single-precision FPU on an Arm core (M4F, M7, M33, M55): VCVT,
//   VMUL.F32 and VCVTR (round to nearest even in the FPSCR's default mode,
//   saturating), then the integer clamp;
// - the host (x86-64 SSE or any IEEE float32 without excess precision):
//   float multiply, clamp, then round_half_to_even (below);
// - no FPU (M0/M0+, M3, M23, soft-float builds): an exact integer
//   emulation of the same float32 operations, not the compiler's soft-float
//   library. tests: kernels/common/onnx_requantize_test.cpp proves the
//   emulation equal to the host's float32 on random and adversarial cases.
#pragma once

#include <stdint.h>
#include <string.h>

#include "kernels/common/fpu.h"

namespace tinyaot {

constexpr int32_t kOnnxStepMin = -1024;
constexpr int32_t kOnnxStepMax = 1023;

// x rounded to an integer half to even, for |x| <= 2^22: x + 1.5 * 2^23
// lies in [2^23, 2^24), where the float32 values are exactly the integers,
// so the sum rounds x half to even (IEEE's default mode, the soft-float
// library's too) and subtracting the constant again is exact. Needs
// float32 arithmetic without excess precision (FLT_EVAL_METHOD 0: Arm's
// FPU and soft-float, SSE on x86-64).
inline float round_half_to_even(float x) {
  const float kRoundingBias = 12582912.0f;  // 1.5 * 2^23
  return (x + kRoundingBias) - kRoundingBias;
}

inline float clamp_float(float x, float lo, float hi) { return x < lo ? lo : (x > hi ? hi : x); }

// x, a product, as the float32 value rounded on its own: the empty asm
// ends the expression there. GCC compiles C++ with -ffp-contract=fast by
// default and would fuse a product into the sum or difference that takes
// it (VFMA on an FPU core: one rounding where onnxruntime's float32 chains
// round twice). "t" and "x" keep x in its FPU or SSE register: no
// instruction; elsewhere (soft-float) nothing contracts.
inline float rounded_product(float x) {
#if defined(__GNUC__) && defined(__arm__) && defined(__ARM_FP)
  __asm__("" : "+t"(x));
#elif defined(__GNUC__) && (defined(__x86_64__) || defined(__i386__))
  __asm__("" : "+x"(x));
#elif defined(__GNUC__) && defined(__aarch64__)
  __asm__("" : "+w"(x));
#endif
  return x;
}

inline float float_of_bits(uint32_t bits) {
  float value;
  memcpy(&value, &bits, sizeof value);
  return value;
}

#if defined(TINYAOT_FPU_F32)
// x rounded to an integer half to even, saturated to int32, by one VCVTR:
// it rounds in the FPSCR's mode, round to nearest even out of reset (the
// runtime never changes it).
inline int32_t round_to_int32(float x) {
  float converted;
  __asm__("vcvtr.s32.f32 %0, %1" : "=t"(converted) : "t"(x));
  int32_t rounded;
  memcpy(&rounded, &converted, sizeof rounded);
  return rounded;
}
#endif

namespace onnx_requantize_detail {

inline int32_t clamp_step(int32_t value) {
  return value < kOnnxStepMin ? kOnnxStepMin : (value > kOnnxStepMax ? kOnnxStepMax : value);
}

// quotient + the rounding of the dropped bits `rest` against `half`, the
// weight of the highest dropped bit: round half to even.
inline uint32_t round_dropped(uint32_t quotient, uint32_t rest, uint32_t half) {
  return quotient + ((rest > half || (rest == half && (quotient & 1) != 0)) ? 1 : 0);
}

// n / 2^shift rounded half to even, shift in [1, 31].
inline uint32_t shift_right_half_even(uint32_t n, int shift) {
  const uint32_t half = uint32_t{1} << (shift - 1);
  return round_dropped(n >> shift, n & ((half << 1) - 1), half);
}

inline int bit_length(uint32_t n) { return n == 0 ? 0 : 32 - __builtin_clz(n); }

// The product of a < 2^25 and b < 2^24 as two words, from 16-bit halves:
// Armv6-M has no 32x32->64 multiply (a 64-bit product is a library call
// there); four MULS, every partial sum within 32 bits (a1 < 2^9, b1 <
// 2^8, mid < 2^26).
struct WideProduct {
  uint32_t high, low;
};

inline WideProduct multiply_wide(uint32_t a, uint32_t b) {
  const uint32_t a0 = a & 0xffff, a1 = a >> 16, b0 = b & 0xffff, b1 = b >> 16;
  const uint32_t mid = a1 * b0 + a0 * b1;
  const uint32_t low = a0 * b0 + (mid << 16);
  const uint32_t carry = low < (mid << 16) ? 1 : 0;
  return {a1 * b1 + (mid >> 16) + carry, low};
}

// clamp(rint(f32(f32(x) * m)), kOnnxStepMin, kOnnxStepMax) in 32-bit
// integers, m given by its IEEE binary32 bits (finite, >= +0: the
// compiler's check). Every float32 value here is a significand times a
// power of two:
//   f32(x) = a * 2^ea, a <= 2^24 after rounding |x| half to even to 24
//     significant bits (|x| >= 2^24 loses low bits, as VCVT does);
//   m = b * 2^eb (b with its implicit bit, or a subnormal's fraction);
//   the exact product n * 2^k, n = a * b < 2^49 (two words), k = ea + eb,
//     lies in [2^(top-1), 2^top) with top = bit_length(n) + k.
// top >= 11: the product, so its float32 rounding, is >= 2^10: saturated.
// top <= -1: the product is < 1/2, so its float32 rounding (subnormal or
//   not) is <= 1/2, which rint rounds to 0 (half to even).
// Else the float32 rounding keeps 24 significant bits of n (half to even;
// it may carry to 2^24, still exact; the dropped bits, at most 25, lie in
// the low word) and rint rounds that, f * 2^fk with fk >= -26, to an
// integer.
inline int32_t scale_and_round_emulated(int32_t x, uint32_t m_bits) {
  const uint32_t exponent_field = (m_bits >> 23) & 0xff;
  const uint32_t fraction = m_bits & 0x7fffff;
  if (x == 0 || (exponent_field == 0 && fraction == 0)) return 0;
  const uint32_t b = exponent_field == 0 ? fraction : (fraction | 0x800000u);
  const int eb = exponent_field == 0 ? -149 : static_cast<int>(exponent_field) - 150;
  const uint32_t magnitude = x < 0 ? 0u - static_cast<uint32_t>(x) : static_cast<uint32_t>(x);
  const int excess = bit_length(magnitude) - 24;
  const uint32_t a = excess > 0 ? shift_right_half_even(magnitude, excess) : magnitude;
  const int k = (excess > 0 ? excess : 0) + eb;
  const WideProduct n = multiply_wide(a, b);
  const int length = n.high != 0 ? 32 + bit_length(n.high) : bit_length(n.low);
  const int top = length + k;
  int32_t rounded = 0;
  if (top >= 11) {
    rounded = kOnnxStepMax + 1;  // saturates below
  } else if (top >= 0) {
    const int dropped = length - 24;
    uint32_t f = n.low;
    if (dropped > 0) {
      const uint32_t half = uint32_t{1} << (dropped - 1);
      const uint32_t quotient = (n.low >> dropped) | (n.high << (32 - dropped));
      f = round_dropped(quotient, n.low & ((half << 1) - 1), half);
    }
    const int fk = k + (dropped > 0 ? dropped : 0);
    rounded = static_cast<int32_t>(fk >= 0 ? f << fk : shift_right_half_even(f, -fk));
  }
  return clamp_step(x < 0 ? -rounded : rounded);
}

// The same, faster in the usual case: m normal, |x| < 2^24 (so f32(x) =
// x) and the product P = |x| * b * 2^eb below 2^10. There f32(P) lies
// within 2^-15 of P (half a float32 step at 2^9..2^10, less below), so
// rint(f32(P)) = rint(P) unless P lies within 2^-15 of a half-integer:
// from W = floor(P * 2^16) (q = W >> 16, f = W & 0xffff, P's fraction
// truncated to 16 bits) the fraction f <= 32765 rounds down and f >=
// 32771 up for certain; f in [32766, 32770] (P possibly that close to
// q + 1/2) and every other case take scale_and_round_emulated. No
// bit_length (a library call on Armv6-M, which has no CLZ) on the fast
// path: about half the instructions of the full emulation on M0.
inline int32_t scale_and_round_integer(int32_t x, uint32_t m_bits) {
  const uint32_t exponent_field = (m_bits >> 23) & 0xff;
  const uint32_t magnitude = x < 0 ? 0u - static_cast<uint32_t>(x) : static_cast<uint32_t>(x);
  // s = -eb: P = N / 2^s with N = |x| * b. eb >= 0 (field >= 150) makes P
  // >= 2^23 and s >= 49 makes P < 1/2: the full emulation handles both.
  const int s = 150 - static_cast<int>(exponent_field);
  if (exponent_field == 0 || magnitude >= (uint32_t{1} << 24) || s < 1 || s > 48)
    return scale_and_round_emulated(x, m_bits);
  const WideProduct n = multiply_wide(magnitude, (m_bits & 0x7fffff) | 0x800000u);
  // W = floor(N / 2^(s - 16)), when below 2^26 (q < 2^10); else the
  // product is 2^10 or more, or the shift leaves the fast path.
  const int shift = s - 16;
  uint32_t w;
  if (shift >= 32) {
    w = n.high >> (shift - 32);
  } else if (shift > 0) {
    if ((n.high >> shift) != 0) return scale_and_round_emulated(x, m_bits);
    w = (n.low >> shift) | (n.high << (32 - shift));
  } else {
    if (n.high != 0 || n.low >= (uint32_t{1} << (26 + shift)))
      return scale_and_round_emulated(x, m_bits);
    w = n.low << -shift;
  }
  const uint32_t fraction = w & 0xffff;
  if (w >= (uint32_t{1} << 26) || (fraction >= 32766 && fraction <= 32770))
    return scale_and_round_emulated(x, m_bits);
  const int32_t rounded = static_cast<int32_t>((w >> 16) + (fraction >= 32771 ? 1 : 0));
  return clamp_step(x < 0 ? -rounded : rounded);
}

#if defined(TINYAOT_FPU_F32)
// [kOnnxStepMin, kOnnxStepMax] is the 11-bit signed range: one SSAT (every
// core with an FPU has it) where clamp_step takes two compares and moves.
static_assert(kOnnxStepMin == -(1 << 10) && kOnnxStepMax == (1 << 10) - 1, "SSAT #11");

inline int32_t scale_and_round(int32_t x, uint32_t m_bits) {
  const int32_t rounded = round_to_int32(static_cast<float>(x) * float_of_bits(m_bits));
  int32_t clamped;
  __asm__("ssat %0, #11, %1" : "=r"(clamped) : "r"(rounded));
  return clamped;
}
#elif defined(__arm__)
inline int32_t scale_and_round(int32_t x, uint32_t m_bits) {
  return scale_and_round_integer(x, m_bits);
}
#else
// The host: after the clamp |v| <= 2^10, in round_half_to_even's range.
inline int32_t scale_and_round(int32_t x, uint32_t m_bits) {
  const float v = static_cast<float>(x) * float_of_bits(m_bits);
  return static_cast<int32_t>(round_half_to_even(
      clamp_float(v, static_cast<float>(kOnnxStepMin), static_cast<float>(kOnnxStepMax))));
}
#endif

}  // namespace onnx_requantize_detail

// The onnx step for an accumulator that already holds the channel's bias;
// `multiplier` is ChannelQuant::multiplier, the float32 m's bits.
inline int32_t requantize_onnx(int32_t biased_acc, int32_t multiplier) {
  return onnx_requantize_detail::scale_and_round(biased_acc, static_cast<uint32_t>(multiplier));
}

}  // namespace tinyaot
