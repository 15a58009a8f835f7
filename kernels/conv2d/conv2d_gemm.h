// The output-pixel step of the register-blocked convolution variants
// (freestanding, header-only): one or two output pixels, every output
// channel, from a walk over the segments of their windows. A walk calls
// f(a, b, length) once per segment (a and b: the two pixels' inputs for
// it, `length` raw int8 values each); a pointwise convolution has one
// segment (the pixel's channels), a general window one per tap. Channel
// pairs run the 2x2 blocks of gemm_blocks.h over weights interleaved by
// interleave_row_pairs; an odd last channel runs a plain row.
#pragma once

#include <stdint.h>
#include <string.h>

#include "kernels/common/dot_s8.h"
#include "kernels/common/output_step.h"
#include "kernels/common/quant.h"
#include "kernels/common/validate.h"
#include "kernels/conv2d/conv2d.h"
#include "kernels/conv2d/gemm_blocks.h"
#include "tinyaot/load_time.h"

namespace tinyaot {

// The drivers' output step takes precomputed rescales only
// (has_fast_rescale): every variant that runs them refuses any other
// channel with this in its validate, after the family's checks.
TINYAOT_LOAD_TIME inline Status validate_gemm_quant(const Conv2dParams& p,
                                                    const OperandView* inputs) {
  return is_fast_channel_quant_operand(inputs[2], p.output_depth) ? Status::kOk
                                                                  : Status::kBadParams;
}

// The outputs of a 2x2 block, channels q[0] and q[1] of pixels a and b,
// from sums that started at the channels' biases: every value first, then
// the stores (a store through int8_t* would make the compiler reload the
// constants). On a DSP core the four clamped together (clamp_pack4) and
// stored as two halfwords, each pixel's channel pair being adjacent.
template <Rounding R>
inline void store_block_2x2(const uint32_t* acc, const ChannelQuant* q, const OutputRange& range,
                            int8_t* out_a, int8_t* out_b) {
  const int32_t a0 = fast_output_value<R>(acc[0], q[0], range.output_offset);
  const int32_t b0 = fast_output_value<R>(acc[1], q[0], range.output_offset);
  const int32_t a1 = fast_output_value<R>(acc[2], q[1], range.output_offset);
  const int32_t b1 = fast_output_value<R>(acc[3], q[1], range.output_offset);
#if defined(__ARM_FEATURE_DSP) && __ARM_FEATURE_DSP
  const uint32_t word = clamp_pack4(a0, a1, b0, b1, packed_range(range));
  const auto low = static_cast<uint16_t>(word), high = static_cast<uint16_t>(word >> 16);
  memcpy(out_a, &low, 2);
  memcpy(out_b, &high, 2);
#else
  out_a[0] = clamp_output(a0, range);
  out_a[1] = clamp_output(a1, range);
  out_b[0] = clamp_output(b0, range);
  out_b[1] = clamp_output(b1, range);
#endif
}

#if defined(__ARM_FEATURE_DSP) && __ARM_FEATURE_DSP
// A walk's segments, gathered once per pixel pair on a DSP core, so that
// the assembly block takes every segment of a channel pair in one call (a
// call per segment costs more than a short segment's chunks save) and the
// walk's bounds checks run once, not once per channel pair. Up to
// kSegments: a 3x3 window tap by tap, or a 4x4 one.
struct GemmSegmentList {
  static constexpr int32_t kSegments = 16;
  GemmSegment segments[kSegments];

  // The list's end, or nullptr when the walk has more segments than it
  // holds (then a call per segment).
  template <typename Walk>
  const GemmSegment* gather(const Walk& walk) {
    int32_t count = 0;
    walk([&](const int8_t* a, const int8_t* b, int32_t length) {
      if (count < kSegments) segments[count] = {a, b, length};
      ++count;
    });
    return count <= kSegments ? segments + count : nullptr;
  }
};
#endif

// Output pixels a and b (their output_depth values at out_a and out_b).
template <Rounding R, typename Walk>
inline void conv2d_gemm_two_pixels(const Conv2dParams& p, const Walk& walk, const int8_t* filter,
                                   const ChannelQuant* quant, int8_t* out_a, int8_t* out_b) {
  const OutputRange range = output_range(p);
  const int32_t channels = p.output_depth;
#if defined(__ARM_FEATURE_DSP) && __ARM_FEATURE_DSP
  GemmSegmentList list;
  const GemmSegment* const listed_end = list.gather(walk);
#endif
  const int8_t* pair = filter;
  int32_t o = 0;
  for (; o + 1 < channels; o += 2) {
    const auto bias0 = static_cast<uint32_t>(quant[o].bias);
    const auto bias1 = static_cast<uint32_t>(quant[o + 1].bias);
    uint32_t acc[4] = {bias0, bias0, bias1, bias1};
#if defined(__ARM_FEATURE_DSP) && __ARM_FEATURE_DSP
    if (listed_end != nullptr) {
      pair = tinyaot_gemm_block_2x2_dsp(pair, list.segments, listed_end, acc);
    } else  // the walk below, a call per segment
#endif
    {
      walk([&](const int8_t* a, const int8_t* b, int32_t length) {
        pair = gemm_block_2x2(pair, a, b, length, acc);
      });
    }
    store_block_2x2<R>(acc, quant + o, range, out_a + o, out_b + o);
  }
  if (o < channels) {
    const int8_t* row = pair;
    uint32_t acc_a = 0, acc_b = 0;
    walk([&](const int8_t* a, const int8_t* b, int32_t length) {
      dot_s8_pair(row, a, b, length, &acc_a, &acc_b);
      row += length;
    });
    out_a[o] = fast_output_step<R>(acc_a, quant[o], range);
    out_b[o] = fast_output_step<R>(acc_b, quant[o], range);
  }
}

// One output pixel; the walk's second pointer is not read.
template <Rounding R, typename Walk>
inline void conv2d_gemm_one_pixel(const Conv2dParams& p, const Walk& walk, const int8_t* filter,
                                  const ChannelQuant* quant, int8_t* out) {
  const OutputRange range = output_range(p);
  const int32_t channels = p.output_depth;
  const int8_t* pair = filter;
  int32_t o = 0;
  for (; o + 1 < channels; o += 2) {
    uint32_t acc[2] = {0, 0};
    walk([&](const int8_t* a, const int8_t*, int32_t length) {
      pair = gemm_block_2x1(pair, a, length, acc);
    });
    out[o] = fast_output_step<R>(acc[0], quant[o], range);
    out[o + 1] = fast_output_step<R>(acc[1], quant[o + 1], range);
  }
  if (o < channels) {
    const int8_t* row = pair;
    uint32_t acc = 0;
    walk([&](const int8_t* a, const int8_t*, int32_t length) {
      acc += dot_s8(row, a, length);
      row += length;
    });
    out[o] = fast_output_step<R>(acc, quant[o], range);
  }
}

}  // namespace tinyaot
