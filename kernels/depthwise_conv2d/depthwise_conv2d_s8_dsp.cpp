// DEPTHWISE_CONV_2D for DSP cores: any filter, stride, padding, dilation
// and depth multiplier. Per output pixel the taps inside the input form one
// rectangle (depthwise_window.h), so no tap is checked in the loops. Four
// output channels accumulate in registers over it (accumulate): per tap one
// load of the input, widened by SXTAB16 into the two halves the four
// channels pair up in (channels 0 and 2, 1 and 3), the input offset added on
// the way so it costs nothing and the bias stays the model's; one LDRD of
// the two weight words, which the compiler stored widened to int16 in the
// same pairing and in the order the loop reads them; four SMLAxy. No
// repacking, so any tap stands alone: borders, odd widths and dilation take
// the same loop, and the full 3x3 window its unrolled twin.
//
// Depth multiplier M: output o = c * M + m. For each m, groups of four
// input channels (one word load, as for M = 1; the outputs M apart); for
// the channels past the last group, their outputs four at a time (one
// byte, the same value in every lane), then one at a time. No scratch.
//
// Two descriptors share this code: depthwise_conv2d_s8_dsp builds every
// window shape and multiplier, depthwise_conv2d_s8_dsp_3x3 only what a 3x3
// filter with multiplier 1 whose windows are 2 or 3 taps along each axis
// reaches (its case, depthwise_conv2d_cases.h). Each is its own run
// function, so an exported library that holds only the second links
// neither the general loops nor the multiplier paths.
#include <type_traits>

#include "kernels/common/dsp_words.h"
#include "kernels/common/output_step.h"
#include "kernels/common/quant.h"
#include "kernels/common/weighted_operands.h"
#include "kernels/depthwise_conv2d/depthwise_conv2d.h"
#include "kernels/depthwise_conv2d/depthwise_conv2d_cases.h"
#include "kernels/depthwise_conv2d/depthwise_window.h"

#if defined(__ARM_FEATURE_DSP) && __ARM_FEATURE_DSP
#include <arm_acle.h>
#endif
#include <string.h>

