// The register-blocked int8 GEMM micro-kernels of the convolution variants
// (freestanding, header-only): two output channels x two output pixels per
// pass over a segment of the reduction, so that each weight word and each
// input word is loaded once for two products.
//
// Weights of a channel pair are stored interleaved by the compiler
// (interleave_row_pairs): per segment, four weights of the first row, four
// of the second, and so on, the last length % 4 of each row at the
// segment's end. One pointer then walks both rows. The inputs are raw int8
// (the input offset is in the bias), so both operands widen the same way:
// on a DSP core SXTB16 splits a word into its even and odd bytes, and one
// SMLAD multiplies two of them with the matching two of the other operand
// (exact 16-bit products; the 32-bit sum wraps like the reference's
// accumulator); the 2x2 block there is assembly (gemm_block_dsp.h).
// Elsewhere plain C++ over the same layout.
#pragma once

#include <stdint.h>

#include "kernels/common/dsp_words.h"
#include "kernels/conv2d/gemm_block_dsp.h"

namespace tinyaot {

// Weights per chunk of the interleaved layout (one 32-bit word per row).
constexpr int32_t kGemmChunk = 4;

// Puts `rows` rows of `row_length` int8 weights, each made of segments of
// `segment` weights, in the layout the micro-kernels read: each segment
// stored as `stored_segment` weights (>= segment; the extra ones 0, so that
// a kernel may read a column padded to whole chunks), rows paired (0,1),
// (2,3)...; within a pair, segment by segment, alternate chunks of
// kGemmChunk weights, then both rows' remainders. An odd last row is
// stored alone, its segments padded the same way. `out` holds
// rows * (row_length / segment) * stored_segment bytes.
inline void interleave_row_pairs(const int8_t* rows_in, int32_t rows, int32_t row_length,
                                 int32_t segment, int32_t stored_segment, int8_t* out) {
  const auto weight = [&](int32_t row, int32_t start, int32_t k) -> int8_t {
    return k < segment ? rows_in[row * row_length + start + k] : 0;
  };
  const int32_t whole = stored_segment - stored_segment % kGemmChunk;
  int32_t r = 0;
  for (; r + 1 < rows; r += 2) {
    for (int32_t start = 0; start < row_length; start += segment) {
      for (int32_t k = 0; k < whole; k += kGemmChunk) {
        for (int32_t i = 0; i < kGemmChunk; ++i) *out++ = weight(r, start, k + i);
        for (int32_t i = 0; i < kGemmChunk; ++i) *out++ = weight(r + 1, start, k + i);
      }
      for (int32_t k = whole; k < stored_segment; ++k) *out++ = weight(r, start, k);
      for (int32_t k = whole; k < stored_segment; ++k) *out++ = weight(r + 1, start, k);
    }
  }
  if (r < rows)
    for (int32_t start = 0; start < row_length; start += segment)
      for (int32_t k = 0; k < stored_segment; ++k) *out++ = weight(r, start, k);
}

// s += w * x as one MLA on Armv7-M (the product wraps like the sum):
// written plainly, GCC 12 reassociates an unrolled chain of them into MULs
// and MLAs on partial sums plus an ADD per chain.
inline void gemm_mla(uint32_t& s, int32_t w, int32_t x) {
#if defined(__ARM_ARCH_7M__) || defined(__ARM_ARCH_7EM__) || defined(__ARM_ARCH_8M_MAIN__)
  __asm__("mla %0, %1, %2, %0" : "+r"(s) : "r"(w), "r"(x));
#else
  s += static_cast<uint32_t>(w * x);
#endif
}

// Four products of two inputs and two weights into the 2x2 sums (wrapping).
inline void gemm_mac_2x2(int32_t x, int32_t y, int32_t w0, int32_t w1, uint32_t* s) {
  gemm_mla(s[0], w0, x);
  gemm_mla(s[1], w0, y);
  gemm_mla(s[2], w1, x);
  gemm_mla(s[3], w1, y);
}

// acc[0] += w0 . a, acc[1] += w0 . b, acc[2] += w1 . a, acc[3] += w1 . b
// over `length` values, w0 and w1 interleaved at `pair` (2 * length bytes).
// Returns the pair's next segment.
inline const int8_t* gemm_block_2x2(const int8_t* pair, const int8_t* a, const int8_t* b,
                                    int32_t length, uint32_t* acc) {
#if defined(__ARM_FEATURE_DSP) && __ARM_FEATURE_DSP
  const GemmSegment segment{a, b, length};
  return tinyaot_gemm_block_2x2_dsp(pair, &segment, &segment + 1, acc);
#else
  const int32_t whole = length - length % kGemmChunk;
  const int8_t* const whole_end = a + whole;
#if defined(__ARM_ARCH_6M__)
  // Cortex-M0/M0+: eight low registers cannot hold four sums, three
  // pointers and the operands, so one row at a time (two sums). LDRSB has
  // only a register offset here, so the three operands share one index t:
  // weight t of the row lies at row_base + t, where row_base steps by a
  // chunk per chunk (the other row's chunk sits between).
  uint32_t s[4];
  for (int32_t row = 0; row < 2; ++row) {
    uint32_t sum_a = acc[2 * row], sum_b = acc[2 * row + 1];
    const int8_t* row_base = pair + row * kGemmChunk;
    for (int32_t t = 0; t < whole; row_base += kGemmChunk) {
      for (int32_t i = 0; i < kGemmChunk; ++i, ++t) {
        const int32_t w = row_base[t];
        sum_a += static_cast<uint32_t>(w * a[t]);
        sum_b += static_cast<uint32_t>(w * b[t]);
      }
    }
    s[2 * row] = sum_a;
    s[2 * row + 1] = sum_b;
  }
  a = whole_end;
  b += whole;
  pair += 2 * whole;
#else
  // Scalar Armv7-M: four sums in registers, one LDRSB per operand, MLA.
  uint32_t s[4] = {acc[0], acc[1], acc[2], acc[3]};
  while (a != whole_end) {
#pragma GCC unroll 4
    for (int32_t i = 0; i < kGemmChunk; ++i)
      gemm_mac_2x2(a[i], b[i], pair[i], pair[kGemmChunk + i], s);
    a += kGemmChunk;
    b += kGemmChunk;
    pair += 2 * kGemmChunk;
  }
#endif
  const int32_t rest = length - whole;
  for (int32_t i = 0; i < rest; ++i) gemm_mac_2x2(a[i], b[i], pair[i], pair[rest + i], s);
  for (int32_t i = 0; i < 4; ++i) acc[i] = s[i];
  return pair + 2 * rest;
#endif
}

// acc[0] += w0 . a, acc[1] += w1 . a: one pixel, a channel pair
// interleaved at `pair`. Returns the pair's next segment.
inline const int8_t* gemm_block_2x1(const int8_t* pair, const int8_t* a, int32_t length,
                                    uint32_t* acc) {
  const int32_t whole = length - length % kGemmChunk;
  const int8_t* const whole_end = a + whole;
  uint32_t s0 = acc[0], s1 = acc[1];
#if defined(__ARM_FEATURE_DSP) && __ARM_FEATURE_DSP
  int32_t d0 = static_cast<int32_t>(s0), d1 = static_cast<int32_t>(s1);
  while (a != whole_end) {
    const uint32_t a4 = load_word(a);
    a += kGemmChunk;
    const int16x2_t a_even = __sxtb16(a4), a_odd = odd_bytes(a4);
    const uint32_t w0 = load_word(pair), w1 = load_word(pair + kGemmChunk);
    pair += 2 * kGemmChunk;
    d0 = __smlad(__sxtb16(w0), a_even, d0);
    d0 = __smlad(odd_bytes(w0), a_odd, d0);
    d1 = __smlad(__sxtb16(w1), a_even, d1);
    d1 = __smlad(odd_bytes(w1), a_odd, d1);
  }
  s0 = static_cast<uint32_t>(d0);
  s1 = static_cast<uint32_t>(d1);
#else
  while (a != whole_end) {
    for (int32_t i = 0; i < kGemmChunk; ++i) {
      const int32_t x = a[i];
      s0 += static_cast<uint32_t>(pair[i] * x);
      s1 += static_cast<uint32_t>(pair[kGemmChunk + i] * x);
    }
    a += kGemmChunk;
    pair += 2 * kGemmChunk;
  }
#endif
  const int32_t rest = length - whole;
  for (int32_t i = 0; i < rest; ++i) {
    s0 += static_cast<uint32_t>(pair[i] * a[i]);
    s1 += static_cast<uint32_t>(pair[rest + i] * a[i]);
  }
  acc[0] = s0;
  acc[1] = s1;
  return pair + 2 * rest;
}

}  // namespace tinyaot
