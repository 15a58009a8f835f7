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
// reaches (its case, depthwise_conv2d_cases.h), one output column of a
// block per call with the whole window in one assembly block. Each is its
// own run function, so an exported library that holds only the second
// links neither the general loops nor the multiplier paths.
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
      validate_depthwise_conv2d_operands(p, inputs, num_inputs, outputs, num_outputs);
  if (status != Status::kOk) return status;
  if (!is_depthwise_dsp_case(p)) return Status::kBadParams;
  return validate_fast_depthwise_quant(p, inputs);
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

// SXTAB16 of a word rotated right by 8 (its odd bytes): GCC 12 neither has
// ACLE's __ror nor folds a shift-or into the operand's rotation.
inline int16x2_t odd_bytes_plus(uint32_t offset2, uint32_t x) {
  int16x2_t widened;
  __asm__("sxtab16 %0, %1, %2, ror #8" : "=r"(widened) : "r"(offset2), "r"(x));
  return widened;
}

// One tap of a channel group, after LOAD has put the word of input
// channels c0..c3 in x4: the tap's weight pairs (w0, w2) and (w1, w3) by
// one post-indexed LDRD, the even bytes (c0, c2) and odd ones (c1, c3)
// widened with the input offset added, four SMLAxy. The text of every
// assembly block below that adds taps.
#define TINYAOT_DW_TAP(LOAD)                        \
  LOAD "\n\t"                                       \
       "ldrd %[w02], %[w13], [%[w]], #8\n\t"        \
       "sxtab16 %[half], %[off], %[x4]\n\t"         \
       "smlabb %[a0], %[half], %[w02], %[a0]\n\t"   \
       "smlatt %[a2], %[half], %[w02], %[a2]\n\t"   \
       "sxtab16 %[half], %[off], %[x4], ror #8\n\t" \
       "smlabb %[a1], %[half], %[w13], %[a1]\n\t"   \
       "smlatt %[a3], %[half], %[w13], %[a3]\n\t"

// Three taps of a row (col_step apart) of a channel group in one block:
// the inputs loaded with register offsets, so neither a pointer per tap
// nor a load hoisted by GCC's scheduler (which spills what it hoists).
// No memory clobber: the block reads the input and the weights, which
// nothing writes while the kernel runs, and a clobber would send the sums
// to the stack after every row.
inline void channel_row3(const int8_t* x, int32_t col_step, const uint32_t*& w, uint32_t offset2,
                         Sums& a) {
  uint32_t x4, w02, w13, half;
  __asm__(TINYAOT_DW_TAP("ldr %[x4], [%[x]]") TINYAOT_DW_TAP("ldr %[x4], [%[x], %[cs]]")
              TINYAOT_DW_TAP("ldr %[x4], [%[x], %[cs], lsl #1]")
          : [w] "+r"(w), [a0] "+r"(a.a0), [a1] "+r"(a.a1), [a2] "+r"(a.a2), [a3] "+r"(a.a3),
            [x4] "=&r"(x4), [w02] "=&r"(w02), [w13] "=&r"(w13), [half] "=&r"(half)
          : [x] "r"(x), [cs] "r"(col_step), [off] "r"(offset2));
}

// In assembly, so that the weights come in one post-indexed LDRD and the
// widened halves reuse one register: GCC 12 adds the pointer apart and
// holds both halves, 11-12 instructions a tap instead of 8.
struct ChannelTap {
  static inline void add(const int8_t* x, const uint32_t*& w, uint32_t offset2, Sums& a) {
    const uint32_t x4 = load_word(x);
    uint32_t w02, w13, half;
    __asm__(TINYAOT_DW_TAP("")
            : [w] "+r"(w), [a0] "+r"(a.a0), [a1] "+r"(a.a1), [a2] "+r"(a.a2), [a3] "+r"(a.a3),
              [w02] "=&r"(w02), [w13] "=&r"(w13), [half] "=&r"(half)
            : [off] "r"(offset2), [x4] "r"(x4));
  }
  static inline void row3(const int8_t* x, int32_t col_step, const uint32_t*& w, uint32_t offset2,
                          Sums& a) {
    channel_row3(x, col_step, w, offset2, a);
  }
};

// A whole window of kRows x kCols taps (2 or 3 each way) of a filter 3
// taps wide, in one block: 12 registers (the sums, the input row and the
// weights advancing, the column step, the offset, four temporaries; the
// row step is loaded from memory at each row's end, as 13 registers are
// more than GCC can always give), so GCC neither moves the sums between
// rows nor reloads the steps. The sums start at the four biases at
// `start`, loaded by the block through a temporary (two LDRD). A window
// of 2 columns skips the third tap's two weight words at each row's end.
// No memory clobber: the block reads the input, the widened weights and
// the biases, all written before the pixel loop's function is called.
#define TINYAOT_DW_TAPS2              \
  TINYAOT_DW_TAP("ldr %[x4], [%[x]]") \
  TINYAOT_DW_TAP("ldr %[x4], [%[x], %[cs]]")
