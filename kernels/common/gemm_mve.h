// Rows of raw int8 inputs times every row of an int8 weight matrix,
// requantized to int8 (freestanding, header-only): a pointwise
// convolution's output pixels, an im2col column, a fully connected
// layer's batch rows. The compiler folded input_offset * sum(weights[o])
// into each channel's bias (kernels/common/kernel_sums.h), so the inputs
// are multiplied as they lie, with no widening and no copy, and stored the
// weights in the layout of gemm_mve_layout.h.
//
// On an MVE core, four weight rows per pass over the input (CMSIS-NN's
// vec_mat_mult shape): per 16 inputs one input load, four weight loads
// from one pointer and four VMLADAVA.S8 (64 MACs in ten instructions with
// the loop's LE), the last depth % 16 in one pass predicated by VCTP8
// (loads of masked lanes read nothing and give 0); the four sums become
// one vector, take the biases and go through output_step_mve.h, a short
// last group predicated by VCTP32. Elsewhere the same sums in portable C++
// and the scalar output step, so the host runs programs planned for MVE
// cores bit for bit.
//
// Takes only channels with has_fast_rescale (the variants' validate checks).
#pragma once

#include <stdint.h>

#include "kernels/common/gemm_mve_layout.h"
#include "kernels/common/mve_asm.h"
#include "kernels/common/output_step.h"
#include "kernels/common/output_step_mve.h"
#include "kernels/common/quant.h"

