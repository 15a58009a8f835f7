// DEPTHWISE_CONV_2D for DSP cores: any stride, padding, dilation and depth
// multiplier, filters up to kDepthwiseDspMaxTaps taps. Per output pixel the
// taps inside the input form one rectangle (depthwise_window.h), so no tap
// is checked in the loops. The program holds the weights at the model's
// size, a word of four int8 per tap and block of four outputs
// (depthwise_conv2d_cases.h); the kernel takes one block at a time, widens
// its weights once into a small stack buffer (the int16 pairs SXTAB16
// widens the input into: channels 0 and 2, 1 and 3) and then runs every
// output pixel of the layer for it. Per tap: one load of the input,
// widened by two SXTAB16 with the input offset added on the way, one LDRD
// of the two weight words, four SMLAxy; the sums start at the biases and
// go straight to the output step, four outputs as one word.
//
// Depth multiplier M: output o = c * M + m. For each m, groups of four
// input channels (one word load, as for M = 1; the outputs M apart); for
// the channels past the last group, their outputs four at a time (one
// byte, the same value in every lane), then one at a time. No scratch in
// the arena; the stack holds one block (8 bytes a tap).
//
// Two descriptors share this code: depthwise_conv2d_s8_dsp builds every
// window shape and multiplier, depthwise_conv2d_s8_dsp_3x3 only what a 3x3
// filter with multiplier 1 whose windows are 2 or 3 taps along each axis
// reaches (its case, depthwise_conv2d_cases.h), its pixel loops in
// assembly (depthwise_dsp_pixels.S: a column of a block per call, windows
// and output steps; in mode onnx without an FPU, the C++ loops of the
// first). Each is its own run function, so an exported library that holds only the
// second links neither the general loops nor the multiplier paths.
#include "kernels/common/dsp_words.h"
#include "kernels/common/output_step.h"
#include "kernels/common/quant.h"
#include "kernels/common/weighted_operands.h"
#include "kernels/depthwise_conv2d/depthwise_conv2d.h"
#include "kernels/depthwise_conv2d/depthwise_conv2d_cases.h"
#include "kernels/depthwise_conv2d/depthwise_dsp_pixels.h"
#include "kernels/depthwise_conv2d/depthwise_window.h"
#include "tinyaot/load_time.h"

#if defined(__ARM_FEATURE_DSP) && __ARM_FEATURE_DSP
#include <arm_acle.h>
#endif
#include <string.h>