#define TINYAOT_DW_ROW2 TINYAOT_DW_TAPS2 "add %[w], %[w], #8\n\t"
#define TINYAOT_DW_ROW3 TINYAOT_DW_TAPS2 TINYAOT_DW_TAP("ldr %[x4], [%[x], %[cs], lsl #1]")
#define TINYAOT_DW_NEXT_ROW \
  "ldr %[x4], %[rs]\n\t"    \
  "add %[x], %[x], %[x4]\n\t"
template <int32_t kRows, int32_t kCols>
__attribute__((always_inline)) inline Sums channel_window3(const int8_t* x, int32_t col_step,
                                                           int32_t row_step, const uint32_t* w,
                                                           uint32_t offset2, const Sums* start) {
  Sums a;
  uint32_t x4 = reinterpret_cast<uintptr_t>(start), w02, w13, half;
#define TINYAOT_DW_WINDOW(TEXT)                                                                  \
  __asm__(                                                                                       \
      "ldrd %[a0], %[a1], [%[x4]]\n\t"                                                           \
      "ldrd %[a2], %[a3], [%[x4], #8]\n\t" TEXT                                                  \
      : [x] "+r"(x), [w] "+r"(w), [a0] "=&r"(a.a0), [a1] "=&r"(a.a1), [a2] "=&r"(a.a2),          \
        [a3] "=&r"(a.a3), [x4] "+&r"(x4), [w02] "=&r"(w02), [w13] "=&r"(w13), [half] "=&r"(half) \
      : [cs] "r"(col_step), [rs] "m"(row_step), [off] "r"(offset2))
  if constexpr (kRows == 3 && kCols == 3)
    TINYAOT_DW_WINDOW(
        TINYAOT_DW_ROW3 TINYAOT_DW_NEXT_ROW TINYAOT_DW_ROW3 TINYAOT_DW_NEXT_ROW TINYAOT_DW_ROW3);
  else if constexpr (kRows == 2 && kCols == 3)
    TINYAOT_DW_WINDOW(TINYAOT_DW_ROW3 TINYAOT_DW_NEXT_ROW TINYAOT_DW_ROW3);
  else if constexpr (kRows == 3 && kCols == 2)
    TINYAOT_DW_WINDOW(
        TINYAOT_DW_ROW2 TINYAOT_DW_NEXT_ROW TINYAOT_DW_ROW2 TINYAOT_DW_NEXT_ROW TINYAOT_DW_ROW2);
  else
    TINYAOT_DW_WINDOW(TINYAOT_DW_ROW2 TINYAOT_DW_NEXT_ROW TINYAOT_DW_ROW2);
#undef TINYAOT_DW_WINDOW
  return a;
}
#undef TINYAOT_DW_TAP
#undef TINYAOT_DW_TAPS2
#undef TINYAOT_DW_ROW2
#undef TINYAOT_DW_ROW3
#undef TINYAOT_DW_NEXT_ROW

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