namespace tinyaot {

// The input rows a matrix multiply reads, where they lie: row (i, j) at
// first + i * outer_step + j * inner_step, taken i-major; its outputs are
// consecutive, `channels` bytes each. A fully connected layer's batch rows
// and a pointwise convolution's contiguous pixels are one run (outer 1); a
// strided convolution's pixels an output row of runs per output row.
struct GemmInput {
  const int8_t* first;
  int32_t outer, outer_step;
  int32_t inner, inner_step;
};

// gemm_rows<R>(input, depth, weights, quant, channels, range, out): for
// each input row x, out[o] = requantized weights[o] . x for o in [0,
// channels), then out steps by `channels`; the weights in the layout of
// gemm_mve_layout.h.

// The output range as the row loops take it, made once per kernel call.
#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1)
using GemmRange = OutputRangeMve;
inline GemmRange gemm_range(const OutputRange& r) { return output_range_mve(r); }
#else
using GemmRange = OutputRange;
inline GemmRange gemm_range(const OutputRange& r) { return r; }
#endif

// Calls f(x) for each input row, in output order (the rows' steps by
// value: through a reference, GCC 12's row loops cost vww 39k instructions
// more).
template <typename F>
inline void for_each_input_row(const GemmInput in, F&& f) {
  const int8_t* row = in.first;
  for (int32_t i = in.outer; i > 0; --i, row += in.outer_step) {
    const int8_t* x = row;
    for (int32_t j = in.inner; j > 0; --j, x += in.inner_step) f(x);
  }
}

#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1)

// The sums of a whole group's four rows (interleaved at w) with input x
// over `depth` values, started at s0..s3 (the channels' biases). In
// assembly: GCC 12 computes the loop count from the pointers' range (five
// instructions a call) and adds the weight pointer apart from its loads;
// here one LE loop of ten instructions a block, the VMLADAVA sums in even
// registers ("Te"), two vector registers. The loop reads 16 bytes of x and
// 64 of w a block, a count known only at run time (TINYAOT_ASM_SPAN). The
// tail's loads are predicated (masked lanes read nothing and load 0), its
// rows `rest` apart: at most one block of x and four rows of 15 bytes of w
// (with intrinsics GCC 12 puts a VPST before each load and keeps less in
// registers around them: kws 34k instructions more an inference).
// gemm_group_accumulate adds them to four sums kept in core registers
// (several input rows into one group's sums: transpose_conv_s8_mve's taps).
TINYAOT_ASM_SPANS_BEGIN
__attribute__((always_inline)) inline void gemm_group_accumulate(const int8_t* x, const int8_t* w,
                                                                 int32_t blocks, int32_t rest,
                                                                 int32_t& s0, int32_t& s1,
                                                                 int32_t& s2, int32_t& s3) {
  int8x16_t v, a;
  // WLS skips the loop when there is no whole block.
  __asm__(
      "wls lr, %[n], 2f\n"
      "1:\n\t"
      "vldrb.8 %q[v], [%[x]], #16\n\t"
      "vldrb.8 %q[a], [%[w], #16]\n\t"
      "vmladava.s8 %[s1], %q[v], %q[a]\n\t"
      "vldrb.8 %q[a], [%[w], #32]\n\t"
      "vmladava.s8 %[s2], %q[v], %q[a]\n\t"
      "vldrb.8 %q[a], [%[w], #48]\n\t"
      "vmladava.s8 %[s3], %q[v], %q[a]\n\t"
      "vldrb.8 %q[a], [%[w]], #64\n\t"
      "vmladava.s8 %[s0], %q[v], %q[a]\n\t"
      "le lr, 1b\n"
      "2:"
      : [x] "+r"(x), [w] "+r"(w), [s0] "+Te"(s0), [s1] "+Te"(s1), [s2] "+Te"(s2), [s3] "+Te"(s3),
        [v] "=&w"(v), [a] "=&w"(a)
      : [n] "r"(blocks), "m"(TINYAOT_ASM_SPAN(int8_t, x, kMveBlock * blocks)),
        "m"(TINYAOT_ASM_SPAN(int8_t, w, kMveRows * kMveBlock * blocks))
      : "lr");
  if (rest != 0) {
    const int8_t* row = w;
    MveP0 p0;
    __asm__(TINYAOT_P0_SAVE
            "vctp.8 %[rest]\n\t"
            "vpstt\n\t"
            "vldrbt.8 %q[v], [%[x]]\n\t"
            "vldrbt.8 %q[a], [%[row]]\n\t"
            "vmladava.s8 %[s0], %q[v], %q[a]\n\t"
            "add %[row], %[row], %[rest]\n\t"
            "vpst\n\t"
            "vldrbt.8 %q[a], [%[row]]\n\t"
            "vmladava.s8 %[s1], %q[v], %q[a]\n\t"
            "add %[row], %[row], %[rest]\n\t"
            "vpst\n\t"
            "vldrbt.8 %q[a], [%[row]]\n\t"
            "vmladava.s8 %[s2], %q[v], %q[a]\n\t"
            "add %[row], %[row], %[rest]\n\t"
            "vpst\n\t"
            "vldrbt.8 %q[a], [%[row]]\n\t"
            "vmladava.s8 %[s3], %q[v], %q[a]" TINYAOT_P0_RESTORE
            : [row] "+r"(row), [s0] "+Te"(s0), [s1] "+Te"(s1), [s2] "+Te"(s2), [s3] "+Te"(s3),
              [v] "=&w"(v), [a] "=&w"(a), TINYAOT_WRITES_P0(p0)
            : [x] "r"(x), [rest] "r"(rest), "m"(*(const int8_t(*)[kMveBlock])x),
              "m"(*(const int8_t(*)[kMveRows * kMveBlock]) w));
  }
}
TINYAOT_ASM_SPANS_END

inline int32x4_t gemm_group_sums(const int8_t* x, const int8_t* w, int32_t blocks, int32_t rest,
                                 int32_t s0, int32_t s1, int32_t s2, int32_t s3) {
  gemm_group_accumulate(x, w, blocks, rest, s0, s1, s2, s3);
  return lanes_of_sums(s0, s1, s2, s3);
}

// The same for the last rows past the whole groups, in model order: w0..w3
// (a short group repeats its last row: read, never stored).
inline int32x4_t gemm_rows_sums(const int8_t* x, const int8_t* w0, const int8_t* w1,
                                const int8_t* w2, const int8_t* w3, int32_t depth, int32_t s0,
                                int32_t s1, int32_t s2, int32_t s3) {
  for (int32_t blocks = depth >> 4; blocks > 0; --blocks) {
    const int8x16_t v = vldrbq_s8(x);
    s0 = vmladavaq_s8(s0, v, vldrbq_s8(w0));
    s1 = vmladavaq_s8(s1, v, vldrbq_s8(w1));
    s2 = vmladavaq_s8(s2, v, vldrbq_s8(w2));
    s3 = vmladavaq_s8(s3, v, vldrbq_s8(w3));
    x += kMveBlock;
    w0 += kMveBlock;
    w1 += kMveBlock;
    w2 += kMveBlock;
    w3 += kMveBlock;
  }
  const int32_t rest = depth & (kMveBlock - 1);
  if (rest != 0) {
    const mve_pred16_t lanes = vctp8q(static_cast<uint32_t>(rest));
    const int8x16_t v = vldrbq_z_s8(x, lanes);
    s0 = vmladavaq_s8(s0, v, vldrbq_z_s8(w0, lanes));
    s1 = vmladavaq_s8(s1, v, vldrbq_z_s8(w1, lanes));
    s2 = vmladavaq_s8(s2, v, vldrbq_z_s8(w2, lanes));
    s3 = vmladavaq_s8(s3, v, vldrbq_z_s8(w3, lanes));
  }
  return lanes_of_sums(s0, s1, s2, s3);
}

// One to three channels left past the whole groups, in model order; a
// short group repeats its last row (read, never stored).
template <Rounding R, typename Rows>
inline void gemm_last_channels(const Rows& rows, int32_t depth, const int8_t* weights,
                               const ChannelQuant* quant, int32_t left, const GemmRange& range,
                               int8_t* out, int32_t out_step) {
  const int8_t* const w0 = weights;
  const int8_t* const w1 = left > 1 ? w0 + depth : w0;
  const int8_t* const w2 = left > 2 ? w1 + depth : w1;
  const mve_pred16_t lanes = vctp32q(static_cast<uint32_t>(left));
  const ChannelQuantLanes q = load_channel_quant_x4(quant, lanes);
  rows([&](const int8_t* x) {
    const int32x4_t sums = gemm_rows_sums(x, w0, w1, w2, w2, depth, 0, 0, 0, 0);
    output_step_mve<R>(out, wrapping_add_lanes(sums, q.bias), q, range, lanes);
    out += out_step;
  });
}

// Groups of four channels outside, input rows inside: a group's biases,
// multipliers, shifts and the output range stay in vector registers across
// the rows (the sums start at 0 and take the biases with one VADD, which
// leaves the core registers to the loop).
template <Rounding R>
inline void gemm_rows(const GemmInput& input, int32_t depth, const int8_t* weights,
                      const ChannelQuant* quant, int32_t channels, const OutputRange& r,
                      int8_t* output) {
  const GemmRange range = gemm_range(r);
  const int32_t grouped = channels - channels % kMveRows;
  const int32_t blocks = depth / kMveBlock, rest = depth % kMveBlock;
  const auto rows = [&input](auto&& f) { for_each_input_row(input, f); };
  int32_t o = 0;
  for (; o < grouped; o += kMveRows, weights += kMveRows * depth) {
    const ChannelQuantLanes q = load_channel_quant_x4(quant + o);
    const int8_t* const w = weights;
    int8_t* out = output + o;
    if (blocks == 0) {
      // Fewer than 16 values a row: the group's four rows stay in vector
      // registers across the input rows (one predicated load a row).
      const mve_pred16_t lanes = vctp8q(static_cast<uint32_t>(rest));
      const int8x16_t w0 = vldrbq_z_s8(w, lanes), w1 = vldrbq_z_s8(w + rest, lanes);
      const int8x16_t w2 = vldrbq_z_s8(w + 2 * rest, lanes), w3 = vldrbq_z_s8(w + 3 * rest, lanes);
      rows([=](const int8_t* x) mutable {
        const int8x16_t v = vldrbq_z_s8(x, lanes);
        const int32x4_t sums = lanes_of_sums(vmladavq_s8(v, w0), vmladavq_s8(v, w1),
                                             vmladavq_s8(v, w2), vmladavq_s8(v, w3));
        vstrbq_s32(out, offset_and_clamp_mve(requantize_mve<R>(wrapping_add_lanes(sums, q.bias),
                                                               q.multiplier, q.shift),
                                             range));
        out += channels;
      });
      continue;
    }
    // Captured by value (here and above): by reference, GCC 12 keeps less
    // of the group's constants and range in registers across the rows (kws
    // 64k instructions more an inference, vww 63k in the loop above).
    rows([=](const int8_t* x) mutable {
      const int32x4_t sums = gemm_group_sums(x, w, blocks, rest, 0, 0, 0, 0);
      vstrbq_s32(out, offset_and_clamp_mve(requantize_mve<R>(wrapping_add_lanes(sums, q.bias),
                                                             q.multiplier, q.shift),
                                           range));
      out += channels;
    });
  }
  if (o < channels)
    gemm_last_channels<R>(rows, depth, weights, quant + o, channels - o, range, output + o,
                          channels);
}

// One input row x: out[o] = requantized weights[o] . x for o in [0,
// channels). The group loop alone (an im2col column, a batch of one).
template <Rounding R>
inline void gemm_row(const int8_t* x, int32_t depth, const int8_t* weights,
                     const ChannelQuant* quant, int32_t channels, const GemmRange& range,
                     int8_t* out) {
  const int32_t grouped = channels - channels % kMveRows;
  const int32_t blocks = depth / kMveBlock, rest = depth % kMveBlock;
  int32_t o = 0;
  for (; o < grouped; o += kMveRows, weights += kMveRows * depth) {
    const ChannelQuantLanes q = load_channel_quant_x4(quant + o);
    const int32x4_t sums = gemm_group_sums(x, weights, blocks, rest, 0, 0, 0, 0);
    vstrbq_s32(out + o, offset_and_clamp_mve(requantize_mve<R>(wrapping_add_lanes(sums, q.bias),
                                                               q.multiplier, q.shift),
                                             range));
  }
  if (o < channels) {
    const auto row = [x](auto&& f) { f(x); };
    gemm_last_channels<R>(row, depth, weights, quant + o, channels - o, range, out + o, 0);
  }
}

#else

template <Rounding R>
inline void gemm_rows(const GemmInput& input, int32_t depth, const int8_t* weights,
                      const ChannelQuant* quant, int32_t channels, const OutputRange& range,
                      int8_t* out) {
  for_each_input_row(input, [&](const int8_t* x) {
    for (int32_t o = 0; o < channels; ++o) {
      uint32_t sum = 0;  // wraps like the hardware's int32 accumulator
      for (int32_t d = 0; d < depth; ++d)
        sum += static_cast<uint32_t>(x[d] * weights[mve_weight_position(channels, depth, o, d)]);
      out[o] = fast_output_step<R>(sum, quant[o], range);
    }
    out += channels;
  });
}

template <Rounding R>
inline void gemm_row(const int8_t* x, int32_t depth, const int8_t* weights,
                     const ChannelQuant* quant, int32_t channels, const GemmRange& range,
                     int8_t* out) {
  const GemmInput one = {x, 1, 0, 1, 0};
  gemm_rows<R>(one, depth, weights, quant, channels, range, out);
}

#endif

}  // namespace tinyaot
