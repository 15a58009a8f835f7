// CONV_2D of any window, stride, dilation and padding (ungrouped) on MVE
// cores, with no scratch: each output pixel's window is read where the
// input holds it, segment by segment (a window row of filter_w * depth
// contiguous bytes, or one tap's depth bytes when dilated;
// window_mve_layout.h), 16 bytes per input load multiplied by four output
// channels' weights with four VMLADAVA.S8 (64 MACs in nine instructions),
// then the four sums requantized as one vector (output_step_mve.h). Two
// adjacent windows inside the input whose rows are one segment go
// together, each weight load serving both (128 MACs in 16 instructions).
//
// The compiler folded input_offset * sum(filter[o]) into each bias
// (kernel_sums.h), so the products take the raw inputs. That holds where
// every tap reads a real input or the zero point: at an edge the lanes of
// taps outside the input are set to the zero point (VPSEL after a load
// predicated to the taps inside), whose product cancels the folded term
// exactly as the reference's skipped tap.
//
// Inside the input no load is predicated: a segment's last block may run
// up to 15 bytes past it, onto zero weights, so the bytes it reads do not
// count; it reads them only where they lie within the input operand (an
// edge pixel's path takes the windows near its end).
#include "kernels/common/mve_asm.h"
#include "kernels/common/output_step.h"
#include "kernels/common/output_step_mve.h"
#include "kernels/common/quant.h"
#include "kernels/common/weighted_operands.h"
#include "kernels/conv2d/conv2d.h"
#include "kernels/conv2d/conv2d_cases.h"
#include "kernels/conv2d/conv2d_gemm.h"
#include "kernels/conv2d/window_mve_layout.h"
#include "kernels/conv2d/window_mve_pair.h"
#include "tinyaot/load_time.h"