namespace tinyaot {
namespace {

#if defined(__ARM_FEATURE_DSP) && __ARM_FEATURE_DSP
constexpr bool kDspBuild = true;
#else
constexpr bool kDspBuild = false;
#endif

Status validate(const void* raw, const OperandView* inputs, uint32_t num_inputs,
                const OperandView* outputs, uint32_t num_outputs) {
  const auto& p = *static_cast<const DepthwiseConv2dParams*>(raw);
  const Status status =
      validate_depthwise_conv2d_operands(p, inputs, num_inputs, outputs, num_outputs, 2);
  return status != Status::kOk ? status : validate_fast_depthwise_quant(p, inputs);
}

Status validate_3x3(const void* raw, const OperandView* inputs, uint32_t num_inputs,
                    const OperandView* outputs, uint32_t num_outputs) {
  const Status status = validate(raw, inputs, num_inputs, outputs, num_outputs);
  if (status != Status::kOk) return status;
  return is_depthwise_dsp_3x3_case(*static_cast<const DepthwiseConv2dParams*>(raw))
             ? Status::kOk
             : Status::kBadParams;
}

// Which paths a descriptor's code holds: every one, or the 3x3 case's
// (windows of 2 or 3 taps each way, outputs adjacent, no multiplier
// groups).
struct AnyShape {
  static constexpr bool kAnyShape = true;
};
struct Shape3x3 {
  static constexpr bool kAnyShape = false;
};

// Which outputs a group loop writes: adjacent ones (multiplier 1, and
// every multiplier group), ones `stride` apart (channel groups with a
// multiplier above 1), or either, decided per call. The 3x3 case's window
// loops come as the first two, so the 3x3 build holds only the adjacent
// ones and the general build shares them.
enum class Outputs { kAdjacent, kStrided, kEither };

// Four lanes' wrapping int32 accumulators: lane j is output j * stride of
// the group.
struct Sums {
  uint32_t a0, a1, a2, a3;
};

#if defined(__ARM_FEATURE_DSP) && __ARM_FEATURE_DSP

// SXTAB16 of a word rotated right by 8 (its odd bytes): GCC 12 neither has
// ACLE's __ror nor folds a shift-or into the operand's rotation.
inline int16x2_t odd_bytes_plus(uint32_t offset2, uint32_t x) {
  int16x2_t widened;
  __asm__("sxtab16 %0, %1, %2, ror #8" : "=r"(widened) : "r"(offset2), "r"(x));
  return widened;
}

inline int32_t s(uint32_t x) { return static_cast<int32_t>(x); }
inline uint32_t u(int32_t x) { return static_cast<uint32_t>(x); }

// One tap of a channel group: input channels c0..c3 at x, one word. The
// even bytes (c0, c2) and odd ones (c1, c3) widened with the offset added.
// Three taps of a row (col_step apart) of a channel group in one block:
// the inputs loaded with register offsets, so neither a pointer per tap
// nor a load hoisted by GCC's scheduler (which spills what it hoists).
// No memory clobber: the block reads the input and the weights, which
// nothing writes while the kernel runs, and a clobber would send the sums
// to the stack after every row.
inline void channel_row3(const int8_t* x, int32_t col_step, const uint32_t*& w, uint32_t offset2,
                         Sums& a) {
  uint32_t x4, w02, w13, half;
#define TINYAOT_DW_TAP(LOAD)                        \
  LOAD "\n\t"                                       \
       "ldrd %[w02], %[w13], [%[w]], #8\n\t"        \
       "sxtab16 %[half], %[off], %[x4]\n\t"         \
       "smlabb %[a0], %[half], %[w02], %[a0]\n\t"   \
       "smlatt %[a2], %[half], %[w02], %[a2]\n\t"   \
       "sxtab16 %[half], %[off], %[x4], ror #8\n\t" \
       "smlabb %[a1], %[half], %[w13], %[a1]\n\t"   \
       "smlatt %[a3], %[half], %[w13], %[a3]\n\t"
  __asm__(TINYAOT_DW_TAP("ldr %[x4], [%[x]]") TINYAOT_DW_TAP("ldr %[x4], [%[x], %[cs]]")
              TINYAOT_DW_TAP("ldr %[x4], [%[x], %[cs], lsl #1]")
          : [w] "+r"(w), [a0] "+r"(a.a0), [a1] "+r"(a.a1), [a2] "+r"(a.a2), [a3] "+r"(a.a3),
            [x4] "=&r"(x4), [w02] "=&r"(w02), [w13] "=&r"(w13), [half] "=&r"(half)
          : [x] "r"(x), [cs] "r"(col_step), [off] "r"(offset2));
#undef TINYAOT_DW_TAP
}

// In assembly, so that the weights come in one post-indexed LDRD and the
// widened halves reuse one register: GCC 12 adds the pointer apart and
// holds both halves, 11-12 instructions a tap instead of 8.
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
        : [off] "r"(offset2), [x4] "r"(x4));
  }
  static inline void row3(const int8_t* x, int32_t col_step, const uint32_t*& w, uint32_t offset2,
                          Sums& a) {
    channel_row3(x, col_step, w, offset2, a);
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

// Whether Tap has a three-tap row in one block (Tap::row3).
template <typename Tap>
constexpr bool kHasRow3 = kDspBuild&& std::is_same_v<Tap, ChannelTap>;

// Keeps an unrolled tap's loads after the previous tap's multiplies: GCC
// 12 otherwise hoists the loads of all nine taps of a 3x3 window and
// spills the values it cannot hold. The empty assembly claims to change
// the pointers the next loads use and to read the sums, so it can move
// neither up nor down, and no register or memory is touched.
template <typename Sums>
inline void tap_boundary(const uint32_t*& w, Sums& a) {
#if defined(__GNUC__) && !defined(__clang__)
  __asm__("" : "+r"(w), "+r"(a.a0), "+r"(a.a1), "+r"(a.a2), "+r"(a.a3));
#else
  (void)w, (void)a;
#endif
}

// What is the same for every pixel and group of a call.
struct Walk {
  int32_t col_step;  // input bytes to the next tap in a row
  int32_t row_step;  // input bytes to the next row of taps
  int32_t filter_w;
  int32_t group_words;  // one group's weight block
  Offset offset;
};

// A run of groups over `pixels` adjacent pixels of one output row whose
// windows have the same shape (one pixel at the edges; the whole inside of
// the row, so that one call serves it): per pixel `count` groups, the
// first reading input at x and writing outputs o, o + stride, o + 2 *
// stride, o + 3 * stride (its constants at q + o...); each next group
// x_step input bytes and o_step outputs on, its weights the next block.
// The next pixel's input is pixel_step bytes on, its outputs out_depth.
struct GroupRun {
  const int8_t* x;
  const uint32_t* w;  // the first group's block at the window's first tap
  int32_t pixels;
  int32_t pixel_step;
  int32_t out_depth;
  int32_t count;
  int32_t x_step;
  int32_t o_step;
  int32_t stride;
  const ChannelQuant* q;
  int8_t* out;
};

// Sums of one group over a window of kRows x kCols taps (0: the window's,
// known at run time).
template <typename Tap, int32_t kRows, int32_t kCols>
inline void group_sums(Sums& a, const int8_t* x, const uint32_t* w, const DepthwiseWindow& win,
                       const Walk& walk) {
  const int32_t col_step = walk.col_step;
  const Offset offset = walk.offset;
  const int32_t cols = kCols != 0 ? kCols : win.cols;
  const int32_t weight_skip = 2 * (walk.filter_w - cols);
  // One row of taps; x and w move to the next row.
  auto row = [&](const int8_t*& x, const uint32_t*& w) {
    if constexpr (kCols == 3 && kHasRow3<Tap>) {
      Tap::row3(x, col_step, w, offset, a);
    } else if constexpr (kCols != 0) {
#pragma GCC unroll 8
      for (int32_t kx = 0; kx < kCols; ++kx) {
        Tap::add(x + kx * col_step, w, offset, a);  // and w to the next tap
        tap_boundary(w, a);
      }
    } else {
      const int8_t* xt = x;
      for (int32_t kx = 0; kx < cols; ++kx, xt += col_step) Tap::add(xt, w, offset, a);
    }
    x += walk.row_step;
    w += weight_skip;
  };
  if constexpr (kRows != 0) {
#pragma GCC unroll 8
    for (int32_t ky = 0; ky < kRows; ++ky) row(x, w);
  } else {
    for (int32_t ky = 0; ky < win.rows; ++ky) row(x, w);
  }
}

// A group's four outputs, `stride` apart (a depth multiplier above 1; the
// adjacent ones take finish_groups), from its sums (which started at the
// biases). Out of line and unscheduled: inlined after the taps, GCC 12
// keeps the pixel loop's pointers and the sums in registers across the
// four steps and spills around them.
template <Rounding R>
TINYAOT_NO_SCHEDULE __attribute__((noinline)) void finish_group(const Sums& a,
                                                                const ChannelQuant* q,
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

// The outputs of `count` adjacent groups (4 * count adjacent channels)
// from their sums, which start at 0 here: each channel's constants in one
// pass (bias, multiplier, shift, rounding), four outputs clamped and
// stored as one word.
template <Rounding R>
TINYAOT_NO_SCHEDULE __attribute__((noinline)) void finish_groups(const uint32_t* sums,
                                                                 int32_t count,
                                                                 const ChannelQuant* q, int8_t* out,
                                                                 const OutputRange& range) {
  const int32_t offset = range.output_offset;
  const PackedRange packed = packed_range(range);
  for (int32_t g = 0; g < count;
       ++g, sums += kDepthwiseDspGroup, q += kDepthwiseDspGroup, out += kDepthwiseDspGroup) {
    int32_t v[kDepthwiseDspGroup];
#pragma GCC unroll 4
    for (int32_t j = 0; j < kDepthwiseDspGroup; ++j)
      v[j] = fast_output_value<R>(sums[j] + static_cast<uint32_t>(q[j].bias), q[j], offset);
    const uint32_t word = clamp_pack4(v[0], v[1], v[2], v[3], packed);
    memcpy(out, &word, 4);
  }
}

// Every group of a run over one pixel's window, then their output steps.
// Not inlined: on its own the function has every register for the sums,
// the pointers and the offset, where inlined into the pixel loops GCC
// spills them; and one call serves all the groups of a pixel.
template <Rounding R, Outputs kOutputs, typename Tap, int32_t kRows, int32_t kCols>
__attribute__((noinline)) void run_groups(const GroupRun& run, const DepthwiseWindow& win,
                                          const Walk& walk, const DepthwiseConv2dParams& p) {
  // The run's fields as locals: a store through int8_t* may alias them.
  const int32_t stride = run.stride, count = run.count, pixels = run.pixels;
  const int32_t x_step = run.x_step, o_step = run.o_step, group_words = walk.group_words;
  const int32_t pixel_step = run.pixel_step, out_depth = run.out_depth;
  const uint32_t* const first_w = run.w;
  const ChannelQuant* const first_q = run.q;
  const OutputRange range = output_range(p);
  const int8_t* pixel_x = run.x;
  int8_t* pixel_out = run.out;
  for (int32_t px = 0; px < pixels; ++px, pixel_x += pixel_step, pixel_out += out_depth) {
    const int8_t* x = pixel_x;
    const uint32_t* w = first_w;
    const ChannelQuant* q = first_q;
    int8_t* out = pixel_out;
    if (kOutputs == Outputs::kAdjacent || (kOutputs == Outputs::kEither && stride == 1)) {
      // Adjacent outputs: the sums of up to kChunk groups first, then
      // their output steps in one loop (finish_groups), so that neither
      // phase holds the other's registers.
      constexpr int32_t kChunk = 8;
      uint32_t sums[kChunk * kDepthwiseDspGroup];
      for (int32_t first = 0; first < count; first += kChunk) {
        const int32_t n = count - first < kChunk ? count - first : kChunk;
        for (int32_t g = 0; g < n; ++g) {
          Sums a = {0, 0, 0, 0};
          group_sums<Tap, kRows, kCols>(a, x, w, win, walk);
          uint32_t* const group = sums + g * kDepthwiseDspGroup;
          group[0] = a.a0;
          group[1] = a.a1;
          group[2] = a.a2;
          group[3] = a.a3;
          x += x_step;
          w += group_words;
        }
        finish_groups<R>(sums, n, q, out, range);
        q += n * kDepthwiseDspGroup;
        out += n * kDepthwiseDspGroup;
      }
      continue;
    }
    for (int32_t g = 0; g < count; ++g) {
      const ChannelQuant& q0 = q[0];
      const ChannelQuant& q1 = q[stride];
      const ChannelQuant& q2 = q[2 * stride];
      const ChannelQuant& q3 = q[3 * stride];
      Sums a = {static_cast<uint32_t>(q0.bias), static_cast<uint32_t>(q1.bias),
                static_cast<uint32_t>(q2.bias), static_cast<uint32_t>(q3.bias)};
      group_sums<Tap, kRows, kCols>(a, x, w, win, walk);
      finish_group<R>(a, q, stride, out, range);
      x += x_step;
      w += group_words;
      q += o_step;
      out += o_step;
    }
  }
}

using RunFn = void (*)(const GroupRun&, const DepthwiseWindow&, const Walk&,
                       const DepthwiseConv2dParams&);

// The group loop for a window of 2 or 3 taps each way, unrolled.
template <Rounding R, Outputs kOutputs>
inline RunFn run_fn_2_or_3(const DepthwiseWindow& win) {
  if (win.cols == 3)
    return win.rows == 3 ? run_groups<R, kOutputs, ChannelTap, 3, 3>
                         : run_groups<R, kOutputs, ChannelTap, 2, 3>;
  return win.rows == 3 ? run_groups<R, kOutputs, ChannelTap, 3, 2>
                       : run_groups<R, kOutputs, ChannelTap, 2, 2>;
}

// The group loop for a window: the 3x3 filter inside and at its edges
// unrolled, a row of 3 or 2 taps too, any other the general loop. The 3x3
// case has only the first kind, and adjacent outputs.
template <Rounding R, typename Shape>
inline RunFn channel_run_fn(const DepthwiseWindow& win, int32_t stride) {
  if (!Shape::kAnyShape) return run_fn_2_or_3<R, Outputs::kAdjacent>(win);
  if ((win.cols == 2 || win.cols == 3) && (win.rows == 2 || win.rows == 3))
    return stride == 1 ? run_fn_2_or_3<R, Outputs::kAdjacent>(win)
                       : run_fn_2_or_3<R, Outputs::kStrided>(win);
  if (win.cols == 3) return run_groups<R, Outputs::kEither, ChannelTap, 0, 3>;
  if (win.cols == 2) return run_groups<R, Outputs::kEither, ChannelTap, 0, 2>;
  return run_groups<R, Outputs::kEither, ChannelTap, 0, 0>;
}

// Multiplier groups: adjacent outputs.
template <Rounding R>
inline RunFn multiplier_run_fn(const DepthwiseWindow& win) {
  if (win.cols == 3 && win.rows == 3) return run_groups<R, Outputs::kAdjacent, MultiplierTap, 3, 3>;
  return run_groups<R, Outputs::kAdjacent, MultiplierTap, 0, 0>;
}

// One output's sum with a single int16 weight per tap.
template <Rounding R>
__attribute__((noinline)) int8_t single_output(const int8_t* x, const int16_t* w,
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

template <Rounding R, typename Shape>
TINYAOT_MODE_LOOP void convolve(const DepthwiseConv2dParams& p, const int8_t* input,
                                const int8_t* filter, const ChannelQuant* quant, int8_t* output) {
  const int32_t depth = p.input_depth;
  const int32_t multiplier = p.depth_multiplier;
  const int32_t out_depth = depth * multiplier;
  const DepthwiseDspLayout l = depthwise_dsp_layout(p);
  const int32_t grouped = l.groups * kDepthwiseDspGroup;
  const uint32_t* const weights = reinterpret_cast<const uint32_t*>(filter);
  const uint32_t* const mult_weights = weights + l.channel_end / 4;
  const int16_t* const single_weights = reinterpret_cast<const int16_t*>(filter + l.singles_start);
  Walk walk;
  walk.col_step = p.dilation_w * depth;
  walk.row_step = p.dilation_h * p.input_w * depth;
  walk.filter_w = p.filter_w;
  walk.group_words = l.group_bytes / 4;
  walk.offset = offset_operand(p.input_offset);
  for (int32_t b = 0; b < p.batches; ++b) {
    const int8_t* image = input + b * p.input_h * p.input_w * depth;
    for (int32_t oy = 0; oy < p.output_h; ++oy) {
      const TapRange y =
          tap_range(oy * p.stride_h - p.pad_top, p.input_h, p.filter_h, p.dilation_h);
      for (int32_t ox = 0; ox < p.output_w;) {
        const DepthwiseWindow win = depthwise_window(p, image, y, ox);
        // With the whole filter width inside, so are the next pixels' up to
        // the right edge's: one run serves them all.
        int32_t pixels = 1;
        if (win.cols == p.filter_w)
          while (ox + pixels < p.output_w &&
                 (ox + pixels) * p.stride_w - p.pad_left + (p.filter_w - 1) * p.dilation_w <
                     p.input_w)
            ++pixels;
        int8_t* out = output + ((b * p.output_h + oy) * p.output_w + ox) * out_depth;
        const int32_t first_words = 2 * win.first_tap;
        GroupRun run;
        run.pixels = pixels;
        run.pixel_step = p.stride_w * depth;
        run.out_depth = out_depth;
        if (l.groups > 0) {
          // For each m, the channel groups: outputs M apart, the next
          // group 4 input channels and 4 * M outputs on.
          const RunFn groups = channel_run_fn<R, Shape>(win, multiplier);
          run.count = l.groups;
          run.x_step = kDepthwiseDspGroup;
          run.o_step = kDepthwiseDspGroup * multiplier;
          run.stride = multiplier;
          for (int32_t m = 0; m < multiplier; ++m) {
            run.x = win.input;
            run.w = weights + m * l.groups * walk.group_words + first_words;
            run.q = quant + m;
            run.out = out + m;
            groups(run, win, walk, p);
          }
        }
        for (int32_t r = 0; r < l.rest; ++r) {
          const int32_t c = grouped + r;
          const int32_t o = c * multiplier;
          if constexpr (Shape::kAnyShape) {
            if (l.mult_groups > 0) {
              // The channel's outputs four at a time, adjacent.
              run.x = win.input + c;
              run.w = mult_weights + r * l.mult_groups * walk.group_words + first_words;
              run.count = l.mult_groups;
              run.x_step = 0;
              run.o_step = kDepthwiseDspGroup;
              run.stride = 1;
              run.q = quant + o;
              run.out = out + o;
              multiplier_run_fn<R>(win)(run, win, walk, p);
            }
          }
          const int16_t* w = single_weights + r * l.singles * l.taps + win.first_tap;
          for (int32_t t = 0; t < l.singles; ++t, w += l.taps) {
            const int32_t ot = o + l.mult_groups * kDepthwiseDspGroup + t;
            for (int32_t px = 0; px < pixels; ++px)
              out[px * out_depth + ot] =
                  single_output<R>(win.input + px * run.pixel_step + c, w, win, walk, quant[ot], p);
          }
        }
        ox += pixels;
      }
    }
  }
}

template <typename Shape>
Status run(const KernelArgs& args) {
  const auto& p = *static_cast<const DepthwiseConv2dParams*>(args.params);
  const WeightedOperands o = weighted_operands(args);
  with_rounding(args.rounding, [&](auto mode) {
    convolve<decltype(mode)::value, Shape>(p, o.input, o.filter, o.quant, o.output);
  });
  return Status::kOk;
}

// Both descriptors' operands and parameters.
constexpr char kSignature[] =
    "input:s8[batches,input_h,input_w,input_depth], "
    "filter:s16{[depth_multiplier][input_depth/4][filter_h][filter_w][2][2],"
    "[input_depth%4][depth_multiplier/4][filter_h][filter_w][2][2],"
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
    2,
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
    1,
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
