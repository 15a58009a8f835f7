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

}  // namespace tinyaot