namespace tinyaot {
namespace {

constexpr int32_t kChunkGroups = kWindowMveChunkGroups;

// The family's checks on the model's weight count, then the layout's size.
TINYAOT_LOAD_TIME Status validate(const void* raw, const OperandView* inputs, uint32_t num_inputs,
                                  const OperandView* outputs, uint32_t num_outputs) {
  const auto& p = *static_cast<const Conv2dParams*>(raw);
  if (num_inputs != 3 || !is_conv2d_window_mve_case(p)) return Status::kBadParams;
  if (inputs[1].bytes != window_mve_weight_bytes(p)) return Status::kBadParams;
  const auto model_bytes = static_cast<uint32_t>(conv2d_column_length(p) * p.output_depth);
  const OperandView as_model[3] = {inputs[0], {inputs[1].constant, model_bytes}, inputs[2]};
  const Status status = validate_conv2d_operands(p, as_model, num_inputs, outputs, num_outputs);
  return status != Status::kOk ? status : validate_gemm_quant(p, inputs);
}

// What the loops need, derived once per call.
struct Geometry {
  WindowMveShape s;
  int32_t input_h, input_w, depth, filter_h, filter_w, dilation_h, dilation_w;
  int32_t row_bytes;  // an input row
  // From one window row's first segment to the next, and from one segment
  // of a row to the next; only read inside the input, where a window fits
  // (0 otherwise: no product that could overflow for a huge dilation).
  int32_t row_step, segment_step;
  // From one window row to the next at an edge: read only between two
  // rows inside the input, so dilation_h < input_h (0 otherwise).
  intptr_t edge_row_step;
  int32_t y_last, x_last;  // largest origin whose whole window is inside
  // Bytes from a window's first input byte to the end of its last
  // segment's last block: where it passes the input, the edge path runs.
  int64_t span;
  uintptr_t input_end;  // one past the input operand
  // Adjacent output pixels a call may take (their sums fit the stack's
  // kChunkGroups groups; 0 for a pixel of more groups, which pixel() takes
  // in chunks), and the input bytes between their windows (read only
  // between two windows inside the input).
  int32_t run_limit;
  intptr_t pixel_step;
  int32_t channels;
  int8_t zero_point;
};

Geometry geometry(const Conv2dParams& p, const Operand& input) {
  Geometry g;
  g.s = window_mve_shape(p);
  g.input_h = p.input_h;
  g.input_w = p.input_w;
  g.depth = p.input_depth;
  g.filter_h = p.filter_h;
  g.filter_w = p.filter_w;
  g.dilation_h = p.dilation_h;
  g.dilation_w = p.dilation_w;
  g.row_bytes = p.input_w * p.input_depth;
  const int64_t y_last = int64_t{p.input_h} - 1 - (int64_t{p.filter_h} - 1) * p.dilation_h;
  const int64_t x_last = int64_t{p.input_w} - 1 - (int64_t{p.filter_w} - 1) * p.dilation_w;
  g.y_last = y_last < 0 ? -1 : static_cast<int32_t>(y_last);
  g.x_last = x_last < 0 ? -1 : static_cast<int32_t>(x_last);
  const bool fits = g.y_last >= 0 && g.x_last >= 0;
  g.row_step = fits ? p.dilation_h * g.row_bytes : 0;
  g.edge_row_step = p.filter_h > 1 && p.dilation_h < p.input_h
                        ? static_cast<intptr_t>(int64_t{p.dilation_h} * g.row_bytes)
                        : 0;
  g.segment_step = fits && g.s.per_row > 1 ? p.dilation_w * p.input_depth : 0;
  g.span = (int64_t{p.filter_h} - 1) * g.row_step + (int64_t{g.s.per_row} - 1) * g.segment_step +
           int64_t{g.s.blocks} * kWindowMveLanes;
  g.input_end = reinterpret_cast<uintptr_t>(input.data) + input.bytes;
  g.channels = p.output_depth;
  g.run_limit = g.s.groups <= kChunkGroups ? kChunkGroups / g.s.groups : 0;
  g.pixel_step = static_cast<intptr_t>(int64_t{p.stride_w} * p.input_depth);
  g.zero_point = static_cast<int8_t>(-p.input_offset);
  return g;
}

// Where one segment of an edge window lies: its bytes [lo, hi) are inside
// the input (none when lo == hi), byte k of the segment at address at + k.
struct Segment {
  uintptr_t at;
  int32_t lo, hi;
};

// Taps [first, last) of a window row lie inside the input (dilation_w 1).
struct RowTaps {
  int32_t first, last;
};

RowTaps row_taps(const Geometry& g, int32_t x) {
  const int64_t before = -int64_t{x}, room = int64_t{g.input_w} - x;
  const int32_t taps = g.filter_w;
  const int32_t first = before <= 0 ? 0 : before >= taps ? taps : static_cast<int32_t>(before);
  const int32_t last = room <= first ? first : room >= taps ? taps : static_cast<int32_t>(room);
  return {first, last};
}

inline bool inside(int64_t v, int32_t size) { return v >= 0 && v < size; }

// Segment t of window row r of the window with top-left tap (y, x).
Segment edge_segment(const Geometry& g, const int8_t* image, int32_t y, int32_t x, RowTaps taps,
                     int32_t r, int32_t t) {
  const int64_t row = int64_t{y} + int64_t{r} * g.dilation_h;
  if (!inside(row, g.input_h)) return {reinterpret_cast<uintptr_t>(image), 0, 0};
  const uintptr_t row_at = reinterpret_cast<uintptr_t>(image) +
                           static_cast<uintptr_t>(row) * static_cast<uintptr_t>(g.row_bytes);
  if (g.s.per_row == 1) {  // the row's taps, adjacent
    return {row_at + static_cast<uintptr_t>(static_cast<intptr_t>(x) * g.depth),
            taps.first * g.depth, taps.last * g.depth};
  }
  const int64_t column = int64_t{x} + int64_t{t} * g.dilation_w;
  if (!inside(column, g.input_w)) return {reinterpret_cast<uintptr_t>(image), 0, 0};
  return {row_at + static_cast<uintptr_t>(column) * static_cast<uintptr_t>(g.depth), 0, g.depth};
}

#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1)

// Four channels' running sums.
struct Sums {
  int32_t a0, a1, a2, a3;
};

// The products of one block of 16 inputs with the group's four weight
// blocks at w (the weights' post-indexed load steps w to the next block).
__attribute__((always_inline)) inline void add_block(Sums& s, int8x16_t v, const int8_t*& w) {
  const int8x16_t w1 = vldrbq_s8(w + 16), w2 = vldrbq_s8(w + 32), w3 = vldrbq_s8(w + 48);
  const int8x16_t w0 = vldrbq_s8(w);
  w += kWindowMveLanes * kWindowMveChannels;
  s.a0 = vmladavaq_s8(s.a0, v, w0);
  s.a1 = vmladavaq_s8(s.a1, v, w1);
  s.a2 = vmladavaq_s8(s.a2, v, w2);
  s.a3 = vmladavaq_s8(s.a3, v, w3);
}

__attribute__((always_inline)) inline void store_sums(const Sums& s, int32_t* sums) {
  sums[0] = s.a0;
  sums[1] = s.a1;
  sums[2] = s.a2;
  sums[3] = s.a3;
}

// The sums of `groups` groups (weights from w on) over a window inside the
// input whose last block ends within it: every load whole, the window's
// segments walked once per group with only the sums, two pointers and the
// counters live (out of line: inlined into the pixel loop, GCC 12 kept a
// sum on the stack). A row of adjacent taps (dilation_w 1) is one segment:
// its own loop, as the per-tap loop's counters cost GCC 12 spills.
__attribute__((always_inline)) inline void window_sums(const Geometry& g, const int8_t* window,
                                                       const int8_t* w, int32_t groups,
                                                       int32_t* sums) {
  const int32_t blocks = g.s.blocks, per_row = g.s.per_row, rows = g.filter_h;
  const int32_t row_step = g.row_step, segment_step = g.segment_step;
  if (per_row == 1 && blocks == 1) {  // a row is one block: no block loop
    do {
      Sums s = {0, 0, 0, 0};
      const int8_t* row = window;
      int32_t r = rows;
      do {
        add_block(s, vldrbq_s8(row), w);
        row += row_step;
      } while (--r != 0);
      store_sums(s, sums);
      sums += kWindowMveChannels;
    } while (--groups != 0);
    return;
  }
  if (per_row == 1) {  // every count >= 1: loops that test at their end
    do {
      Sums s = {0, 0, 0, 0};
      const int8_t* row = window;
      int32_t r = rows;
      do {
        const int8_t* x = row;
        int32_t b = blocks;
        do {
          add_block(s, vldrbq_s8(x), w);
          x += kWindowMveLanes;
        } while (--b != 0);
        row += row_step;
      } while (--r != 0);
      store_sums(s, sums);
      sums += kWindowMveChannels;
    } while (--groups != 0);
    return;
  }
  for (; groups > 0; --groups, sums += kWindowMveChannels) {
    Sums s = {0, 0, 0, 0};
    const int8_t* row = window;
    for (int32_t r = rows; r > 0; --r, row += row_step) {
      const int8_t* segment = row;
      for (int32_t t = per_row; t > 0; --t, segment += segment_step) {
        const int8_t* x = segment;
        for (int32_t b = blocks; b > 0; --b, x += kWindowMveLanes) add_block(s, vldrbq_s8(x), w);
      }
    }
    store_sums(s, sums);
  }
}

__attribute__((noinline)) void inner_sums(const Geometry& g, const int8_t* window, const int8_t* w,
                                          int32_t groups, int32_t* sums) {
  window_sums(g, window, w, groups, sums);
}

// The sums of `groups` groups over two windows inside the input, `step`
// bytes apart, whose rows are one segment each (rows and blocks < 2^16):
// each weight block loaded once for both, 128 MACs in 16 instructions
// (window_mve_pair.S).
inline void pair_sums(const Geometry& g, const int8_t* window, intptr_t step, const int8_t* w,
                      int32_t groups, int32_t* sums_a, int32_t* sums_b) {
  const int32_t blocks = g.s.blocks, rows = g.filter_h;
  const intptr_t row_skip = g.row_step - intptr_t{blocks} * kWindowMveLanes;
  const uint32_t counts = (static_cast<uint32_t>(rows - 1) << 16) | static_cast<uint32_t>(blocks);
  tinyaot_window_mve_pair_sums(window, window + step, w, counts, row_skip, groups, sums_a, sums_b);
}

// The same for `count` windows `step` bytes apart (adjacent output pixels
// of a row), their sums one after the other: one call a run, two windows
// at a time where rows are one segment.
__attribute__((noinline)) void inner_run_sums(const Geometry& g, const int8_t* window,
                                              intptr_t step, int32_t count, const int8_t* w,
                                              int32_t groups, int32_t* sums) {
  const int32_t pixel_sums = groups * kWindowMveChannels;
  if (g.s.per_row == 1 && g.filter_h < 0x10000 && g.s.blocks < 0x10000) {
    for (; count >= 2; count -= 2, window += 2 * step, sums += 2 * pixel_sums)
      pair_sums(g, window, step, w, groups, sums, sums + pixel_sums);
    if (count == 0) return;
  }
  do {
    window_sums(g, window, w, groups, sums);
    window += step;
    sums += groups * kWindowMveChannels;
  } while (--count != 0);
}

// The sums of `groups` groups over any window, segment by segment (each
// segment's place found once for all groups, the sums kept in `sums`
// between segments): a segment outside the input multiplies the zero
// point; one wholly inside, whose blocks end within the input, is loaded
// whole; any other per block for its lanes inside the input, the other
// lanes set to the zero point.
__attribute__((noinline)) void edge_sums(const Geometry& g, const int8_t* image, int32_t y,
                                         int32_t x, const int8_t* w, int32_t groups,
                                         int32_t* sums) {
  const int8x16_t zero_point = vdupq_n_s8(g.zero_point);
  const int32_t blocks = g.s.blocks;
  const int64_t group_bytes = g.s.group_bytes;
  const int32_t segment_bytes = blocks * kWindowMveLanes * kWindowMveChannels;
  const RowTaps taps = row_taps(g, x);
  for (int32_t i = 0; i < groups * kWindowMveChannels; ++i) sums[i] = 0;
  for (int32_t r = 0; r < g.filter_h; ++r) {
    for (int32_t t = 0; t < g.s.per_row; ++t, w += segment_bytes) {
      const Segment segment = edge_segment(g, image, y, x, taps, r, t);
      const bool outside = segment.lo >= segment.hi;
      const bool whole = !outside && segment.lo == 0 && segment.hi == g.s.length &&
                         segment.at + uintptr_t(blocks) * kWindowMveLanes <= g.input_end;
      const int8_t* weights = w;
      int32_t* group_sums = sums;
      for (int32_t n = groups; n > 0;
           --n, weights += group_bytes, group_sums += kWindowMveChannels) {
        Sums s = {group_sums[0], group_sums[1], group_sums[2], group_sums[3]};
        const int8_t* wb = weights;
        if (outside) {
          for (int32_t b = blocks; b > 0; --b) add_block(s, zero_point, wb);
        } else if (whole) {
          const auto* in = reinterpret_cast<const int8_t*>(segment.at);
          for (int32_t b = blocks; b > 0; --b, in += kWindowMveLanes)
            add_block(s, vldrbq_s8(in), wb);
        } else {
          int32_t lo = segment.lo, hi = segment.hi;
          uintptr_t at = segment.at;
          for (int32_t b = blocks; b > 0;
               --b, at += kWindowMveLanes, lo -= kWindowMveLanes, hi -= kWindowMveLanes) {
            const mve_pred16_t lanes =
                static_cast<mve_pred16_t>(vctp8q(static_cast<uint32_t>(hi > 0 ? hi : 0)) &
                                          ~vctp8q(static_cast<uint32_t>(lo > 0 ? lo : 0)));
            const int8x16_t v = vldrbq_z_s8(reinterpret_cast<const int8_t*>(at), lanes);
            add_block(s, vpselq_s8(v, zero_point, lanes), wb);
          }
        }
        store_sums(s, group_sums);
      }
    }
  }
}

// An edge window of adjacent taps (dilation_w 1), row by row: `before`
// rows above the input, `inside` rows in it, `after` below; each inside
// row's bytes [lo, hi) lie inside, the row's segment starting at `first`
// for the first of them (before the row's start when the window passes
// its left edge).
struct EdgeRows {
  int32_t before, inside, after;
  uintptr_t first;
  int32_t lo, hi;
  bool whole;  // lo == 0, hi == the segment, every row's blocks end in the input
};

EdgeRows edge_rows(const Geometry& g, const int8_t* image, int32_t y, int32_t x) {
  EdgeRows e;
  const RowTaps taps = row_taps(g, x);
  const int64_t dilation = g.dilation_h;
  int64_t first = y < 0 ? (-int64_t{y} + dilation - 1) / dilation : 0;
  int64_t last = (int64_t{g.input_h} - 1 - y) / dilation + 1;  // rows [first, last) inside
  if (int64_t{g.input_h} - 1 - y < 0) last = 0;
  if (first > g.filter_h) first = g.filter_h;
  if (last > g.filter_h) last = g.filter_h;
  if (last < first || taps.first == taps.last) last = first;  // nothing inside
  e.before = static_cast<int32_t>(first);
  e.inside = static_cast<int32_t>(last - first);
  e.after = g.filter_h - static_cast<int32_t>(last);
  e.lo = taps.first * g.depth;
  e.hi = taps.last * g.depth;
  e.first = reinterpret_cast<uintptr_t>(image);
  e.whole = false;
  if (e.inside > 0) {
    const int64_t row = y + first * dilation;
    e.first += static_cast<uintptr_t>(row * g.row_bytes + int64_t{x} * g.depth);
    const uintptr_t end = e.first + uintptr_t(e.inside - 1) * uintptr_t(g.edge_row_step) +
                          uintptr_t(g.s.blocks) * kWindowMveLanes;
    e.whole = e.lo == 0 && e.hi == g.s.length && end <= g.input_end;
  }
  return e;
}

__attribute__((always_inline)) inline void add_zero_point_rows(Sums& s, int8x16_t zero_point,
                                                               int32_t rows, int32_t blocks,
                                                               const int8_t*& w) {
  for (int32_t n = rows * blocks; n > 0; --n) add_block(s, zero_point, w);
}

// The sums of `groups` groups over such a window, group by group as
// inner_sums: rows outside the input multiply the zero point, rows inside
// are loaded whole, or predicated to their lanes inside with the others
// set to the zero point.
__attribute__((noinline)) void edge_row_sums(const Geometry& g, const EdgeRows& e, const int8_t* w,
                                             int32_t groups, int32_t* sums) {
  const int8x16_t zero_point = vdupq_n_s8(g.zero_point);
  const int32_t blocks = g.s.blocks;
  const intptr_t step = g.edge_row_step;
  // One block a row: its lanes inside, the same for every row and group.
  const mve_pred16_t lanes = static_cast<mve_pred16_t>(vctp8q(static_cast<uint32_t>(e.hi)) &
                                                       ~vctp8q(static_cast<uint32_t>(e.lo)));
  do {
    Sums s = {0, 0, 0, 0};
    add_zero_point_rows(s, zero_point, e.before, blocks, w);
    uintptr_t row = e.first;
    if (e.whole && blocks == 1) {
      for (int32_t r = e.inside; r > 0; --r, row += step)
        add_block(s, vldrbq_s8(reinterpret_cast<const int8_t*>(row)), w);
    } else if (e.whole) {
      for (int32_t r = e.inside; r > 0; --r, row += step) {
        const auto* x = reinterpret_cast<const int8_t*>(row);
        for (int32_t b = blocks; b > 0; --b, x += kWindowMveLanes) add_block(s, vldrbq_s8(x), w);
      }
    } else if (blocks == 1) {
      for (int32_t r = e.inside; r > 0; --r, row += step) {
        const int8x16_t v = vldrbq_z_s8(reinterpret_cast<const int8_t*>(row), lanes);
        add_block(s, vpselq_s8(v, zero_point, lanes), w);
      }
    } else {
      for (int32_t r = e.inside; r > 0; --r, row += step) {
        int32_t lo = e.lo, hi = e.hi;
        uintptr_t at = row;
        for (int32_t b = blocks; b > 0;
             --b, at += kWindowMveLanes, lo -= kWindowMveLanes, hi -= kWindowMveLanes) {
          const mve_pred16_t in =
              static_cast<mve_pred16_t>(vctp8q(static_cast<uint32_t>(hi > 0 ? hi : 0)) &
                                        ~vctp8q(static_cast<uint32_t>(lo > 0 ? lo : 0)));
          const int8x16_t v = vldrbq_z_s8(reinterpret_cast<const int8_t*>(at), in);
          add_block(s, vpselq_s8(v, zero_point, in), w);
        }
      }
    }
    add_zero_point_rows(s, zero_point, e.after, blocks, w);
    store_sums(s, sums);
    sums += kWindowMveChannels;
  } while (--groups != 0);
}

// Channels [0, channels) of one pixel from their sums: biased, requantized
// and stored four at a time, a last group of fewer channels predicated.
// Whole groups gather their constants from a vector of the four channels'
// addresses, stepped by the first gather's writeback (no address
// arithmetic in core registers).
TINYAOT_ASM_SPANS_BEGIN
template <Rounding R>
inline void finish_groups(const int32_t* sums, const ChannelQuant* quant, int32_t channels,
                          const OutputRangeMve& range, int8_t* out) {
  // Immediates from a channel's bias to its other members.
  constexpr int32_t kGroupBytes = kWindowMveChannels * sizeof(ChannelQuant);
  constexpr int32_t kBias = offsetof(ChannelQuant, bias);
  constexpr int32_t kMultiplier = int32_t{offsetof(ChannelQuant, multiplier)} - kBias;
  constexpr int32_t kShift = int32_t{offsetof(ChannelQuant, shift)} - kBias;
  static_assert(kGroupBytes % 4 == 0 && kMultiplier % 4 == 0 && kShift % 4 == 0,
                "VLDRW gather immediates are multiples of 4");
  // The four channels' biases' addresses, one group before the first.
  uint32x4_t at =
      vaddq_n_u32(channel_quant_offsets(),
                  static_cast<uint32_t>(reinterpret_cast<uintptr_t>(quant) + kBias - kGroupBytes));
  int32_t o = 0;
  for (; o + kWindowMveChannels <= channels; o += kWindowMveChannels) {
    // vldrwq_gather_base_wb_s32 as GCC 12 emits it copies `at` and gathers
    // twice. The address is in a vector: the operand names the call's
    // constants, among which it reads (a "memory" clobber instead would
    // make GCC reload the range every group: resnet 28k instructions more).
    int32x4_t bias;
    __asm__("vldrw.u32 %q0, [%q1, %2]!"
            : "=&w"(bias), "+w"(at)
            : "i"(kGroupBytes), "m"(TINYAOT_ASM_SPAN(ChannelQuant, quant, channels)));
    const int32x4_t multiplier = vldrwq_gather_base_s32(at, kMultiplier);
    const int32x4_t shift = vldrwq_gather_base_s32(at, kShift);
    const int32x4_t v = wrapping_add_lanes(vldrwq_s32(sums + o), bias);
    vstrbq_s32(out + o, offset_and_clamp_mve(requantize_mve<R>(v, multiplier, shift), range));
  }
  if (o == channels) return;
  const mve_pred16_t lanes = vctp32q(static_cast<uint32_t>(channels - o));
  const ChannelQuantLanes q = load_channel_quant_x4(quant + o, lanes);
  output_step_mve<R>(out + o, wrapping_add_lanes(vldrwq_s32(sums + o), q.bias), q, range, lanes);
}
TINYAOT_ASM_SPANS_END

template <Rounding R>
void pixel(const Geometry& g, const int8_t* image, int32_t y, int32_t x, const int8_t* window,
           const int8_t* filter, const ChannelQuant* quant, const OutputRangeMve& range,
           int8_t* out) {
  alignas(16) int32_t sums[kChunkGroups * kWindowMveChannels];
  EdgeRows rows;
  if (window == nullptr && g.s.per_row == 1) rows = edge_rows(g, image, y, x);
  for (int32_t first = 0; first < g.s.groups; first += kChunkGroups) {
    const int32_t groups = g.s.groups - first < kChunkGroups ? g.s.groups - first : kChunkGroups;
    const int8_t* w = filter + first * g.s.group_bytes;
    if (window != nullptr)
      inner_sums(g, window, w, groups, sums);
    else if (g.s.per_row == 1)
      edge_row_sums(g, rows, w, groups, sums);
    else
      edge_sums(g, image, y, x, w, groups, sums);
    const int32_t o = first * kWindowMveChannels;
    const int32_t left = g.channels - o;
    finish_groups<R>(sums, quant + o, left < kChunkGroups * 4 ? left : kChunkGroups * 4, range,
                     out + o);
  }
}

// `count` adjacent output pixels whose windows lie inside, `step` input
// bytes apart (every group's sums on the stack at once: groups * count <=
// kChunkGroups).
template <Rounding R>
void inner_run(const Geometry& g, const int8_t* window, intptr_t step, int32_t count,
               const int8_t* filter, const ChannelQuant* quant, const OutputRangeMve& range,
               int8_t* out, int32_t out_step) {
  alignas(16) int32_t sums[kChunkGroups * kWindowMveChannels];
  inner_run_sums(g, window, step, count, filter, g.s.groups, sums);
  const int32_t* pixel_sums = sums;
  for (int32_t k = count; k > 0;
       --k, pixel_sums += g.s.groups * kWindowMveChannels, out += out_step)
    finish_groups<R>(pixel_sums, quant, g.channels, range, out);
}

using Range = OutputRangeMve;
inline Range make_range(const Conv2dParams& p) { return output_range_mve(output_range(p)); }

#else

// Elsewhere (the host running a program planned for an MVE core) the same
// sums in portable C++ over the same layout, every window by the edge
// path's rule, and the scalar output step.
template <Rounding R>
void pixel(const Geometry& g, const int8_t* image, int32_t y, int32_t x, const int8_t*,
           const int8_t* w, const ChannelQuant* quant, const OutputRange& range, int8_t* out) {
  const RowTaps taps = row_taps(g, x);
  for (int32_t o = 0; o < g.channels; o += kWindowMveChannels) {
    uint32_t acc[kWindowMveChannels] = {0, 0, 0, 0};
    for (int32_t r = 0; r < g.filter_h; ++r) {
      for (int32_t t = 0; t < g.s.per_row; ++t, w += g.s.blocks * 64) {
        const Segment s = edge_segment(g, image, y, x, taps, r, t);
        for (int32_t k = 0; k < g.s.length; ++k) {
          const int32_t v =
              k >= s.lo && k < s.hi ? *reinterpret_cast<const int8_t*>(s.at + k) : g.zero_point;
          const int8_t* block = w + k / kWindowMveLanes * 64 + k % kWindowMveLanes;
          for (int32_t j = 0; j < kWindowMveChannels; ++j)
            acc[j] += static_cast<uint32_t>(v * block[j * kWindowMveLanes]);
        }
      }
    }
    for (int32_t j = 0; j < kWindowMveChannels && o + j < g.channels; ++j)
      out[o + j] = fast_output_step<R>(acc[j], quant[o + j], range);
  }
}

template <Rounding R>
void inner_run(const Geometry& g, const int8_t* window, intptr_t step, int32_t count,
               const int8_t* filter, const ChannelQuant* quant, const OutputRange& range,
               int8_t* out, int32_t out_step) {
  // Each window inside: row 0, column 0 of an image that starts there.
  for (; count > 0; --count, window += step, out += out_step)
    pixel<R>(g, window, 0, 0, window, filter, quant, range, out);
}

using Range = OutputRange;
inline Range make_range(const Conv2dParams& p) { return output_range(p); }

#endif

template <Rounding R>
TINYAOT_MODE_LOOP void convolve(const Conv2dParams& p, const Geometry& g,
                                const WeightedOperands& o) {
  const Range range = make_range(p);
  const int32_t pixels = p.batches * p.output_h * p.output_w;
  Conv2dWindowCursor w = Conv2dWindowCursor::first(p, o.input);
  int8_t* out = o.output;
  for (int32_t i = 0; i < pixels;) {
    // A window inside the input whose last block ends within it, or none.
    const int8_t* window = nullptr;
    if (w.y >= 0 && w.x >= 0 && w.y <= g.y_last && w.x <= g.x_last) {
      window = w.image + w.y * g.row_bytes + w.x * g.depth;
      if (reinterpret_cast<uintptr_t>(window) + g.span > g.input_end) window = nullptr;
    }
    int32_t count = 1;
    if (window != nullptr && g.run_limit > 0) {
      // The adjacent pixels of this output row whose windows are so too.
      const int32_t limit = p.output_w - w.ox < g.run_limit ? p.output_w - w.ox : g.run_limit;
      while (count < limit && int64_t{w.x} + int64_t{count} * p.stride_w <= g.x_last &&
             reinterpret_cast<uintptr_t>(window) + uintptr_t(count) * uintptr_t(g.pixel_step) +
                     g.span <=
                 g.input_end)
        ++count;
      inner_run<R>(g, window, g.pixel_step, count, o.filter, o.quant, range, out, p.output_depth);
    } else {  // at an edge, or more groups than one call's sums
      pixel<R>(g, w.image, w.y, w.x, window, o.filter, o.quant, range, out);
    }
    out += count * p.output_depth;
    for (int32_t k = 0; k < count; ++k, ++i)
      if (i + 1 < pixels) w.advance(p);
  }
}

Status run(const KernelArgs& args) {
  const auto& p = *static_cast<const Conv2dParams*>(args.params);
  const WeightedOperands o = weighted_operands(args);
  const Geometry g = geometry(p, args.inputs[0]);
  with_any_rounding(args.rounding, [&](auto mode) { convolve<decltype(mode)::value>(p, g, o); });
  return Status::kOk;
}

}  // namespace

const KernelDescriptor kernel_conv2d_s8_window_mve = {
    "conv2d_s8_window_mve",
    "conv2d",
    1,
    sizeof(Conv2dParams),
    3,
    3,
    1,
    IsaClass::kMve,
    "input:s8[batches,input_h,input_w,input_depth], "
    "filter:s8[groups of 4 output channels][filter_h*segments][blocks of 16][4][16] "
    "(segment: filter_w*input_depth, or input_depth when dilation_w > 1; zero-padded), "
    "quant:ChannelQuant[output_depth]{bias+=input_offset*sum(filter[o])} "
    "-> output:s8[batches,output_h,output_w,output_depth]; " TINYAOT_CONV2D_PARAMS_SIGNATURE
    "; case=ungrouped",
    run,
    validate,
    nullptr,
};

}  // namespace tinyaot
