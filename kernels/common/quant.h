// Fixed-point requantization: the one place that defines rounding.
//
// TFLite's integer kernels rescale an int32 accumulator by a multiplier in
// Q31 and a power-of-two shift. Two rounding modes exist and a program
// records which one it was compiled for:
//   double rounding (TFLite Micro, CMSIS-NN default): saturating rounding
//     doubling high multiply, then rounding right shift (half away from 0);
//   single rounding (TFLITE_SINGLE_ROUNDING): one 64-bit multiply and one
//     round-half-up shift.
// Freestanding, header-only: used by kernels on the device and by the
// compiler, the tests and the oracle glue on the host.
#pragma once

#include <stdint.h>

#include "kernels/common/onnx_requantize.h"
#include "tinyaot/target.h"

namespace tinyaot {

// Per output channel constants of a weighted operator, computed by the
// compiler and stored as a constant operand: kernels read, never derive.
// 12 bytes: the output step derives the rounding term 2^(s-1) of a right
// shift s from the shift (requantize_detail::rounding_term, one ROR where a
// stored term took a load).
// In rounding mode onnx, `multiplier` holds the bits of the float32
// multiplier onnxruntime forms (onnx_requantize.h) and `shift` is -1 (so
// has_fast_rescale holds: the fast variants take every channel).
struct ChannelQuant {
  int32_t bias;        // int32 bias (0 when the model has none)
  int32_t multiplier;  // Q31 significand of input*filter/output scale
  int32_t shift;       // power-of-two exponent, positive = left
};

// A zero multiplier (a channel whose weights' scale is 0, or a product
// under 2^-31) gives 0 with every shift in both modes: it is stored with
// shift -1, which takes the usual case's step (has_fast_rescale), where
// TFLite's shift 0 would send the channel down the general path.
constexpr ChannelQuant make_channel_quant(int32_t bias, int32_t multiplier, int32_t shift) {
  return {bias, multiplier, multiplier == 0 ? -1 : shift};
}

// Whether the channel takes the usual case's rescale: a right shift s =
// -shift in [1, 31] and a multiplier >= 0 (every real model's channels).
// The fast variants of the weighted operators take only operations whose
// every channel does, so their output step has no test and no general
// path (a call whose clobbers would spill the sums); the compiler gives
// any other operation the family's reference variant (variant_choice.h),
// and their validate refuses it.
constexpr bool has_fast_rescale(const ChannelQuant& q) {
  return q.multiplier >= 0 && q.shift <= -1 && q.shift >= -31;
}

inline bool every_channel_has_fast_rescale(const ChannelQuant* quant, int64_t count) {
  for (int64_t i = 0; i < count; ++i)
    if (!has_fast_rescale(quant[i])) return false;
  return true;
}

// gemmlowp's SaturatingRoundingDoublingHighMul. gemmlowp adds 2^30 (1 -
// 2^30 to a negative product) and divides by 2^31 truncating toward zero;
// for a negative product p that is -floor((-p + 2^30 - 1) / 2^31), which
// equals floor((p + 2^30) / 2^31). So one rounding constant and an
// arithmetic shift give gemmlowp's value for every product, without the
// sign test and the truncating division (on Armv7-M: SMLAL and a shift,
// as CMSIS-NN computes it).
inline int32_t saturating_rounding_doubling_high_mul(int32_t a, int32_t b) {
  if (a == b && a == INT32_MIN) return INT32_MAX;
  const int64_t ab = static_cast<int64_t>(a) * static_cast<int64_t>(b);
  return static_cast<int32_t>((ab + (int64_t{1} << 30)) >> 31);
}

// Rounding arithmetic right shift, ties away from zero.
inline int32_t rounding_divide_by_pot(int32_t x, int exponent) {
  if (exponent <= 0) return x;
  if (exponent > 31) exponent = 31;
  const int32_t mask = static_cast<int32_t>((uint32_t{1} << exponent) - 1);
  const int32_t remainder = x & mask;
  const int32_t threshold = (mask >> 1) + (x < 0 ? 1 : 0);
  return (x >> exponent) + (remainder > threshold ? 1 : 0);
}

// Two's-complement wrapping left shift: TFLite's `x * (1 << s)` on the
// hardware it targets, without C++ signed-overflow UB.
inline int32_t wrapping_shift_left(int32_t x, int shift) {
  return static_cast<int32_t>(static_cast<uint32_t>(x) << shift);
}

// int32 accumulation that wraps like the hardware TFLite runs on, without
// signed-overflow UB when a corrupt or pathological model overflows it.
inline int32_t wrapping_add(int32_t a, int32_t b) {
  return static_cast<int32_t>(static_cast<uint32_t>(a) + static_cast<uint32_t>(b));
}

// TFLite's MultiplyByQuantizedMultiplier, every case written plainly: the
// left shift wraps like TFLite's x * (1 << shift). The kernels' path for
// the usual case (requantize below) is tested against these.
namespace requantize_detail {

inline int32_t double_rounding_any(int32_t x, int32_t multiplier, int shift) {
  const int left = shift > 0 ? shift : 0;
  const int right = shift > 0 ? 0 : -shift;
  return rounding_divide_by_pot(
      saturating_rounding_doubling_high_mul(wrapping_shift_left(x, left), multiplier), right);
}

inline int32_t single_rounding_any(int32_t x, int32_t multiplier, int shift) {
  // Valid for shift in [-31, 30]: the compiler clamps multipliers so.
  const int total_shift = 31 - shift;
  const int64_t round = int64_t{1} << (total_shift - 1);
  const int64_t result = (static_cast<int64_t>(x) * multiplier + round) >> total_shift;
  return static_cast<int32_t>(result);
}

// Out of line: inlined into a kernel's loop, the rare case's registers
// would crowd the usual case's.
template <Rounding R>
__attribute__((noinline)) int32_t any_case(int32_t x, int32_t multiplier, int shift) {
  if constexpr (R == Rounding::kSingle) {
    return single_rounding_any(x, multiplier, shift);
  } else {
    return double_rounding_any(x, multiplier, shift);
  }
}

// The usual case: a right shift s = -shift >= 1 and a multiplier m >= 0.
//
// Double rounding is gemmlowp's RoundingDivideByPOT(SRDHM(x, m), s) with
// SRDHM(x, m) = y = floor((x*m + 2^30) / 2^31) (see above). Ties away from
// zero is floor((y - [y < 0] + 2^(s-1)) / 2^s), and [y < 0] may be
// replaced by [x < 0] (m >= 0): they differ only when y = 0 > x*m, where
// floor((2^(s-1) - 1) / 2^s) = 0 = floor(2^(s-1) / 2^s). Floors by
// integers nest, floor((floor(a / b) + c) / d) = floor((a + c*b) / (b*d)),
// so with g = y - [x < 0] = floor((x*m + 2^30 - [x < 0] * 2^31) / 2^31):
//   result = floor((g + 2^(s-1)) / 2^s) = ((g >> (s-1)) + 1) >> 1
//          = (x*m + 2^30 + (2^(s-1) - [x < 0]) * 2^31) >> (31 + s).
// Single rounding (TFLITE_SINGLE_ROUNDING) is directly
//   result = (x*m + 2^(s-1) * 2^31) >> (31 + s),
// the same with g = floor(x*m / 2^31). |x*m| < 2^62: nothing overflows.

// With a 32x32->64 multiply (Armv7-M, Armv8-M Mainline): the last form,
// (x*m + k) >> (31 + s) with k = [double] * 2^30 + u * 2^31 and u =
// 2^(s-1) - [double][x < 0] in [0, 2^30]. As 31 + s >= 32 only the high
// word of the sum matters, shifted right by s - 1: one SMLAL with k as its
// accumulator, the constant from the shift and x's sign in five ALU ops.
template <Rounding R>
inline int32_t right_shift_by_long_multiply(int32_t x, int32_t m, int shift) {
  const int s_minus_1 = ~shift;  // in [0, 30]
  uint32_t u = uint32_t{1} << s_minus_1;
  if constexpr (R == Rounding::kDouble) u += static_cast<uint32_t>(x >> 31);
  const uint32_t k_low = (u << 31) | (R == Rounding::kDouble ? uint32_t{1} << 30 : 0);
  const uint64_t k = (static_cast<uint64_t>(u >> 1) << 32) | k_low;
  const uint64_t sum = static_cast<uint64_t>(static_cast<int64_t>(x) * m) + k;
  return static_cast<int32_t>(static_cast<int64_t>(sum) >> 32) >> s_minus_1;
}

// The usual case's rounding term 2^(s-1) for a right shift s = -shift in
// [1, 31]. On Armv7-M and Armv8-M Mainline it is 2^31 rotated right by the
// shift register's low byte (256 - s, that is 32 - s modulo 32): one ROR,
// an asm statement of its own (not volatile) so that GCC computes it once
// per channel where a kernel rescales several outputs of one channel.
inline int32_t rounding_term(int32_t shift) {
#if defined(__ARM_ARCH_7M__) || defined(__ARM_ARCH_7EM__) || defined(__ARM_ARCH_8M_MAIN__) || \
    defined(__ARM_ARCH_8_1M_MAIN__)
  int32_t rounding;
  __asm__("ror %0, %1, %2" : "=r"(rounding) : "r"(0x80000000u), "r"(shift));
  return rounding;
#else
  return static_cast<int32_t>(uint32_t{1} << ~shift);
#endif
}

// The same as right_shift_by_long_multiply with u's first term, 2^(s-1),
// given (rounding_term): the sign's share, the two words of k, the SMLAL
// and the shift by s - 1 = ~shift.
template <Rounding R>
inline int32_t right_shift_by_rounding(int32_t x, int32_t m, int32_t rounding, int shift) {
#if defined(__ARM_ARCH_7M__) || defined(__ARM_ARCH_7EM__) || defined(__ARM_ARCH_8M_MAIN__) || \
    defined(__ARM_ARCH_8_1M_MAIN__)
  // In assembly for the ORR with a shifted register (k's low word in one
  // instruction; GCC 12 shifts, then ORRs an immediate) and so that GCC's
  // scheduler cannot interleave several channels' steps.
  int32_t low, high, result;
  if constexpr (R == Rounding::kDouble) {
    __asm__(
        "add %[high], %[rounding], %[x], asr #31\n\t"
        "orr %[low], %[half], %[high], lsl #31\n\t"
        "lsr %[high], %[high], #1\n\t"
        "smlal %[low], %[high], %[x], %[m]\n\t"
        "mvn %[low], %[shift]\n\t"
        "asr %[result], %[high], %[low]"
        : [low] "=&r"(low), [high] "=&r"(high), [result] "=r"(result)
        : [rounding] "r"(rounding), [x] "r"(x), [m] "r"(m), [shift] "r"(shift),
          [half] "r"(0x40000000));
  } else {
    __asm__(
        "lsl %[low], %[rounding], #31\n\t"
        "lsr %[high], %[rounding], #1\n\t"
        "smlal %[low], %[high], %[x], %[m]\n\t"
        "mvn %[low], %[shift]\n\t"
        "asr %[result], %[high], %[low]"
        : [low] "=&r"(low), [high] "=&r"(high), [result] "=r"(result)
        : [rounding] "r"(rounding), [x] "r"(x), [m] "r"(m), [shift] "r"(shift));
  }
  return result;
#else
  uint32_t u = static_cast<uint32_t>(rounding);
  if constexpr (R == Rounding::kDouble) u += static_cast<uint32_t>(x >> 31);
  const uint32_t k_low = (u << 31) | (R == Rounding::kDouble ? uint32_t{1} << 30 : 0);
  const uint64_t k = (static_cast<uint64_t>(u >> 1) << 32) | k_low;
  const uint64_t sum = static_cast<uint64_t>(static_cast<int64_t>(x) * m) + k;
  return static_cast<int32_t>(static_cast<int64_t>(sum) >> 32) >> ~shift;
#endif
}

// Without one (Armv6-M, Armv8-M Baseline, where a 64-bit product is a
// library call): g from the 16-bit halves x = x1*2^16 + x0 and m = m1*2^16
// + m0 (x0, m0 in [0, 2^16), x1 in [-2^15, 2^15), m1 in [0, 2^15)) with
// four MULS; every partial sum stays within 32 bits (bounds beside them).
// Then ((g >> (s-1)) + 1) >> 1.
inline uint32_t low_half(int32_t x) {
#if defined(__ARM_ARCH_6M__) || defined(__ARM_ARCH_8M_BASE__)
  // GCC 12 zero-extends with two shifts on these cores; UXTH is one.
  uint32_t low;
  __asm__("uxth %0, %1" : "=l"(low) : "l"(x));
  return low;
#else
  return static_cast<uint16_t>(x);
#endif
}

template <Rounding R>
inline int32_t right_shift_by_halves(int32_t x, int32_t m, int shift) {
  const uint32_t x0 = low_half(x);
  const int32_t x1 = x >> 16;
  const uint32_t m0 = low_half(m);
  const int32_t m1 = m >> 16;
  const uint32_t low = x0 * m0;  // <= (2^16 - 1)^2
  // x*m + [double] * 2^30 = x1*m1 * 2^32 + mid * 2^16 + x0*m1 * 2^16 +
  // (low mod 2^16), mid in [-2^15 * (2^16 - 1), 2^31 - 2^15 + 2^14).
  const int32_t mid = x1 * static_cast<int32_t>(m0) + static_cast<int32_t>(low >> 16) +
                      (R == Rounding::kDouble ? int32_t{1} << 14 : 0);
  // In [0, 2^31 - 2^15]; it carries into the high word at bit 16.
  const uint32_t mid2 = low_half(mid) + x0 * static_cast<uint32_t>(m1);
  int32_t g = 2 * (x1 * m1 + (mid >> 16)) + static_cast<int32_t>(mid2 >> 15);
  if constexpr (R == Rounding::kDouble) g += x >> 31;
  return ((g >> ~shift) + 1) >> 1;
}

template <Rounding R>
inline int32_t right_shift(int32_t x, int32_t m, int shift) {
#if defined(__ARM_ARCH_6M__) || defined(__ARM_ARCH_8M_BASE__)
  return right_shift_by_halves<R>(x, m, shift);
#else
  return right_shift_by_long_multiply<R>(x, m, shift);
#endif
}

}  // namespace requantize_detail

// TFLite's MultiplyByQuantizedMultiplier in rounding mode R, fixed at
// compile time: kernels choose the mode once per call (output_step.h), so
// no element pays a branch on it. One test and branch selects the usual
// case (right shift, multiplier >= 0: every weighted operator's).
// In mode onnx: onnxruntime's float32 step (onnx_requantize.h), `shift`
// unused.
template <Rounding R>
inline int32_t requantize(int32_t x, int32_t multiplier, int shift) {
  if constexpr (R == Rounding::kOnnx) {
    return requantize_onnx(x, multiplier);
  } else {
    if (__builtin_expect((shift & ~multiplier) < 0, 1))
      return requantize_detail::right_shift<R>(x, multiplier, shift);
    return requantize_detail::any_case<R>(x, multiplier, shift);
  }
}

// A channel with the usual case's rescale (has_fast_rescale).
template <Rounding R>
inline int32_t requantize_fast(int32_t x, const ChannelQuant& q) {
  if constexpr (R == Rounding::kOnnx) {
    return requantize_onnx(x, q.multiplier);
  } else {
#if defined(__ARM_ARCH_6M__) || defined(__ARM_ARCH_8M_BASE__)
    return requantize_detail::right_shift_by_halves<R>(x, q.multiplier, q.shift);
#else
    return requantize_detail::right_shift_by_rounding<R>(
        x, q.multiplier, requantize_detail::rounding_term(q.shift), q.shift);
#endif
  }
}

// Any channel: the usual case's step where it applies, else the general
// path.
template <Rounding R>
inline int32_t requantize(int32_t x, const ChannelQuant& q) {
  if constexpr (R == Rounding::kOnnx) {
    return requantize_onnx(x, q.multiplier);
  } else {
    if (__builtin_expect(has_fast_rescale(q), 1)) return requantize_fast<R>(x, q);
    return requantize_detail::any_case<R>(x, q.multiplier, q.shift);
  }
}

inline int32_t requantize_double(int32_t x, int32_t multiplier, int shift) {
  return requantize<Rounding::kDouble>(x, multiplier, shift);
}

inline int32_t requantize_single(int32_t x, int32_t multiplier, int shift) {
  return requantize<Rounding::kSingle>(x, multiplier, shift);
}

// The same in a mode known only at run time: for code that runs once per
// value it builds (lookup tables, compile-time constants), not per element.
inline int32_t requantize(int32_t x, int32_t multiplier, int shift, Rounding rounding) {
  if (rounding == Rounding::kOnnx) return requantize_onnx(x, multiplier);
  return rounding == Rounding::kSingle ? requantize<Rounding::kSingle>(x, multiplier, shift)
                                       : requantize<Rounding::kDouble>(x, multiplier, shift);
}

// TFLite's MultiplyByQuantizedMultiplierSmallerThanOneExp: double rounding
// in both modes' reference code for the few operators that call it.
inline int32_t requantize_smaller_than_one(int32_t x, int32_t multiplier, int shift) {
  return rounding_divide_by_pot(saturating_rounding_doubling_high_mul(x, multiplier), -shift);
}

inline int32_t clamp_i32(int32_t x, int32_t lo, int32_t hi) {
  return x < lo ? lo : (x > hi ? hi : x);
}

inline int8_t saturate_i8(int32_t x) { return static_cast<int8_t>(clamp_i32(x, -128, 127)); }

}  // namespace tinyaot
