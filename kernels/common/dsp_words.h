// Word loads and byte widening shared by the DSP kernels (freestanding,
// header-only; empty unless the core has the DSP extension).
#pragma once

#if defined(__ARM_FEATURE_DSP) && __ARM_FEATURE_DSP
#include <arm_acle.h>
#include <stdint.h>
#include <string.h>

namespace tinyaot {

// Four int8 values as one 32-bit word (an unaligned LDR, as the cores
// with the DSP extension allow).
inline uint32_t load_word(const int8_t* p) {
  uint32_t word;
  memcpy(&word, p, 4);
  return word;
}

// SXTB16 of the word rotated right by 8: bytes 1 and 3 widened to int16
// (__sxtb16 widens bytes 0 and 2). GCC 12 neither has ACLE's __ror nor
// folds a shift-or into the instruction's rotation, hence the asm.
inline int16x2_t odd_bytes(uint32_t x) {
  int16x2_t widened;
  __asm__("sxtb16 %0, %1, ror #8" : "=r"(widened) : "r"(x));
  return widened;
}

}  // namespace tinyaot
#endif