// Sums of one block over a window of kRows x kCols taps (0: the window's,
// known at run time).
template <typename Tap, int32_t kRows, int32_t kCols>
__attribute__((always_inline)) inline void group_sums(Sums& a, const int8_t* x, const uint32_t* w,
                                                      const DepthwiseWindow& win,
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

// A block's four outputs, `stride` apart (a depth multiplier above 1),
// from its sums (which started at the biases). Out of line and
// unscheduled: inlined after the taps, GCC 12 keeps the pixel loop's
// pointers and the sums in registers across the four steps and spills
// around them.
template <Rounding R>
TINYAOT_NO_SCHEDULE __attribute__((noinline)) void finish_strided(const Sums& a,
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
      finish_strided<R>(a, q, stride, out, range);
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

inline FullRows full_rows(const DepthwiseConv2dParams& p) {
  FullRows r = {p.output_h, p.output_h};
  for (int32_t oy = 0; oy < p.output_h; ++oy)
    if (tap_range(oy * p.stride_h - p.pad_top, p.input_h, p.filter_h, p.dilation_h).count ==
        p.filter_h) {
      if (r.first == p.output_h) r.first = oy;
      r.end = oy + 1;
    }
  return r;
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
// What every column of a block shares in the 3x3 case, set once per
// block so that a column's call loads what it needs and derives nothing.
struct ColumnWalk {
  int32_t row_bytes;  // input bytes to the next input row
  int32_t out_step;   // output bytes to the next output row
  int32_t col_step, row_step;
  Offset offset;
  int32_t stride_h, pad_top, input_h, dilation_h, output_h;
  FullRows full;
  Sums bias;
  Finish f;
};

// The 3x3 case's column of one block: every output row of one output
// column in one call (a window of 2 or 3 rows each, kCols columns, a
// filter 3 taps wide, adjacent outputs), so that a small image's edge
// pixels cost no call of their own. The full rows (3 taps high) are one
// run; every other row's window is 2 taps high (the case's windows are 2
// or 3 taps), found from its tap range.
template <Rounding R, int32_t kCols>
TINYAOT_NO_SCHEDULE __attribute__((noinline)) void run_column(const ColumnWalk& cw,
                                                              const int8_t* column,
                                                              const uint32_t* w, int8_t* out) {
  const int32_t first = cw.full.first, end = cw.full.end;
  const auto edge = [&](int32_t oy) {
    const TapRange y = tap_range(oy * cw.stride_h - cw.pad_top, cw.input_h, 3, cw.dilation_h);
    const Sums a = channel_window3<2, kCols>(column + y.origin * cw.row_bytes, cw.col_step,
                                             cw.row_step, w + 6 * y.first, cw.offset, &cw.bias);
    finish_adjacent<R>(a, cw.f, out + oy * cw.out_step);
  };
  for (int32_t oy = 0; oy < first; ++oy) edge(oy);
  const int32_t col_step = cw.col_step, row_step = cw.row_step, out_step = cw.out_step;
  const int32_t pixel_step = cw.stride_h * cw.row_bytes;
  const Offset offset = cw.offset;
  const int8_t* x = column + (first * cw.stride_h - cw.pad_top) * cw.row_bytes;
  int8_t* const o_end = out + end * out_step;
  for (int8_t* o = out + first * out_step; o != o_end; x += pixel_step, o += out_step) {
    const Sums a = channel_window3<3, kCols>(x, col_step, row_step, w, offset, &cw.bias);
    finish_adjacent<R>(a, cw.f, o);
  }
  for (int32_t oy = end; oy < cw.output_h; ++oy) edge(oy);
}

// Every output pixel of one block in the 3x3 case, a column a call.
template <Rounding R>
__attribute__((noinline)) void each_block_column(const DepthwiseConv2dParams& p,
                                                 const int8_t* input, int8_t* output,
                                                 const FullRows& full, const uint32_t* wide,
                                                 const Walk& walk, const Block& blk,
                                                 const OutputRange& range) {
  const int32_t depth = p.input_depth;
  ColumnWalk cw;
  cw.row_bytes = p.input_w * depth;
  cw.out_step = p.output_w * depth;
  cw.col_step = walk.col_step;
  cw.row_step = walk.row_step;
  cw.offset = walk.offset;
  cw.stride_h = p.stride_h;
  cw.pad_top = p.pad_top;
  cw.input_h = p.input_h;
  cw.dilation_h = p.dilation_h;
  cw.output_h = p.output_h;
  cw.full = full;
  cw.bias = blk.bias;
  cw.f.q = blk.q;
  cw.f.output_offset = range.output_offset;
  cw.f.packed = packed_range(range);
  for (int32_t b = 0; b < p.batches; ++b) {
    const int8_t* image = input + b * p.input_h * p.input_w * depth + blk.x_channel;
    int8_t* out_image = output + b * p.output_h * p.output_w * depth + blk.o;
    for (int32_t ox = 0; ox < p.output_w; ++ox) {
      const TapRange x = tap_range(ox * p.stride_w - p.pad_left, p.input_w, 3, p.dilation_w);
      const int8_t* column = image + x.origin * depth;
      const uint32_t* w = wide + 2 * x.first;
      int8_t* out = out_image + ox * depth;
      if (x.count == 3)
        run_column<R, 3>(cw, column, w, out);
      else
        run_column<R, 2>(cw, column, w, out);
    }
  }
}

#endif

// The channels past the last group, their outputs past the last
// multiplier group: one output at a time, pixel by pixel. Out of line and
// one for both descriptors: a rare path, not where the time goes.
template <Rounding R>
__attribute__((noinline)) void single_outputs(const DepthwiseConv2dParams& p, const int8_t* input,
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
TINYAOT_MODE_LOOP void convolve(const DepthwiseConv2dParams& p, const int8_t* input,
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
      if constexpr (!Shape::kAnyShape) {
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
  with_rounding(args.rounding, [&](auto mode) {
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
