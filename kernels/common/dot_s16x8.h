// Dot products of int16 activations with int8 weights, the inner loop of
// the int16x8 weighted variants (freestanding, header-only): `Rows` weight
// rows, `stride` bytes apart, against one run of inputs, each into its own
// accumulator of the operator's width (kernels/common/int16x8.h: int32
// wrapping, or int64).
//
// Each variant names its instruction set by a tag; the path of an
// instruction set the build lacks is the portable loop, so the host runs
// and validates programs planned for any core bit for bit.
//   DspDot: per four depths two input words (int16 pairs) regrouped by
//     PKHBT/PKHTB into the even and the odd depths, once for all rows; per
//     row one weight word widened by SXTB16 into the same even and odd
//     halves, multiplied by SMLAD (int32) or SMLALD (int64), as CMSIS-NN's
//     s16 kernels do. Both sum the two exact products into the
//     accumulator: SMLAD wraps as the reference's int32 does, SMLALD is
//     exact.
//   MveDot: eight depths a vector, the weights widened to int16 lanes by
//     the load (VLDRB.S16), multiplied by VMLADAVA.S16 (int32, wrapping) or
//     VMLALDAVA.S16 (int64); the tail predicated with VCTP16.
#pragma once

#include <stdint.h>

#include "kernels/common/int16x8.h"

#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1)
#include <arm_mve.h>
#endif
#if defined(__ARM_FEATURE_DSP) && __ARM_FEATURE_DSP
#include <arm_acle.h>
#include <string.h>

#include "kernels/common/dsp_words.h"
#endif

// A loop over the rows, unrolled so that the sums stay in registers (GCC
// 12 otherwise keeps them in a stack array). Clang reads the same pragma.
#define TINYAOT_EACH_ROW _Pragma("GCC unroll 8")

namespace tinyaot {

// The portable loop, and the tail of the DSP path: depths [from, length).
template <typename Acc, int Rows>
inline void dot_s16x8_scalar(const int16_t* in, const int8_t* w, int32_t stride, int32_t from,
                             int32_t length, Acc* acc) {
  for (int32_t k = from; k < length; ++k) {
    const int32_t x = in[k];
    TINYAOT_EACH_ROW
    for (int r = 0; r < Rows; ++r) acc[r] = accumulate(acc[r], x, w[r * stride + k]);
  }
}

#if defined(__ARM_FEATURE_DSP) && __ARM_FEATURE_DSP
// Two int16 values as one word (unaligned past 2 bytes, as the DSP cores
// allow).
inline uint32_t load_pair_s16(const int16_t* p) {
  uint32_t word;
  memcpy(&word, p, 4);
  return word;
}

// The low halves of a and b: PKHBT (not in GCC 12's ACLE).
inline int16x2_t low_halves(uint32_t a, uint32_t b) {
  int16x2_t packed;
  __asm__("pkhbt %0, %1, %2, lsl #16" : "=r"(packed) : "r"(a), "r"(b));
  return packed;
}

// The high halves of a and b: PKHTB.
inline int16x2_t high_halves(uint32_t a, uint32_t b) {
  int16x2_t packed;
  __asm__("pkhtb %0, %2, %1, asr #16" : "=r"(packed) : "r"(a), "r"(b));
  return packed;
}

inline int32_t multiply_pairs(int16x2_t a, int16x2_t b, int32_t acc) { return __smlad(a, b, acc); }
inline int64_t multiply_pairs(int16x2_t a, int16x2_t b, int64_t acc) { return __smlald(a, b, acc); }
#endif

struct DspDot {
  // Rows a pass that keep the sums, the regrouped inputs and the row
  // pointers in core registers (with four int32 rows GCC 12 spills).
  template <typename Acc>
  static constexpr int kRows = 2;

  template <typename Acc, int Rows>
  static void rows(const int16_t* in, const int8_t* w, int32_t stride, int32_t length, Acc* acc) {
    int32_t k = 0;
#if defined(__ARM_FEATURE_DSP) && __ARM_FEATURE_DSP
    Acc sums[Rows];
    TINYAOT_EACH_ROW
    for (int r = 0; r < Rows; ++r) sums[r] = acc[r];
    for (; k + 4 <= length; k += 4) {
      const uint32_t x01 = load_pair_s16(in + k), x23 = load_pair_s16(in + k + 2);
      const int16x2_t even = low_halves(x01, x23), odd = high_halves(x01, x23);
      TINYAOT_EACH_ROW
      for (int r = 0; r < Rows; ++r) {
        const uint32_t weights = load_word(w + r * stride + k);
        sums[r] = multiply_pairs(even, __sxtb16(weights), sums[r]);
        sums[r] = multiply_pairs(odd, odd_bytes(weights), sums[r]);
      }
    }
    TINYAOT_EACH_ROW
    for (int r = 0; r < Rows; ++r) acc[r] = sums[r];
#endif
    dot_s16x8_scalar<Acc, Rows>(in, w, stride, k, length, acc);
  }
};

#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1)
inline int32_t multiply_lanes(int16x8_t a, int16x8_t b, mve_pred16_t lanes, int32_t acc) {
  return vmladavaq_p_s16(acc, a, b, lanes);
}
inline int64_t multiply_lanes(int16x8_t a, int16x8_t b, mve_pred16_t lanes, int64_t acc) {
  return vmlaldavaq_p_s16(acc, a, b, lanes);
}
#endif

struct MveDot {
  // Four int32 sums, or two int64 ones (register pairs), beside the row
  // pointers in core registers.
  template <typename Acc>
  static constexpr int kRows = sizeof(Acc) == 8 ? 2 : 4;

  template <typename Acc, int Rows>
  static void rows(const int16_t* in, const int8_t* w, int32_t stride, int32_t length, Acc* acc) {
#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1)
    Acc sums[Rows];
    TINYAOT_EACH_ROW
    for (int r = 0; r < Rows; ++r) sums[r] = acc[r];
    for (int32_t left = length; left > 0; left -= 8, in += 8, w += 8) {
      const mve_pred16_t lanes = vctp16q(static_cast<uint32_t>(left));
      const int16x8_t x = vldrhq_z_s16(in, lanes);
      TINYAOT_EACH_ROW
      for (int r = 0; r < Rows; ++r)
        sums[r] = multiply_lanes(x, vldrbq_z_s16(w + r * stride, lanes), lanes, sums[r]);
    }
    TINYAOT_EACH_ROW
    for (int r = 0; r < Rows; ++r) acc[r] = sums[r];
#else
    dot_s16x8_scalar<Acc, Rows>(in, w, stride, 0, length, acc);
#endif
  }
};

}  // namespace tinyaot
