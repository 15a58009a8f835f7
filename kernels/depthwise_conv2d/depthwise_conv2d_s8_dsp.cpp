// DEPTHWISE_CONV_2D for DSP cores, depth multiplier 1, any filter, stride,
// padding and dilation. Per output pixel the taps inside the input form one
// rectangle (computed once, so no tap is checked per channel); four
// channels accumulate in registers over it (accumulate_group). Two
// horizontally adjacent taps of a channel make one SMLAD: the two taps'
// four-channel words are repacked (PKHBT/PKHTB) into per-channel tap
// pairs, widened by SXTAB16, which adds the input offset on the way, so the
// offset costs nothing and the bias stays the model's. An odd last tap of a
// row goes through SMLABB/SMLATT. Channels past the last group of four run
// a plain loop. The compiler stores the weights in the order the loop
// reads them (order_depthwise_dsp_weights), so a group's weights need one
// pointer stepping by 4 bytes per tap; no scratch.
#include "kernels/common/output_step.h"
#include "kernels/common/quant.h"
#include "kernels/common/weighted_operands.h"
#include "kernels/depthwise_conv2d/depthwise_conv2d.h"
#include "kernels/depthwise_conv2d/depthwise_conv2d_cases.h"

#if defined(__ARM_FEATURE_DSP) && __ARM_FEATURE_DSP
#include <arm_acle.h>
#include <string.h>
#endif

