// The case and the constant layout of transpose_conv_s8_mve (freestanding,
// header-only, host and device): written once, so that the compiler
// stores the weights and the taps' offset sums as the kernel reads them
// and the sweeps reorder their random weights the same way.
//
// Output channels in groups of four (kMveRows; the last group padded with
// zero channels), per group the filter's taps in model order (ky, then
// kx), per tap:
// - the input offset's share of the group's four channels,
//   input_offset * sum(weights of the tap), as four int32 (little-endian;
//   0 for a padding channel): which taps reach an output pixel depends on
//   the pixel (its phase against the stride, the edges), so this share
//   cannot go into the bias once; the kernel adds it per tap it takes, one
//   post-indexed VLDRW that also steps to
// - the group's four rows of input_depth weights in the layout of
//   gemm_mve_layout.h (blocks of 16 interleaved, then each row's last
//   input_depth % 16), so that gemm_mve.h's group step multiplies one
//   input pixel by one tap.
// A tap is 16 + 4 * input_depth bytes, a multiple of 4: with the operand
// 16-byte aligned every offset sum is word-aligned.
#pragma once

#include <stdint.h>

#include "kernels/common/gemm_mve_layout.h"
#include "kernels/common/kernel_sums.h"
#include "kernels/transpose_conv/transpose_conv.h"
#include "tinyaot/load_time.h"

namespace tinyaot {

// Bytes of a tap's offset sums.
constexpr int32_t kTransposeConvOffsetBytes = kMveRows * 4;

struct TransposeConvMveShape {
  int32_t groups;       // groups of four output channels
  int32_t taps;         // filter_h * filter_w
  int64_t tap_bytes;    // a group's tap: offset sums, then 4 * input_depth weights
  int64_t group_bytes;  // taps * tap_bytes
};

// For params whose sizes are positive.
inline TransposeConvMveShape transpose_conv_mve_shape(const TransposeConvParams& p) {
  TransposeConvMveShape s;
  s.groups = static_cast<int32_t>((int64_t{p.output_depth} + kMveRows - 1) / kMveRows);
  s.taps = static_cast<int32_t>(int64_t{p.filter_h} * p.filter_w);
  s.tap_bytes = kTransposeConvOffsetBytes + int64_t{kMveRows} * p.input_depth;
  s.group_bytes = s.taps * s.tap_bytes;
  return s;
}

inline int64_t transpose_conv_mve_weight_bytes(const TransposeConvParams& p) {
  const TransposeConvMveShape s = transpose_conv_mve_shape(p);
  return s.groups * s.group_bytes;
}

// The variant's case: every shape the family takes whose model weights
// and laid-out constants fit a 32-bit operand size, and whose
// output coordinates plus the leading padding fit int32 (the lowering's
// padding is below the filter).
TINYAOT_LOAD_TIME inline bool is_transpose_conv_mve_case(const TransposeConvParams& p) {
  if (p.filter_h < 1 || p.filter_w < 1 || p.input_depth < 1 || p.output_depth < 1) return false;
  if (int64_t{p.output_h} + p.pad_top > INT32_MAX || int64_t{p.output_w} + p.pad_left > INT32_MAX)
    return false;
  const int64_t taps = int64_t{p.filter_h} * p.filter_w;
  if (taps > INT32_MAX || taps * p.input_depth > INT32_MAX) return false;
  if (taps * p.input_depth * p.output_depth > INT32_MAX) return false;
  return transpose_conv_mve_weight_bytes(p) <= INT32_MAX;
}

// Model weights [output_depth][filter_h][filter_w][input_depth] into the
// layout (transpose_conv_mve_weight_bytes(p) bytes at `out`), with the
// offset sums wrapping like the accumulator.
inline void order_transpose_conv_mve_weights(const TransposeConvParams& p, const int8_t* model,
                                             int8_t* out) {
  const TransposeConvMveShape s = transpose_conv_mve_shape(p);
  const int32_t depth = p.input_depth;
  for (int32_t g = 0; g < s.groups; ++g)
    for (int32_t t = 0; t < s.taps; ++t) {
      for (int32_t j = 0; j < kMveRows; ++j, out += 4) {
        const int32_t o = g * kMveRows + j;
        const uint32_t sum = o < p.output_depth
                                 ? static_cast<uint32_t>(
                                       kernel_sum(model + (int64_t{o} * s.taps + t) * depth, depth))
                                 : 0;
        const uint32_t share = static_cast<uint32_t>(p.input_offset) * sum;
        for (int32_t byte = 0; byte < 4; ++byte)
          out[byte] = static_cast<int8_t>(static_cast<uint8_t>(share >> (8 * byte)));
      }
      for (int32_t j = 0; j < kMveRows; ++j) {
        const int32_t o = g * kMveRows + j;
        const int8_t* row = model + (int64_t{o} * s.taps + t) * depth;
        for (int32_t d = 0; d < depth; ++d)
          out[mve_weight_position(kMveRows, depth, j, d)] = o < p.output_depth ? row[d] : int8_t{0};
      }
      out += int64_t{kMveRows} * depth;
    }
}

}  // namespace tinyaot
