// Dot product of two int8 vectors into a wrapping 32-bit sum (freestanding,
// header-only). On an MVE core: VMLADAVA.S8 over 16 lanes, the tail
// predicated with VCTP8 (CMSIS-NN's arm_nn_vec_mat_mult_t_s8 shape); on
// every other build the same sum in portable C++, so the host can run and
// validate programs planned for MVE cores bit for bit.
#pragma once

#include <stdint.h>

#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1)
#include <arm_mve.h>
#endif
#include "kernels/common/dsp_words.h"

namespace tinyaot {

inline uint32_t dot_s8(const int8_t* a, const int8_t* b, int32_t length) {
#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1)
  int32_t sum = 0;
  for (int32_t left = length; left > 0; left -= 16) {
    const mve_pred16_t lanes = vctp8q(static_cast<uint32_t>(left));
    sum = vmladavaq_p_s8(sum, vldrbq_z_s8(a, lanes), vldrbq_z_s8(b, lanes), lanes);
    a += 16;
    b += 16;
  }
  return static_cast<uint32_t>(sum);
#else
  uint32_t sum = 0;  // wraps like the hardware's int32 accumulator
  for (int32_t k = 0; k < length; ++k) sum += static_cast<uint32_t>(a[k] * b[k]);
  return sum;
#endif
}

// Two dot products sharing one weight vector: *sum_a += w . a, *sum_b +=
// w . b (wrapping). On a DSP core: four weights per 32-bit load, widened by
// SXTB16 into even and odd halves, each multiplied with the matching halves
// of the inputs by SMLAD (exact 16-bit products, the sum wraps like the
// reference's int32 accumulator), as CMSIS-NN's DSP matrix kernels do.
inline void dot_s8_pair(const int8_t* w, const int8_t* a, const int8_t* b, int32_t length,
                        uint32_t* sum_a, uint32_t* sum_b) {
  int32_t k = 0;
  uint32_t acc_a = *sum_a, acc_b = *sum_b;
#if defined(__ARM_FEATURE_DSP) && __ARM_FEATURE_DSP
  int32_t dsp_a = static_cast<int32_t>(acc_a), dsp_b = static_cast<int32_t>(acc_b);
  for (; k + 4 <= length; k += 4) {
    const uint32_t w4 = load_word(w + k), a4 = load_word(a + k), b4 = load_word(b + k);
    const int16x2_t w_even = __sxtb16(w4), w_odd = odd_bytes(w4);
    dsp_a = __smlad(w_even, __sxtb16(a4), dsp_a);
    dsp_a = __smlad(w_odd, odd_bytes(a4), dsp_a);
    dsp_b = __smlad(w_even, __sxtb16(b4), dsp_b);
    dsp_b = __smlad(w_odd, odd_bytes(b4), dsp_b);
  }
  acc_a = static_cast<uint32_t>(dsp_a);
  acc_b = static_cast<uint32_t>(dsp_b);
#endif
  for (; k < length; ++k) {
    acc_a += static_cast<uint32_t>(w[k] * a[k]);
    acc_b += static_cast<uint32_t>(w[k] * b[k]);
  }
  *sum_a = acc_a;
  *sum_b = acc_b;
}

// Four dot products sharing one weight vector: acc[j] = weights . column j,
// the columns `length` apart (wrapping). On an MVE core: VMLADAVA.S8 of 16
// weights against 16 bytes of each column, one weight vector load shared by
// the four columns, the tail predicated with VCTP8, as CMSIS-NN's
// arm_nn_mat_mult_nt_t_s8 does.
inline void dot_s8_four(const int8_t* weights, const int8_t* columns, int32_t length,
                        uint32_t* acc) {
#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1)
  const int8_t* c0 = columns;
  const int8_t* c1 = c0 + length;
  const int8_t* c2 = c1 + length;
  const int8_t* c3 = c2 + length;
  int32_t a0 = 0, a1 = 0, a2 = 0, a3 = 0;
  for (int32_t left = length; left > 0; left -= 16) {
    const mve_pred16_t lanes = vctp8q(static_cast<uint32_t>(left));
    const int8x16_t w = vldrbq_z_s8(weights, lanes);
    a0 = vmladavaq_p_s8(a0, vldrbq_z_s8(c0, lanes), w, lanes);
    a1 = vmladavaq_p_s8(a1, vldrbq_z_s8(c1, lanes), w, lanes);
    a2 = vmladavaq_p_s8(a2, vldrbq_z_s8(c2, lanes), w, lanes);
    a3 = vmladavaq_p_s8(a3, vldrbq_z_s8(c3, lanes), w, lanes);
    weights += 16;
    c0 += 16;
    c1 += 16;
    c2 += 16;
    c3 += 16;
  }
  acc[0] = static_cast<uint32_t>(a0);
  acc[1] = static_cast<uint32_t>(a1);
  acc[2] = static_cast<uint32_t>(a2);
  acc[3] = static_cast<uint32_t>(a3);
#else
  uint32_t a0 = 0, a1 = 0, a2 = 0, a3 = 0;
  for (int32_t k = 0; k < length; ++k) {
    const int32_t w = weights[k];
    a0 += static_cast<uint32_t>(columns[k] * w);
    a1 += static_cast<uint32_t>(columns[length + k] * w);
    a2 += static_cast<uint32_t>(columns[2 * length + k] * w);
    a3 += static_cast<uint32_t>(columns[3 * length + k] * w);
  }
  acc[0] = a0;
  acc[1] = a1;
  acc[2] = a2;
  acc[3] = a3;
#endif
}

}  // namespace tinyaot