namespace tinyaot {
namespace {

constexpr int32_t kGroup = kDepthwiseDspGroup;  // channels accumulated together

Status validate(const void* raw, const OperandView* inputs, uint32_t num_inputs,
                const OperandView* outputs, uint32_t num_outputs) {
  const auto& p = *static_cast<const DepthwiseConv2dParams*>(raw);
  const Status status =
      validate_depthwise_conv2d_operands(p, inputs, num_inputs, outputs, num_outputs);
  if (status != Status::kOk) return status;
  return is_depthwise_dsp_case(p) ? Status::kOk : Status::kBadParams;
}

// Four channels' wrapping int32 accumulators.
struct Sums {
  int32_t acc[kGroup];
};

#if defined(__ARM_FEATURE_DSP) && __ARM_FEATURE_DSP
inline uint32_t load_word(const int8_t* p) {
  uint32_t word;  // unaligned 32-bit load, as the cores allow
  memcpy(&word, p, 4);
  return word;
}

// Low halves of a and b as one word: a's in the low half, b's in the high
// one (PKHBT; ACLE has no intrinsic for it and GCC does not form it from
// the mask-and-shift, so as CMSIS-Core's __PKHBT, in inline assembly).
inline uint32_t low_halves(uint32_t a, uint32_t b) {
  uint32_t packed;
  __asm__("pkhbt %0, %1, %2, lsl #16" : "=r"(packed) : "r"(a), "r"(b));
  return packed;
}

// High halves of a and b as one word: a's in the low half (PKHTB).
inline uint32_t high_halves(uint32_t a, uint32_t b) {
  uint32_t packed;
  __asm__("pkhtb %0, %2, %1, asr #16" : "=r"(packed) : "r"(a), "r"(b));
  return packed;
}

// SXTB16 and SXTAB16 of a word rotated right by 8 (its odd bytes): GCC 12
// neither has ACLE's __ror nor folds a shift-or into the operand's rotation.
inline int16x2_t odd_bytes(uint32_t x) {
  int16x2_t widened;
  __asm__("sxtb16 %0, %1, ror #8" : "=r"(widened) : "r"(x));
  return widened;
}

inline int16x2_t odd_bytes_plus(uint32_t offset2, uint32_t x) {
  int16x2_t widened;
  __asm__("sxtab16 %0, %1, %2, ror #8" : "=r"(widened) : "r"(offset2), "r"(x));
  return widened;
}

// Two taps a and b of four channels: acc[j] += (xa[j] + offset) * wa[j] +
// (xb[j] + offset) * wb[j]. The low halves of the two words (channels 0
// and 1) and their high halves (channels 2 and 3) are paired up, so each
// SXTB16 yields one channel's values at both taps.
inline void two_taps(const int8_t* xa, const int8_t* xb, const int8_t* wa, const int8_t* wb,
                     uint32_t offset2, Sums& s) {
  const uint32_t x_a = load_word(xa), x_b = load_word(xb);
  const uint32_t w_a = load_word(wa), w_b = load_word(wb);
  const uint32_t x_lo = low_halves(x_a, x_b), x_hi = high_halves(x_a, x_b);
  const uint32_t w_lo = low_halves(w_a, w_b), w_hi = high_halves(w_a, w_b);
  s.acc[0] = __smlad(__sxtab16(offset2, x_lo), __sxtb16(w_lo), s.acc[0]);
  s.acc[1] = __smlad(odd_bytes_plus(offset2, x_lo), odd_bytes(w_lo), s.acc[1]);
  s.acc[2] = __smlad(__sxtab16(offset2, x_hi), __sxtb16(w_hi), s.acc[2]);
  s.acc[3] = __smlad(odd_bytes_plus(offset2, x_hi), odd_bytes(w_hi), s.acc[3]);
}

// One tap of four channels: even channels in one SXTAB16 pair, odd ones in
// the other, each half multiplied on its own.
inline void one_tap(const int8_t* x, const int8_t* w, uint32_t offset2, Sums& s) {
  const uint32_t x4 = load_word(x), w4 = load_word(w);
  const int16x2_t x_even = __sxtab16(offset2, x4), x_odd = odd_bytes_plus(offset2, x4);
  const int16x2_t w_even = __sxtb16(w4), w_odd = odd_bytes(w4);
  s.acc[0] = __smlabb(x_even, w_even, s.acc[0]);
  s.acc[2] = __smlatt(x_even, w_even, s.acc[2]);
  s.acc[1] = __smlabb(x_odd, w_odd, s.acc[1]);
  s.acc[3] = __smlatt(x_odd, w_odd, s.acc[3]);
}
#else
// The same sums in portable C++ (the host runs programs planned for DSP
// cores bit for bit), wrapping like the hardware's int32 accumulator.
inline void one_tap(const int8_t* x, const int8_t* w, int32_t offset, Sums& s) {
  for (int32_t j = 0; j < kGroup; ++j) s.acc[j] = wrapping_add(s.acc[j], (x[j] + offset) * w[j]);
}

inline void two_taps(const int8_t* xa, const int8_t* xb, const int8_t* wa, const int8_t* wb,
                     int32_t offset, Sums& s) {
  one_tap(xa, wa, offset, s);
  one_tap(xb, wb, offset, s);
}
#endif

// ceil(n / d) in 32 bits (no 64-bit division, a library call on these cores).
inline uint32_t divide_up(uint32_t n, uint32_t d) { return n / d + (n % d != 0 ? 1 : 0); }

// Taps [*first, *last) of an axis whose input coordinate origin + k *
// dilation lands inside [0, size). The loader's window checks keep origin
// at or above -INT32_MAX, so both distances fit uint32.
void tap_range(int32_t origin, int32_t size, int32_t filter, int32_t dilation, int32_t* first,
               int32_t* last) {
  const uint32_t d = static_cast<uint32_t>(dilation);
  const uint32_t lo = origin < 0 ? divide_up(0u - static_cast<uint32_t>(origin), d) : 0;
  const uint32_t room = static_cast<uint32_t>(size) - static_cast<uint32_t>(origin);
  const uint32_t hi = origin < size ? divide_up(room, d) : 0;
  const uint32_t taps = static_cast<uint32_t>(filter);
  *first = static_cast<int32_t>(lo < taps ? lo : taps);
  *last = static_cast<int32_t>(hi < taps ? hi : taps);
  if (*last < *first) *last = *first;
}

// The valid taps of one output pixel: a rectangle of rows x cols taps from
// tap (ky_first, kx_first), whose input starts at `input` (channel 0).
struct Window {
  const int8_t* input;
  int32_t first_tap;  // ky_first * filter_w + kx_first
  int32_t rows, cols;
};

// Strides of a window walk, the same for every pixel.
struct Walk {
  int32_t col_step;    // input, next tap in a row
  int32_t row_step;    // input, next row of taps
  int32_t weight_row;  // a group's weights, next row of taps
};

// One group of four channels over one pixel's valid taps, kCols of them
// per row (0: win.cols, known only at run time). Not inlined: on its own
// the function has every register for the sums, the pointers and the
// offset, where inlined into the pixel loops GCC spills them. A known
// column count (3 and 2, the 3x3 filter inside and at the edges) unrolls
// the row: no inner loop to enter per row.
template <int32_t kCols, typename Offset>
__attribute__((noinline)) Sums accumulate_group(const int8_t* in_row, const int8_t* w_row,
                                                const Window& win, const Walk& walk,
                                                Offset offset) {
  // A local, not the return slot: stores through the int8 pointers could
  // alias the latter, and it would be written back every tap.
  Sums s = {};
  const int32_t col_step = walk.col_step;
  const int32_t cols = kCols != 0 ? kCols : win.cols;
  for (int32_t ky = 0; ky < win.rows; ++ky, in_row += walk.row_step, w_row += walk.weight_row) {
    const int8_t* x = in_row;
    const int8_t* w = w_row;
    const int8_t* const pairs_end = w_row + (cols & ~1) * kGroup;
    for (; w != pairs_end; w += 2 * kGroup) {
      const int8_t* const x_next = x + col_step;
      two_taps(x, x_next, w, w + kGroup, offset, s);
      x = x_next + col_step;
    }
    if ((cols & 1) != 0) one_tap(x, w, offset, s);
  }
  Sums result;
  for (int32_t j = 0; j < kGroup; ++j) result.acc[j] = s.acc[j];
  return result;
}

// The group sums for the window's column count.
template <typename Offset>
inline Sums group_sums(const int8_t* in_row, const int8_t* w_row, const Window& win,
                       const Walk& walk, Offset offset) {
  if (win.cols == 3) return accumulate_group<3>(in_row, w_row, win, walk, offset);
  if (win.cols == 2) return accumulate_group<2>(in_row, w_row, win, walk, offset);
  return accumulate_group<0>(in_row, w_row, win, walk, offset);
}

template <Rounding R, typename Offset>
TINYAOT_MODE_LOOP void convolve(const DepthwiseConv2dParams& p, const int8_t* input,
                                const int8_t* filter, const ChannelQuant* quant, int8_t* output,
                                Offset offset) {
  const int32_t depth = p.input_depth;
  const int32_t taps = p.filter_h * p.filter_w;
  const int32_t col_step = p.dilation_w * depth;              // input, next tap in a row
  const int32_t row_step = p.dilation_h * p.input_w * depth;  // input, next row of taps
  const int32_t groups_end = depth - depth % kGroup;
  const int32_t rest = depth - groups_end;  // channels past the last group
  const int8_t* const rest_filter = filter + groups_end * taps;
  const Walk walk = {col_step, row_step, p.filter_w * kGroup};
  for (int32_t b = 0; b < p.batches; ++b) {
    const int8_t* image = input + b * p.input_h * p.input_w * depth;
    for (int32_t oy = 0; oy < p.output_h; ++oy) {
      const int32_t y_origin = oy * p.stride_h - p.pad_top;
      int32_t ky_first, ky_last;
      tap_range(y_origin, p.input_h, p.filter_h, p.dilation_h, &ky_first, &ky_last);
      for (int32_t ox = 0; ox < p.output_w; ++ox) {
        const int32_t x_origin = ox * p.stride_w - p.pad_left;
        int32_t kx_first, kx_last;
        tap_range(x_origin, p.input_w, p.filter_w, p.dilation_w, &kx_first, &kx_last);
        int8_t* out = output + ((b * p.output_h + oy) * p.output_w + ox) * depth;
        Window win;
        win.rows = ky_last - ky_first;
        win.cols = kx_last - kx_first;
        win.input = image;  // no tap reads it when the window is empty
        win.first_tap = 0;
        if (win.rows == 0 || win.cols == 0) {
          win.rows = win.cols = 0;
        } else {
          const int32_t y_first = y_origin + ky_first * p.dilation_h;
          const int32_t x_first = x_origin + kx_first * p.dilation_w;
          win.input += (y_first * p.input_w + x_first) * depth;
          win.first_tap = ky_first * p.filter_w + kx_first;
        }
        int32_t c = 0;
        for (; c < groups_end; c += kGroup) {
          // This group's weights: [filter_h][filter_w][4], read in order.
          const Sums s = group_sums(win.input + c, filter + c * taps + win.first_tap * kGroup, win,
                                    walk, offset);
          out[c] = output_step<R>(static_cast<uint32_t>(s.acc[0]), quant[c], p);
          out[c + 1] = output_step<R>(static_cast<uint32_t>(s.acc[1]), quant[c + 1], p);
          out[c + 2] = output_step<R>(static_cast<uint32_t>(s.acc[2]), quant[c + 2], p);
          out[c + 3] = output_step<R>(static_cast<uint32_t>(s.acc[3]), quant[c + 3], p);
        }
        for (int32_t j = 0; j < rest; ++j) {
          uint32_t acc = 0;
          const int8_t* in_row = win.input + groups_end + j;
          // The remaining channels' weights: [filter_h][filter_w][rest].
          const int8_t* w_row = rest_filter + win.first_tap * rest + j;
          for (int32_t ky = 0; ky < win.rows; ++ky, in_row += row_step, w_row += p.filter_w * rest)
            for (int32_t kx = 0; kx < win.cols; ++kx)
              acc += static_cast<uint32_t>((in_row[kx * col_step] + p.input_offset) *
                                           w_row[kx * rest]);
          out[groups_end + j] = output_step<R>(acc, quant[groups_end + j], p);
        }
      }
    }
  }
}

Status run(const KernelArgs& args) {
  const auto& p = *static_cast<const DepthwiseConv2dParams*>(args.params);
  const WeightedOperands o = weighted_operands(args);
#if defined(__ARM_FEATURE_DSP) && __ARM_FEATURE_DSP
  // The offset in both halves, for SXTAB16 (it lies in [-127, 128]).
  const uint32_t offset = (static_cast<uint32_t>(p.input_offset) & 0xFFFFu) * 0x10001u;
#else
  const int32_t offset = p.input_offset;
#endif
  with_rounding(args.rounding, [&](auto mode) {
    convolve<decltype(mode)::value>(p, o.input, o.filter, o.quant, o.output, offset);
  });
  return Status::kOk;
}

}  // namespace

const KernelDescriptor kernel_depthwise_conv2d_s8_dsp = {
    "depthwise_conv2d_s8_dsp",
    "depthwise_conv2d",
    1,
    sizeof(DepthwiseConv2dParams),
    3,
    3,
    1,
    IsaClass::kDsp,
    "input:s8[batches,input_h,input_w,input_depth], "
    "filter:s8{[input_depth/4][filter_h][filter_w][4],[filter_h][filter_w][input_depth%4]}, "
    "quant:ChannelQuant[input_depth] -> output:s8[batches,output_h,output_w,input_depth]; "
    "params=DepthwiseConv2dParams{batches,input_h,input_w,input_depth,depth_multiplier,"
    "filter_h,filter_w,output_h,output_w,stride_h,stride_w,dilation_h,dilation_w,pad_top,"
    "pad_left,input_offset,output_offset,act_min,act_max}; case=multiplier1",
    run,
    validate,
    nullptr,
};

}  // namespace tinyaot