namespace tinyaot {
namespace {

TINYAOT_LOAD_TIME Status validate(const void* raw, const OperandView* inputs, uint32_t num_inputs,
                                  const OperandView* outputs, uint32_t num_outputs) {
  const auto& p = *static_cast<const DepthwiseConv2dParams*>(raw);
  const Status status =
      validate_depthwise_conv2d_operands(p, inputs, num_inputs, outputs, num_outputs);
  if (status != Status::kOk) return status;
  if (!is_depthwise_dsp_case(p)) return Status::kBadParams;
  return validate_fast_depthwise_quant(p, inputs);
}

TINYAOT_LOAD_TIME Status validate_3x3(const void* raw, const OperandView* inputs,
                                      uint32_t num_inputs, const OperandView* outputs,
                                      uint32_t num_outputs) {
  const Status status = validate(raw, inputs, num_inputs, outputs, num_outputs);
  if (status != Status::kOk) return status;
  return is_depthwise_dsp_3x3_case(*static_cast<const DepthwiseConv2dParams*>(raw))
             ? Status::kOk
             : Status::kBadParams;
}

// Which paths a descriptor's code holds: every one, or the 3x3 case's
// (windows of 2 or 3 taps each way, outputs adjacent, no multiplier
// groups); and the most taps its stack buffer of widened weights holds.
struct AnyShape {
  static constexpr bool kAnyShape = true;
  static constexpr int32_t kMaxTaps = kDepthwiseDspMaxTaps;
};
struct Shape3x3 {
  static constexpr bool kAnyShape = false;
  static constexpr int32_t kMaxTaps = 9;
};

// Which outputs a pixel loop (run_pixels) writes: adjacent ones
// (multiplier 1, and every multiplier group), ones `stride` apart (channel
// groups with a multiplier above 1), or either, decided per call.
enum class Outputs { kAdjacent, kStrided, kEither };

// Four lanes' wrapping int32 accumulators: lane j is output j * stride of
// the group.
struct Sums {
  uint32_t a0, a1, a2, a3;
};

[[maybe_unused]] inline int32_t s(uint32_t x) { return static_cast<int32_t>(x); }
inline uint32_t u(int32_t x) { return static_cast<uint32_t>(x); }

#if defined(__ARM_FEATURE_DSP) && __ARM_FEATURE_DSP

// One tap of a channel group, its input word x4 (input channels c0..c3)
// loaded: the tap's weight pairs (w0, w2) and (w1, w3) by one
// post-indexed LDRD, the even bytes (c0, c2) and odd ones (c1, c3) widened
// with the input offset added, four SMLAxy. In assembly so that the
// weights come in one post-indexed LDRD and the widened halves take one
// register in turn: GCC 12 adds the pointer apart and holds both halves,
// 11-12 instructions a tap instead of 8. The weights it reads are declared
// by a "memory" clobber: an operand of their extent would take the
// post-increment away and one input register more than GCC 12 has at -O0
// with hard float; the clobber costs about 1 % of a 5x5 layer on M4
// against no declaration (docs/kernels.md).
struct ChannelTap {
  static inline void add(const int8_t* x, const uint32_t*& w, uint32_t offset2, Sums& a) {
    const uint32_t x4 = load_word(x);
    uint32_t w02, w13, half;
    __asm__(
        "ldrd %[w02], %[w13], [%[w]], #8\n\t"
        "sxtab16 %[half], %[off], %[x4]\n\t"
        "smlabb %[a0], %[half], %[w02], %[a0]\n\t"
        "smlatt %[a2], %[half], %[w02], %[a2]\n\t"
        "sxtab16 %[half], %[off], %[x4], ror #8\n\t"
        "smlabb %[a1], %[half], %[w13], %[a1]\n\t"
        "smlatt %[a3], %[half], %[w13], %[a3]"
        : [w] "+r"(w), [a0] "+r"(a.a0), [a1] "+r"(a.a1), [a2] "+r"(a.a2), [a3] "+r"(a.a3),
          [w02] "=&r"(w02), [w13] "=&r"(w13), [half] "=&r"(half)
        : [off] "r"(offset2), [x4] "r"(x4)
        : "memory");
  }
};

// One tap of a multiplier group: one input channel feeds all four lanes.
// Its byte, zero-extended, widened by SXTAB16: the low half is the value
// plus the offset.
struct MultiplierTap {
  static inline void add(const int8_t* x, const uint32_t*& w, uint32_t offset2, Sums& a) {
    const int32_t v = s(__sxtab16(offset2, static_cast<uint8_t>(*x)));
    const int32_t w02 = s(w[0]), w13 = s(w[1]);
    w += 2;
    a.a0 = u(__smlabb(v, w02, s(a.a0)));
    a.a2 = u(__smlabt(v, w02, s(a.a2)));
    a.a1 = u(__smlabb(v, w13, s(a.a1)));
    a.a3 = u(__smlabt(v, w13, s(a.a3)));
  }
};

// The offset in both halves, for SXTAB16 (it lies in [-127, 128]).
inline uint32_t offset_operand(int32_t input_offset) {
  return (static_cast<uint32_t>(input_offset) & 0xFFFFu) * 0x10001u;
}
#else
// The same sums in portable C++ (the host runs programs planned for DSP
// cores bit for bit), wrapping like the hardware's int32 accumulators.
inline int32_t low_half(uint32_t w) { return static_cast<int16_t>(w & 0xFFFFu); }
inline int32_t high_half(uint32_t w) { return static_cast<int16_t>(w >> 16); }

inline void add4(const int32_t x[4], const uint32_t*& w, Sums& a) {
  a.a0 += static_cast<uint32_t>(x[0] * low_half(w[0]));
  a.a2 += static_cast<uint32_t>(x[2] * high_half(w[0]));
  a.a1 += static_cast<uint32_t>(x[1] * low_half(w[1]));
  a.a3 += static_cast<uint32_t>(x[3] * high_half(w[1]));
  w += 2;
}

struct ChannelTap {
  static inline void add(const int8_t* x, const uint32_t*& w, int32_t offset, Sums& a) {
    const int32_t v[4] = {x[0] + offset, x[1] + offset, x[2] + offset, x[3] + offset};
    add4(v, w, a);
  }
};

struct MultiplierTap {
  static inline void add(const int8_t* x, const uint32_t*& w, int32_t offset, Sums& a) {
    const int32_t v[4] = {x[0] + offset, x[0] + offset, x[0] + offset, x[0] + offset};
    add4(v, w, a);
  }
};

inline int32_t offset_operand(int32_t input_offset) { return input_offset; }
#endif

using Offset = decltype(offset_operand(0));

// One block's weights widened, in the order the taps read them: per tap
// the words (w0, w2) and (w1, w3) of int16 halves, the halves SXTAB16
// widens the input into (channels 0/2 and 1/3, or a multiplier group's
// outputs 0/2 and 1/3). The program stores the block at the model's size,
// a word of four int8 per tap (depthwise_conv2d_cases.h); widening it once
// per call into the kernel's stack keeps the tap at one LDRD where an
// SXTB16 pair per tap would cost two more instructions in the loop.
inline void widen_block(const int8_t* block, int32_t taps, uint32_t* wide) {
  for (int32_t t = 0; t < taps; ++t, block += kDepthwiseDspGroup, wide += 2) {
#if defined(__ARM_FEATURE_DSP) && __ARM_FEATURE_DSP
    const uint32_t word = load_word(block);
    wide[0] = u(s(__sxtb16(word)));
    wide[1] = u(s(odd_bytes(word)));
#else
    const auto half = [](int8_t v) { return static_cast<uint32_t>(static_cast<uint16_t>(v)); };
    wide[0] = half(block[0]) | half(block[2]) << 16;
    wide[1] = half(block[1]) | half(block[3]) << 16;
#endif
  }
}

// What is the same for every pixel of a call.
struct Walk {
  int32_t col_step;  // input bytes to the next tap in a row
  int32_t row_step;  // input bytes to the next row of taps
  int32_t filter_w;
  Offset offset;
};

// One block of four outputs (lane j is output o + j * stride) read from
// input channel byte x_channel on (four channels, or one for a multiplier
// group), its sums starting at the biases.
struct Block {
  int32_t x_channel;
  int32_t o;
  int32_t stride;
  const ChannelQuant* q;
  Sums bias;
};

// A run of `pixels` pixels down one output column whose windows have the
// same shape (one pixel at a top or bottom edge; every row whose window
// holds the whole filter height, so that one call serves them): the first
// reads input at x and writes out, each next pixel_step input bytes and
// out_step output bytes on.
struct PixelRun {
  const int8_t* x;
  const uint32_t* w;  // the widened block at the window's first tap
  int32_t pixels;
  int32_t pixel_step;
  int32_t out_step;
  int8_t* out;
};

// One row of a window's taps of one block: kCols taps (0: cols, known
// at run time); w moves past their weights.
template <typename Tap, int32_t kCols>
__attribute__((always_inline)) inline void row_sums(Sums& a, const int8_t* x, const uint32_t*& w,
                                                    int32_t cols, int32_t col_step, Offset offset) {
  if constexpr (kCols != 0) {
#pragma GCC unroll 8
    for (int32_t kx = 0; kx < kCols; ++kx) {
      Tap::add(x + kx * col_step, w, offset, a);  // and w to the next tap
    }
  } else {
    for (int32_t kx = 0; kx < cols; ++kx, x += col_step) Tap::add(x, w, offset, a);
  }
}

// Sums of one block over a window of kRows x kCols taps (0: the window's,
// known at run time). No lambda here: one capturing the sums by reference
// kept them in memory, stored at every tap.
template <typename Tap, int32_t kRows, int32_t kCols>
__attribute__((always_inline)) inline void group_sums(Sums& a, const int8_t* x, const uint32_t* w,
                                                      const DepthwiseWindow& win,
                                                      const Walk& walk) {
  const int32_t col_step = walk.col_step, row_step = walk.row_step;
  const Offset offset = walk.offset;
  const int32_t cols = kCols != 0 ? kCols : win.cols;
  const int32_t weight_skip = 2 * (walk.filter_w - cols);
  if constexpr (kRows != 0) {
#pragma GCC unroll 8
    for (int32_t ky = 0; ky < kRows; ++ky, x += row_step, w += weight_skip)
      row_sums<Tap, kCols>(a, x, w, cols, col_step, offset);
  } else {
    for (int32_t ky = 0; ky < win.rows; ++ky, x += row_step, w += weight_skip)
      row_sums<Tap, kCols>(a, x, w, cols, col_step, offset);
  }
}

// A block's four outputs, `stride` apart (a depth multiplier above 1),
// from its sums (which started at the biases). Out of line and
// unscheduled: inlined after the taps, GCC 12 keeps the pixel loop's
// pointers and the sums in registers across the four steps and spills
// around them. The sums come by value (in r0-r3), a copy made at the call:
// by reference, or passing the pixel loop's own Sums, GCC 12 keeps that
// object in memory and stores it at every tap's "memory" clobber.
template <Rounding R>
TINYAOT_NO_SCHEDULE __attribute__((noinline)) void finish_strided(Sums a, const ChannelQuant* q,
                                                                  int32_t stride, int8_t* out,
                                                                  const OutputRange& range) {
  const int32_t v0 = fast_output_value<R>(a.a0, q[0], range.output_offset);
  const int32_t v1 = fast_output_value<R>(a.a1, q[stride], range.output_offset);
  const int32_t v2 = fast_output_value<R>(a.a2, q[2 * stride], range.output_offset);
  const int32_t v3 = fast_output_value<R>(a.a3, q[3 * stride], range.output_offset);
  out[0] = clamp_output(v0, range);
  out[stride] = clamp_output(v1, range);
  out[2 * stride] = clamp_output(v2, range);
  out[3 * stride] = clamp_output(v3, range);
}

// What the output steps of a block's pixels share.
struct Finish {
  const ChannelQuant* q;
  int32_t output_offset;
  PackedRange packed;
};

// Four adjacent outputs from their sums: the four steps, then one clamp
// of the packed word and one store. Inlined into the pixel loops, which
// are unscheduled (TINYAOT_NO_SCHEDULE) for the reason above.
template <Rounding R>
__attribute__((always_inline)) inline void finish_adjacent(const Sums& a, const Finish& f,
                                                           int8_t* out) {
  const ChannelQuant* const q = f.q;
  const int32_t offset = f.output_offset;
  const int32_t v0 = fast_output_value<R>(a.a0, q[0], offset);
  const int32_t v1 = fast_output_value<R>(a.a1, q[1], offset);
  const int32_t v2 = fast_output_value<R>(a.a2, q[2], offset);
  const int32_t v3 = fast_output_value<R>(a.a3, q[3], offset);
  const uint32_t word = clamp_pack4(v0, v1, v2, v3, f.packed);
  memcpy(out, &word, 4);
}

// Every pixel of a run for one block: its sums over the window, then its
// four output steps. Not inlined: on its own the function has every
// register for the sums, the pointers and the offset.
template <Rounding R, Outputs kOutputs, typename Tap, int32_t kRows, int32_t kCols>
TINYAOT_NO_SCHEDULE __attribute__((noinline)) void run_pixels(const PixelRun& run,
                                                              const DepthwiseWindow& win,
                                                              const Walk& walk, const Block& blk,
                                                              const OutputRange& range) {
  // The run's fields as locals: a store through int8_t* may alias them.
  const int32_t pixels = run.pixels, pixel_step = run.pixel_step, out_step = run.out_step;
  const int32_t stride = blk.stride;
  const uint32_t* const w = run.w;
  const ChannelQuant* const q = blk.q;
  const Sums bias = blk.bias;
  Finish f;
  f.q = q;
  f.output_offset = range.output_offset;
  f.packed = packed_range(range);
  const int8_t* x = run.x;
  int8_t* out = run.out;
  for (int32_t px = 0; px < pixels; ++px, x += pixel_step, out += out_step) {
    Sums a = bias;
    group_sums<Tap, kRows, kCols>(a, x, w, win, walk);
    if (kOutputs == Outputs::kAdjacent || (kOutputs == Outputs::kEither && stride == 1))
      finish_adjacent<R>(a, f, out);
    else
      finish_strided<R>(Sums{a.a0, a.a1, a.a2, a.a3}, q, stride, out, range);
  }
}

using RunFn = void (*)(const PixelRun&, const DepthwiseWindow&, const Walk&, const Block&,
                       const OutputRange&);

// The pixel loop for a window of 2 or 3 taps each way, unrolled.
template <Rounding R, Outputs kOutputs>
inline RunFn run_fn_2_or_3(const DepthwiseWindow& win) {
  if (win.cols == 3)
    return win.rows == 3 ? run_pixels<R, kOutputs, ChannelTap, 3, 3>
                         : run_pixels<R, kOutputs, ChannelTap, 2, 3>;
  return win.rows == 3 ? run_pixels<R, kOutputs, ChannelTap, 3, 2>
                       : run_pixels<R, kOutputs, ChannelTap, 2, 2>;
}

// The pixel loop of a channel group for a window: the 3x3 filter inside
// and at its edges unrolled, a row of 3 or 2 taps too, any other the
// general loop. The 3x3 case has only the first kind, and adjacent
// outputs.
template <Rounding R, typename Shape>
inline RunFn channel_run_fn(const DepthwiseWindow& win, int32_t stride) {
  if (!Shape::kAnyShape) return run_fn_2_or_3<R, Outputs::kAdjacent>(win);
  if ((win.cols == 2 || win.cols == 3) && (win.rows == 2 || win.rows == 3))
    return stride == 1 ? run_fn_2_or_3<R, Outputs::kAdjacent>(win)
                       : run_fn_2_or_3<R, Outputs::kStrided>(win);
  if (win.cols == 3) return run_pixels<R, Outputs::kEither, ChannelTap, 0, 3>;
  if (win.cols == 2) return run_pixels<R, Outputs::kEither, ChannelTap, 0, 2>;
  return run_pixels<R, Outputs::kEither, ChannelTap, 0, 0>;
}

// Multiplier groups: adjacent outputs.
template <Rounding R>
inline RunFn multiplier_run_fn(const DepthwiseWindow& win) {
  if (win.cols == 3 && win.rows == 3) return run_pixels<R, Outputs::kAdjacent, MultiplierTap, 3, 3>;
  return run_pixels<R, Outputs::kAdjacent, MultiplierTap, 0, 0>;
}

template <Rounding R, typename Shape>
RunFn pick_channel(const DepthwiseWindow& win, const DepthwiseConv2dParams& p) {
  return channel_run_fn<R, Shape>(win, p.depth_multiplier);
}

template <Rounding R>
RunFn pick_multiplier(const DepthwiseWindow& win, const DepthwiseConv2dParams&) {
  return multiplier_run_fn<R>(win);
}

// One output's sum with a single int8 weight per tap.
template <Rounding R>
__attribute__((noinline)) int8_t single_output(const int8_t* x, const int8_t* w,
                                               const DepthwiseWindow& win, const Walk& walk,
                                               const ChannelQuant& q,
                                               const DepthwiseConv2dParams& p) {
  uint32_t acc = 0;
  const int32_t offset = p.input_offset;
  for (int32_t ky = 0; ky < win.rows; ++ky, x += walk.row_step, w += walk.filter_w) {
    const int8_t* xt = x;
    for (int32_t kx = 0; kx < win.cols; ++kx, xt += walk.col_step)
      acc += static_cast<uint32_t>((*xt + offset) * w[kx]);
  }
  return fast_output_step<R>(acc, q, p);
}

// The output rows whose windows hold the whole filter height: one run.
struct FullRows {
  int32_t first, end;
};

// Row oy's window starts at oy * stride_h - pad_top and its last tap lies
// (filter_h - 1) * dilation_h further on: whole when it starts at 0 or
// later and ends inside the input. Both bounds grow with oy, so the rows
// form one range, found without walking them.
inline FullRows full_rows(const DepthwiseConv2dParams& p) {
  const FullRows none = {p.output_h, p.output_h};
  const int64_t last_start = int64_t{p.input_h} - 1 - int64_t{p.filter_h - 1} * p.dilation_h;
  if (last_start < 0) return none;
  const uint32_t stride = u(p.stride_h);
  const uint32_t first = divide_up(u(p.pad_top), stride);
  // last_start + pad_top < 2^32: both are below 2^31.
  const uint32_t end = static_cast<uint32_t>(last_start + p.pad_top) / stride + 1;
  const int32_t rows = p.output_h;
  const int32_t first_row = first < u(rows) ? static_cast<int32_t>(first) : rows;
  const int32_t end_row = end < u(rows) ? static_cast<int32_t>(end) : rows;
  return first_row < end_row ? FullRows{first_row, end_row} : none;
}

// Every output pixel of one block, column by column: the rows at the top
// and bottom edges one pixel a call, the full rows between them one call.
// pick(win, p) gives the pixel loop for a window's shape. Out of line and
// one for all kinds of block: it is not where the time goes.
using PickFn = RunFn (*)(const DepthwiseWindow&, const DepthwiseConv2dParams&);

__attribute__((noinline)) void each_block_run(const DepthwiseConv2dParams& p, const int8_t* input,
                                              int8_t* output, const FullRows& full,
                                              const uint32_t* wide, const Walk& walk,
                                              const Block& blk, const OutputRange& range,
                                              PickFn pick) {
  const int32_t depth = p.input_depth;
  const int32_t out_depth = depth * p.depth_multiplier;
  PixelRun run;
  run.pixel_step = p.stride_h * p.input_w * depth;
  run.out_step = p.output_w * out_depth;
  for (int32_t b = 0; b < p.batches; ++b) {
    const int8_t* image = input + b * p.input_h * p.input_w * depth;
    int8_t* out_image = output + b * p.output_h * p.output_w * out_depth + blk.o;
    for (int32_t ox = 0; ox < p.output_w; ++ox) {
      const TapRange x =
          tap_range(ox * p.stride_w - p.pad_left, p.input_w, p.filter_w, p.dilation_w);
      for (int32_t oy = 0; oy < p.output_h;) {
        const TapRange y =
            tap_range(oy * p.stride_h - p.pad_top, p.input_h, p.filter_h, p.dilation_h);
        const DepthwiseWindow win = window_of(p, image, y, x);
        run.pixels = oy == full.first ? full.end - full.first : 1;
        run.x = win.input + blk.x_channel;
        run.w = wide + 2 * win.first_tap;
        run.out = out_image + (oy * p.output_w + ox) * out_depth;
        pick(win, p)(run, win, walk, blk, range);
        oy += run.pixels;
      }
    }
  }
}

#if defined(__ARM_FEATURE_DSP) && __ARM_FEATURE_DSP
// Every output pixel of one block in the 3x3 case, a column at a time, by
// the assembly pixel loops (depthwise_dsp_pixels.h): the full rows (3 taps
// high) one call, every other row (2 taps high: the case's windows are 2
// or 3 taps) a call of its own, its window found from its tap range.
template <Rounding R>
__attribute__((noinline)) void each_block_column(const DepthwiseConv2dParams& p,
                                                 const int8_t* input, int8_t* output,
                                                 const FullRows& full, const uint32_t* wide,
                                                 const Walk& walk, const Block& blk,
                                                 const OutputRange& range) {
  const int32_t depth = p.input_depth;
  const int32_t row_bytes = p.input_w * depth;
  const int32_t out_step = p.output_w * depth;
  DepthwisePixelRun run;
  run.bias[0] = blk.bias.a0;
  run.bias[1] = blk.bias.a1;
  run.bias[2] = blk.bias.a2;
  run.bias[3] = blk.bias.a3;
  run.col_step = walk.col_step;
  run.offset2 = walk.offset;
  run.channels = depthwise_pixel_steps<R>(blk.q);
  run.output_offset = range.output_offset;
  const PackedRange packed = packed_range(range);
  run.act_min4 = packed.act_min4;
  run.act_max4 = packed.act_max4;
  run.out_step = out_step;
  run.row_step = walk.row_step;
  // From the third row of a full window to the next pixel's first.
  run.x_advance = p.stride_h * row_bytes - 2 * walk.row_step;
  for (int32_t b = 0; b < p.batches; ++b) {
    const int8_t* image = input + b * p.input_h * row_bytes + blk.x_channel;
    int8_t* out_image = output + b * p.output_h * out_step + blk.o;
    for (int32_t ox = 0; ox < p.output_w; ++ox) {
      const TapRange x = tap_range(ox * p.stride_w - p.pad_left, p.input_w, 3, p.dilation_w);
      const int8_t* column = image + x.origin * depth;
      const uint32_t* w = wide + 2 * x.first;
      int8_t* out = out_image + ox * depth;
      // Output rows [first, end) from input row `origin`, weights from
      // filter row `first_tap`.
      const auto pixels = [&](DepthwisePixelsFn fn, int32_t origin, int32_t first_tap,
                              int32_t first, int32_t end) {
        run.x = column + origin * row_bytes;
        run.w = w + 2 * 3 * first_tap;
        run.out = out + first * out_step;
        run.out_end = reinterpret_cast<uintptr_t>(out) + static_cast<uint32_t>(end * out_step);
        fn(&run);
      };
      const DepthwisePixelsFn edge_fn = depthwise_pixels_fn<R>(2, x.count);
      const auto edge = [&](int32_t oy) {
        const TapRange y = tap_range(oy * p.stride_h - p.pad_top, p.input_h, 3, p.dilation_h);
        pixels(edge_fn, y.origin, y.first, oy, oy + 1);
      };
      for (int32_t oy = 0; oy < full.first; ++oy) edge(oy);
      if (full.first < full.end)
        pixels(depthwise_pixels_fn<R>(3, x.count), full.first * p.stride_h - p.pad_top, 0,
               full.first, full.end);
      for (int32_t oy = full.end; oy < p.output_h; ++oy) edge(oy);
    }
  }
}
#endif

// The channels past the last group, their outputs past the last
// multiplier group: one output at a time, pixel by pixel. One for both
// descriptors: a rare path, not where the time goes.
template <Rounding R>
TINYAOT_RARE_PATH void single_outputs(const DepthwiseConv2dParams& p, const int8_t* input,
                                      const int8_t* filter, const ChannelQuant* quant,
                                      int8_t* output, const Walk& walk) {
  const DepthwiseDspLayout l = depthwise_dsp_layout(p);
  const int32_t depth = p.input_depth, multiplier = p.depth_multiplier;
  const int32_t grouped = l.groups * kDepthwiseDspGroup;
  const int32_t out_depth = depth * multiplier;
  for (int32_t b = 0; b < p.batches; ++b) {
    const int8_t* image = input + b * p.input_h * p.input_w * depth;
    for (int32_t oy = 0; oy < p.output_h; ++oy) {
      const TapRange y =
          tap_range(oy * p.stride_h - p.pad_top, p.input_h, p.filter_h, p.dilation_h);
      for (int32_t ox = 0; ox < p.output_w; ++ox) {
        const TapRange x =
            tap_range(ox * p.stride_w - p.pad_left, p.input_w, p.filter_w, p.dilation_w);
        const DepthwiseWindow win = window_of(p, image, y, x);
        int8_t* out = output + ((b * p.output_h + oy) * p.output_w + ox) * out_depth;
        for (int32_t r = 0; r < l.rest; ++r) {
          const int32_t c = grouped + r;
          const int8_t* w = filter + l.singles_start + r * l.singles * l.taps + win.first_tap;
          for (int32_t t = 0; t < l.singles; ++t, w += l.taps) {
            const int32_t o = c * multiplier + l.mult_groups * kDepthwiseDspGroup + t;
            out[o] = single_output<R>(win.input + c, w, win, walk, quant[o], p);
          }
        }
      }
    }
  }
}

template <Rounding R, typename Shape>
TINYAOT_SETUP void convolve(const DepthwiseConv2dParams& p, const int8_t* input,
                            const int8_t* filter, const ChannelQuant* quant, int8_t* output) {
  const int32_t depth = p.input_depth;
  const int32_t multiplier = p.depth_multiplier;
  const DepthwiseDspLayout l = depthwise_dsp_layout(p);
  const int32_t grouped = l.groups * kDepthwiseDspGroup;
  const OutputRange range = output_range(p);
  const FullRows full = full_rows(p);
  Walk walk;
  walk.col_step = p.dilation_w * depth;
  walk.row_step = p.dilation_h * p.input_w * depth;
  walk.filter_w = p.filter_w;
  walk.offset = offset_operand(p.input_offset);
  uint32_t wide[2 * Shape::kMaxTaps];
  const auto biases = [&](int32_t o, int32_t stride) {
    return Sums{u(quant[o].bias), u(quant[o + stride].bias), u(quant[o + 2 * stride].bias),
                u(quant[o + 3 * stride].bias)};
  };
  // For each m, the channel groups: input channels 4g..4g+3, outputs M
  // apart.
  for (int32_t m = 0; m < multiplier; ++m)
    for (int32_t g = 0; g < l.groups; ++g) {
      widen_block(filter + (m * l.groups + g) * l.group_bytes, l.taps, wide);
      Block blk;
      blk.x_channel = g * kDepthwiseDspGroup;
      blk.o = blk.x_channel * multiplier + m;
      blk.stride = multiplier;
      blk.q = quant + blk.o;
      blk.bias = biases(blk.o, blk.stride);
#if defined(__ARM_FEATURE_DSP) && __ARM_FEATURE_DSP
      if constexpr (!Shape::kAnyShape && kHasDepthwisePixels<R>) {
        each_block_column<R>(p, input, output, full, wide, walk, blk, range);
        continue;
      }
#endif
      each_block_run(p, input, output, full, wide, walk, blk, range, pick_channel<R, Shape>);
    }
  // The channels past the last group: their outputs four at a time
  // (adjacent), then one at a time.
  for (int32_t r = 0; r < l.rest; ++r) {
    const int32_t c = grouped + r;
    if constexpr (Shape::kAnyShape) {
      for (int32_t mg = 0; mg < l.mult_groups; ++mg) {
        widen_block(filter + l.channel_end + (r * l.mult_groups + mg) * l.group_bytes, l.taps,
                    wide);
        Block blk;
        blk.x_channel = c;
        blk.o = c * multiplier + mg * kDepthwiseDspGroup;
        blk.stride = 1;
        blk.q = quant + blk.o;
        blk.bias = biases(blk.o, 1);
        each_block_run(p, input, output, full, wide, walk, blk, range, pick_multiplier<R>);
      }
    }
  }
  if (l.rest > 0 && l.singles > 0) single_outputs<R>(p, input, filter, quant, output, walk);
}

template <typename Shape>
Status run(const KernelArgs& args) {
  const auto& p = *static_cast<const DepthwiseConv2dParams*>(args.params);
  const WeightedOperands o = weighted_operands(args);
  with_any_rounding(args.rounding, [&](auto mode) {
    convolve<decltype(mode)::value, Shape>(p, o.input, o.filter, o.quant, o.output);
  });
  return Status::kOk;
}

// Both descriptors' operands and parameters.
constexpr char kSignature[] =
    "input:s8[batches,input_h,input_w,input_depth], "
    "filter:s8{[depth_multiplier][input_depth/4][filter_h][filter_w][4],"
    "[input_depth%4][depth_multiplier/4][filter_h][filter_w][4],"
    "[input_depth%4][depth_multiplier%4][filter_h][filter_w]}, "
    "quant:ChannelQuant[input_depth*depth_multiplier] "
    "-> output:s8[batches,output_h,output_w,input_depth*depth_multiplier]; "
    "params=DepthwiseConv2dParams{batches,input_h,input_w,input_depth,depth_multiplier,"
    "filter_h,filter_w,output_h,output_w,stride_h,stride_w,dilation_h,dilation_w,pad_top,"
    "pad_left,input_offset,output_offset,act_min,act_max}";

}  // namespace

const KernelDescriptor kernel_depthwise_conv2d_s8_dsp = {
    "depthwise_conv2d_s8_dsp",
    "depthwise_conv2d",
    3,
    sizeof(DepthwiseConv2dParams),
    3,
    3,
    1,
    IsaClass::kDsp,
    kSignature,
    run<AnyShape>,
    validate,
    nullptr,
};

// The same operands, in the 3x3 case alone (is_depthwise_dsp_3x3_case).
const KernelDescriptor kernel_depthwise_conv2d_s8_dsp_3x3 = {
    "depthwise_conv2d_s8_dsp_3x3",
    "depthwise_conv2d",
    2,
    sizeof(DepthwiseConv2dParams),
    3,
    3,
    1,
    IsaClass::kDsp,
    kSignature,
    run<Shape3x3>,
    validate_3x3,
    nullptr,
};

}  // namespace tinyaot
