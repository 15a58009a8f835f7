// The dot products of FULLY_CONNECTED's DSP variant (freestanding,
// header-only), shared with the other kernels that multiply rows of int8
// weights in the blocked layout of fully_connected_blocks.h (the LSTM's
// gates): four units per pass over the input, their weights interleaved so
// that per group of four depths one input word is widened once by two
// SXTB16 (even and odd bytes) and four rows' weight words, 16 aligned
// bytes, are widened and multiplied by SMLAD: 4 + 16 instructions for 16
// MACs.
#pragma once

#include <stdint.h>

#include "kernels/common/dsp_words.h"
#include "kernels/fully_connected/fully_connected_blocks.h"

#if defined(__ARM_FEATURE_DSP) && __ARM_FEATURE_DSP
#include <arm_acle.h>
#include <string.h>
#endif

namespace tinyaot {
namespace fc_dsp {

#if defined(__ARM_FEATURE_DSP) && __ARM_FEATURE_DSP
// The word at *at (unaligned, as the cores allow), the pointer stepped
// past it: one LDR with post-increment (GCC 12 forms it in a simple loop,
// not in the loop above unrolled twice).
inline uint32_t load_word_next(const int8_t** at) {
  uint32_t word;
  __asm__("ldr %0, [%1], #4" : "=r"(word), "+r"(*at) : : "memory");
  return word;
}

// Two words of a block's group, the pointer stepped past them: one LDRD
// with post-increment (GCC 12 emits two LDRDs at offsets and a separate
// add). A block starts at a multiple of 4 * depth bytes of the 16-byte
// aligned filter, so the words are aligned, as LDRD needs (validate checks
// the filter's alignment).
inline void load_pair(const int8_t** at, uint32_t* first, uint32_t* second) {
  __asm__("ldrd %0, %1, [%2], #8" : "=r"(*first), "=r"(*second), "+r"(*at) : : "memory");
}

// sum += the four products of a's and w's bytes.
inline int32_t dot4(int16x2_t a_even, int16x2_t a_odd, uint32_t w, int32_t sum) {
  sum = __smlad(a_even, __sxtb16(w), sum);
  return __smlad(a_odd, odd_bytes(w), sum);
}
#endif

// The weights are signed int8, the sums start at 0.
struct DspDot {
  static uint32_t start(const int8_t*, int32_t) { return 0; }

  // Out of line: inlined into the loop over blocks, GCC keeps the loop's
  // end in memory and reloads it every group.
  __attribute__((noinline)) static void block(const int8_t* in, const int8_t* w, int32_t depth,
                                              uint32_t start, uint32_t* acc) {
    const int32_t whole = depth - depth % kFcGroupDepth;
    const int8_t* const whole_end = in + whole;
    uint32_t s0 = start, s1 = start, s2 = start, s3 = start;
#if defined(__ARM_FEATURE_DSP) && __ARM_FEATURE_DSP
    int32_t d0 = static_cast<int32_t>(s0), d1 = d0, d2 = d0, d3 = d0;
    const int8_t* group = w;
    const int8_t* x_at = in;
    // One group: an input word against four rows' words. Two per pass of
    // the loop, one before it when the count is odd.
    const auto step = [&]() {
      const uint32_t x = load_word_next(&x_at);
      const int16x2_t even = __sxtb16(x), odd = odd_bytes(x);
      uint32_t w0, w1, w2, w3;
      load_pair(&group, &w0, &w1);
      d0 = dot4(even, odd, w0, d0);
      d1 = dot4(even, odd, w1, d1);
      load_pair(&group, &w2, &w3);
      d2 = dot4(even, odd, w2, d2);
      d3 = dot4(even, odd, w3, d3);
    };
    if (whole % (2 * kFcGroupDepth) != 0) step();
    while (x_at != whole_end) {
      step();
      step();
    }
    w += kFcBlockRows * whole;
    s0 = static_cast<uint32_t>(d0);
    s1 = static_cast<uint32_t>(d1);
    s2 = static_cast<uint32_t>(d2);
    s3 = static_cast<uint32_t>(d3);
    in = whole_end;
#else
    for (; in != whole_end; in += kFcGroupDepth, w += kFcBlockRows * kFcGroupDepth) {
      for (int32_t k = 0; k < kFcGroupDepth; ++k) {
        const int32_t x = in[k];
        s0 += static_cast<uint32_t>(x * w[k]);
        s1 += static_cast<uint32_t>(x * w[kFcGroupDepth + k]);
        s2 += static_cast<uint32_t>(x * w[2 * kFcGroupDepth + k]);
        s3 += static_cast<uint32_t>(x * w[3 * kFcGroupDepth + k]);
      }
    }
#endif
    const int32_t tail = depth - whole;
    for (int32_t k = 0; k < tail; ++k) {
      const int32_t x = in[k];
      s0 += static_cast<uint32_t>(x * w[k]);
      s1 += static_cast<uint32_t>(x * w[tail + k]);
      s2 += static_cast<uint32_t>(x * w[2 * tail + k]);
      s3 += static_cast<uint32_t>(x * w[3 * tail + k]);
    }
    acc[0] = s0;
    acc[1] = s1;
    acc[2] = s2;
    acc[3] = s3;
  }

  static uint32_t row(const int8_t* in, const int8_t* w, int32_t depth, uint32_t start) {
    int32_t k = 0;
    uint32_t sum = start;
#if defined(__ARM_FEATURE_DSP) && __ARM_FEATURE_DSP
    int32_t dsp = static_cast<int32_t>(sum);
    for (; k + kFcGroupDepth <= depth; k += kFcGroupDepth) {
      const uint32_t x = load_word(in + k);
      dsp = dot4(__sxtb16(x), odd_bytes(x), load_word(w + k), dsp);
    }
    sum = static_cast<uint32_t>(dsp);
#endif
    for (; k < depth; ++k) sum += static_cast<uint32_t>(in[k] * w[k]);
    return sum;
  }
};

}  // namespace fc_dsp
}  // namespace tinyaot
