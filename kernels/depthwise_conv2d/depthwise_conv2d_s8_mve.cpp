// DEPTHWISE_CONV_2D for MVE cores (Cortex-M55): any filter up to 64 taps,
// any stride, padding, dilation and depth multiplier, any depth; no
// scratch.
//
// MVE has no vector-by-vector integer multiply-accumulate (VMLA takes a
// scalar), so a channel-per-lane sum costs a VMUL and a VADD per four
// taps. Its dot product does more: VMLADAVA.S16 adds eight products to a
// scalar. So each output is summed on its own, its taps in the lanes: one
// VLDRB.S16 gather of eight taps of its channel (16-bit offsets from the
// window's first tap, the same for every channel and every pixel whose
// window lies inside), one widening load of its eight weights (the
// compiler stores them together, depthwise_mve_layout.h), one VMLADAVA:
// three instructions for eight MACs. A 3x3 filter's ninth tap is summed
// four channels at a time (one input load, one weight load, VMUL, VADD)
// instead of by a ninth-lane gather per output.
//
// The input offset is folded into the bias by the compiler (raw int8
// products); a tap outside the input is a lane left out of the gather, and
// the zero point times its weight, one predicated VMLADAVA, cancels its
// share of the folded offset, so edge pixels take the same loop with masks.
// Four outputs' sums go into one vector for the shared vector output step
// (output_step_mve.h); a depth that is not a multiple of four ends with a
// predicated block, no scalar epilogue.
#include <stddef.h>
#include <stdint.h>

#include "kernels/common/output_step.h"
#include "kernels/common/quant.h"
#include "kernels/common/weighted_operands.h"
#include "kernels/depthwise_conv2d/depthwise_conv2d.h"
#include "kernels/depthwise_conv2d/depthwise_conv2d_cases.h"
#include "kernels/depthwise_conv2d/depthwise_mve_layout.h"
#include "kernels/depthwise_conv2d/depthwise_window.h"
#include "tinyaot/load_time.h"

#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1)
#include <arm_mve.h>

#include "kernels/common/mve_asm.h"
#include "kernels/common/output_step_mve.h"
#endif

namespace tinyaot {
namespace {

TINYAOT_LOAD_TIME Status validate(const void* raw, const OperandView* inputs, uint32_t num_inputs,
                                  const OperandView* outputs, uint32_t num_outputs) {
  const auto& p = *static_cast<const DepthwiseConv2dParams*>(raw);
  const Status status =
      validate_depthwise_conv2d_operands(p, inputs, num_inputs, outputs, num_outputs);
  if (status != Status::kOk) return status;
  if (!is_depthwise_mve_case(p)) return Status::kBadParams;
  return validate_fast_depthwise_quant(p, inputs);
}

#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1)

// Byte offset of an output pixel's first tap from the image (negative or
// past the input at the edges: only the lanes inside are read there).
inline int32_t window_origin(const DepthwiseConv2dParams& p, int32_t oy, int32_t ox) {
  return ((oy * p.stride_h - p.pad_top) * p.input_w + (ox * p.stride_w - p.pad_left)) *
         p.input_depth;
}

// What is the same for every pixel of a call.
struct Walk {
  uint16x8_t offsets[kDepthwiseMveMaxChunks];  // chunk c's taps from the first
  mve_pred16_t last_lanes;                     // the taps of the last chunk
  int32_t chunks;
  int32_t summed_taps;
  int32_t depth;
  int32_t multiplier;
  bool last_apart;
  int32_t last_offset;         // the apart tap's offset
  const int8_t* weights;       // [depth][summed_taps]
  const int8_t* last_weights;  // [depth], the apart tap's
  int32_t zero_point;          // what a tap outside the input reads
};

// Adjacent pixels of one output row whose windows have the same taps
// inside: the next one's first tap pixel_step input bytes on.
struct Run {
  int32_t pixels;
  int32_t pixel_step;
};

// An edge pixel's taps inside the input: per chunk the lanes, and whether
// the apart tap is.
struct Inside {
  mve_pred16_t lanes[kDepthwiseMveMaxChunks];
  bool last;
};

// The output step of four channels through the shared vector step, from
// sums without their bias; lanes: the channels that exist.
template <Rounding R>
inline void finish4(int32x4_t sums, const ChannelQuant* q, int8_t* out, const OutputRangeMve& range,
                    mve_pred16_t lanes) {
  const ChannelQuantLanes c = load_channel_quant_x4(q, lanes);
  output_step_mve<R>(out, wrapping_add_lanes(sums, c.bias), c, range, lanes);
}

// What the channel loops keep in registers, copied out of the call's
// structures (a store through int8_t* may alias them, so read through a
// reference they would be reloaded after every output).
struct Loop {
  const int8_t* w;      // the next output's weights
  const int8_t* apart;  // the apart tap's weights, from the first output
  int32_t depth;
  int32_t apart_offset;  // the apart tap's input offset
  int32_t zero_point;
  bool apart_inside;  // the apart tap lies inside the input
};

inline Loop loop_of(const Walk& walk, const Inside& in) {
  return {walk.weights, walk.last_weights, walk.depth, walk.last_offset, walk.zero_point, in.last};
}

// The apart tap of four channels (depth multiplier 1): their inputs at x.
template <bool kEdge>
inline int32x4_t add_apart_tap(int32x4_t sums, const int8_t* x, const int8_t* w, const Loop& k,
                               mve_pred16_t lanes) {
  const int32x4_t wv = vldrbq_z_s32(w, lanes);
  if (kEdge && !k.apart_inside) return vmlaq_n_s32(sums, wv, k.zero_point);
  return wrapping_add_lanes(sums, vmulq_s32(vldrbq_z_s32(x + k.apart_offset, lanes), wv));
}

// The eight-tap sums of channels x..x+3 of a pixel (one full chunk each:
// a gather of the channel's taps, a widening load of its weights, one
// VMLADAV), as one vector; x moves on by four channels, w by their
// weights. In assembly: GCC 12 zeroes a register for each sum's VMLADAVA
// instead of using VMLADAV, and spills the loop's vectors around the four
// chains. An edge pixel (kEdge) gathers only the taps inside (P0 =
// inside) and adds zero_outside . weights: the zero point times the
// weight of each tap outside, which cancels that tap's share of the
// folded input offset. The gathers read x + 3 + a 16-bit offset at most,
// the weight loads the four outputs' 32 bytes. w is a low register ("l"):
// a widening load's post-increment takes no other (GCC at -O1 chose fp).
template <bool kEdge>
inline int32x4_t quad_sums(const int8_t*& x, const int8_t*& w, uint16x8_t offsets,
                           mve_pred16_t inside, int16x8_t zero_outside) {
  int32_t s0, s1, s2, s3;
  int16x8_t g, a;
  const int8_t* t;
  using Inputs = const int8_t(*)[UINT16_MAX + 4];
  using Weights = const int8_t(*)[4 * kDepthwiseMveLanes];
#define TINYAOT_DW_SUM(S, BASE)     \
  "vldrb.s16 %q[g], [" BASE         \
  ", %q[off]]\n\t"                  \
  "vldrb.s16 %q[a], [%[w]], #8\n\t" \
  "vmladav.s16 %[" S "], %q[g], %q[a]\n\t"
#define TINYAOT_DW_EDGE_SUM(S, BASE) \
  "vpst\n\t"                         \
  "vldrbt.s16 %q[g], [" BASE         \
  ", %q[off]]\n\t"                   \
  "vldrb.s16 %q[a], [%[w]], #8\n\t"  \
  "vmladav.s16 %[" S                 \
  "], %q[g], %q[a]\n\t"              \
  "vmladava.s16 %[" S "], %q[zo], %q[a]\n\t"
  if constexpr (kEdge) {
    MveP0 p0;
    __asm__(TINYAOT_P0_SAVE "vmsr p0, %[in]\n\t" TINYAOT_DW_EDGE_SUM("s0", "%[x]")
            "add %[t], %[x], #1\n\t" TINYAOT_DW_EDGE_SUM("s1", "%[t]")
            "add %[t], %[x], #2\n\t" TINYAOT_DW_EDGE_SUM("s2", "%[t]")
            "add %[t], %[x], #3\n\t" TINYAOT_DW_EDGE_SUM("s3", "%[t]")
            "add %[x], %[x], #4" TINYAOT_P0_RESTORE
            : [x] "+r"(x), [w] "+l"(w), [s0] "=&Te"(s0), [s1] "=&Te"(s1), [s2] "=&Te"(s2),
              [s3] "=&Te"(s3), [t] "=&r"(t), [g] "=&w"(g), [a] "=&w"(a), TINYAOT_WRITES_P0(p0)
            : [off] "w"(offsets), [zo] "w"(zero_outside), [in] "r"(uint32_t{inside}),
              "m"(*Inputs(x)), "m"(*Weights(w)));
  } else {
    (void)inside;
    (void)zero_outside;
    __asm__(TINYAOT_DW_SUM("s0", "%[x]")
            "add %[t], %[x], #1\n\t" TINYAOT_DW_SUM("s1", "%[t]")
            "add %[t], %[x], #2\n\t" TINYAOT_DW_SUM("s2", "%[t]")
            "add %[t], %[x], #3\n\t" TINYAOT_DW_SUM("s3", "%[t]")
            "add %[x], %[x], #4"
            : [x] "+r"(x), [w] "+l"(w), [s0] "=&Te"(s0), [s1] "=&Te"(s1), [s2] "=&Te"(s2),
              [s3] "=&Te"(s3), [t] "=&r"(t), [g] "=&w"(g), [a] "=&w"(a)
            : [off] "w"(offsets), "m"(*Inputs(x)), "m"(*Weights(w)));
  }
#undef TINYAOT_DW_SUM
#undef TINYAOT_DW_EDGE_SUM
  return lanes_of_sums(s0, s1, s2, s3);
}

// One output's eight gathered taps (a full chunk), for the last channels.
template <bool kEdge>
inline int32_t chunk_sum(const int8_t* x, const int8_t* w, uint16x8_t offsets, mve_pred16_t inside,
                         int16x8_t zero_outside) {
  const int16x8_t wv = vldrbq_s16(w);
  if constexpr (kEdge) {
    const int32_t acc = vmladavq_s16(vldrbq_gather_offset_z_s16(x, offsets, inside), wv);
    return vmladavaq_s16(acc, zero_outside, wv);
  } else {
    return vmladavq_s16(vldrbq_gather_offset_s16(x, offsets), wv);
  }
}

// Four channels' constants, one channel a lane, without predication: a
// vector of the lanes' bias addresses steps on by four channels in the
// first load (VLDRW gather with writeback), the other members at their
// offsets from the bias.
constexpr int32_t kQuantStep = 4 * static_cast<int32_t>(sizeof(ChannelQuant));

// The bias addresses of channels q..q+3, four channels back.
inline uint32x4_t quant_walk(const ChannelQuant* q) {
  const uint32_t first = static_cast<uint32_t>(reinterpret_cast<uintptr_t>(q)) +
                         offsetof(ChannelQuant, bias) - kQuantStep;
  return vaddq_n_u32(channel_quant_offsets(), first);
}

inline ChannelQuantLanes next_quant(uint32x4_t& bias_at) {
  constexpr int32_t kMultiplier =
      static_cast<int32_t>(offsetof(ChannelQuant, multiplier)) - offsetof(ChannelQuant, bias);
  constexpr int32_t kShift =
      static_cast<int32_t>(offsetof(ChannelQuant, shift)) - offsetof(ChannelQuant, bias);
  ChannelQuantLanes c;
  // GCC 12 makes the writeback on a copy and loads twice. The address is
  // in a vector: "memory" names what the load reads.
  __asm__("vldrw.u32 %q[v], [%q[at], #%c[step]]!"
          : [v] "=&w"(c.bias), [at] "+w"(bias_at)
          : [step] "i"(kQuantStep)
          : "memory");
  c.multiplier = vldrwq_gather_base_s32(bias_at, kMultiplier);
  c.shift = vldrwq_gather_base_s32(bias_at, kShift);
  return c;
}

// The 3x3 filter with multiplier 1 (and any other of 8 or 9 taps): one
// chunk per output; kApart: the ninth tap apart. x: channel 0 at the first
// tap.
template <Rounding R, bool kEdge, bool kApart>
__attribute__((noinline)) void pixel_one_chunk(const int8_t* first, const Run& run,
                                               const Inside& in, const Walk& walk,
                                               const ChannelQuant* q, int8_t* first_out,
                                               const OutputRangeMve& range_ref) {
  const Loop k = loop_of(walk, in);
  const OutputRangeMve range = range_ref;
  const uint16x8_t offsets = walk.offsets[0];
  const mve_pred16_t inside = in.lanes[0];
  const int16x8_t zero_outside = vdupq_m_n_s16(vdupq_n_s16(0), static_cast<int16_t>(k.zero_point),
                                               static_cast<mve_pred16_t>(~inside));
  const uint32x4_t first_quant = quant_walk(q);
  const int32_t pixel_step = run.pixel_step;
  // The pixel loop's counts and pointers as scalars: read as k's members,
  // GCC 12 reloads them every pixel (the gathers' "memory" clobber).
  const int32_t depth = k.depth, whole_blocks = depth / 4, count = depth % 4;
  const int8_t* const weights = k.w;
  const int8_t* const apart = k.apart;
  const int32_t apart_offset = k.apart_offset;
  for (int32_t px = run.pixels; px > 0; --px, first += pixel_step, first_out += depth) {
    const int8_t* x = first;
    int8_t* out = first_out;
    const int8_t* w = weights;
    const int8_t* apart_x = x + apart_offset;
    const int8_t* apart_w = apart;
    uint32x4_t quant = first_quant;
    for (int32_t blocks = whole_blocks; blocks > 0; --blocks, out += 4) {
      int32x4_t sums = quad_sums<kEdge>(x, w, offsets, inside, zero_outside);
      if constexpr (kApart) {
        const int32x4_t wv = vldrbq_s32(apart_w);
        apart_w += 4;
        if (kEdge && !k.apart_inside)
          sums = vmlaq_n_s32(sums, wv, k.zero_point);
        else
          sums = wrapping_add_lanes(sums, vmulq_s32(vldrbq_s32(apart_x), wv));
        apart_x += 4;
      }
      // Every lane stored: no predicate (whose VMSR and VPST would cost
      // two instructions a block).
      const ChannelQuantLanes c = next_quant(quant);
      const int32x4_t v =
          requantize_mve<R>(wrapping_add_lanes(sums, c.bias), c.multiplier, c.shift);
      vstrbq_s32(out, offset_and_clamp_mve(v, range));
    }
    if (count != 0) {
      int32_t s[4] = {0, 0, 0, 0};
      for (int32_t j = 0; j < count; ++j)
        s[j] = chunk_sum<kEdge>(x + j, w + j * kDepthwiseMveLanes, offsets, inside, zero_outside);
      const mve_pred16_t lanes = vctp32q(static_cast<uint32_t>(count));
      int32x4_t sums = lanes_of_sums(s[0], s[1], s[2], s[3]);
      const int32_t o = depth - count;
      if (kApart) sums = add_apart_tap<kEdge>(sums, x, apart + o, k, lanes);
      finish4<R>(sums, q + o, out, range, lanes);
    }
  }
}

// One output's sum over all its chunks, the last one partial.
template <bool kEdge>
inline int32_t output_sum(const int8_t* x, const int8_t* w, const Walk& walk, const Inside& in,
                          int16x8_t zero_point) {
  int32_t acc = 0;
  const int32_t chunks = walk.chunks;
  for (int32_t c = 0; c < chunks; ++c, w += kDepthwiseMveLanes) {
    const mve_pred16_t taps = c != chunks - 1 ? mve_pred16_t{0xFFFF} : walk.last_lanes;
    const int16x8_t wv = vldrbq_z_s16(w, taps);
    if constexpr (kEdge) {
      acc = vmladavaq_s16(acc, vldrbq_gather_offset_z_s16(x, walk.offsets[c], in.lanes[c]), wv);
      acc = vmladavaq_p_s16(acc, zero_point, wv, taps & static_cast<mve_pred16_t>(~in.lanes[c]));
    } else {
      acc = vmladavaq_s16(acc, vldrbq_gather_offset_z_s16(x, walk.offsets[c], taps), wv);
    }
  }
  return acc;
}

// Any filter and multiplier: output o = c * multiplier + m reads input
// channel c; its taps in walk.chunks gathers.
template <Rounding R, bool kEdge>
__attribute__((noinline)) void pixel_general(const int8_t* first, const Run& run, const Inside& in,
                                             const Walk& walk, const ChannelQuant* q,
                                             int8_t* first_out, const OutputRangeMve& range) {
  const Loop k = loop_of(walk, in);
  const int32_t multiplier = walk.multiplier, step = walk.summed_taps;
  const int16x8_t zero_point = vdupq_n_s16(static_cast<int16_t>(k.zero_point));
  const bool apart = walk.last_apart;
  for (int32_t px = 0; px < run.pixels; ++px) {
    const int8_t* origin = first + px * run.pixel_step;
    int8_t* out = first_out + px * k.depth;
    const int8_t* w = k.w;
    const int8_t* x = origin;  // the next output's input channel
    int32_t m = 0;
    int32_t o = 0;
    while (o < k.depth) {
      const int32_t count = k.depth - o < 4 ? k.depth - o : 4;
      int32_t s[4] = {0, 0, 0, 0};
      for (int32_t j = 0; j < count; ++j, w += step) {
        s[j] = output_sum<kEdge>(x, w, walk, in, zero_point);
        if (++m == multiplier) {
          m = 0;
          ++x;
        }
      }
      const mve_pred16_t lanes = vctp32q(static_cast<uint32_t>(count));
      int32x4_t sums = lanes_of_sums(s[0], s[1], s[2], s[3]);
      if (apart) sums = add_apart_tap<kEdge>(sums, origin + o, k.apart + o, k, lanes);
      finish4<R>(sums, q + o, out + o, range, lanes);
      o += count;
    }
  }
}

template <Rounding R>
using PixelFn = void (*)(const int8_t*, const Run&, const Inside&, const Walk&, const ChannelQuant*,
                         int8_t*, const OutputRangeMve&);

// Bit t = ky * filter_w + kx set for each tap inside the input: the
// window rows [y.first, y.first + y.count) times its columns likewise.
inline uint64_t inside_bits(const DepthwiseConv2dParams& p, const TapRange& y, const TapRange& x) {
  const uint64_t columns = (x.count >= 64 ? ~uint64_t{0} : (uint64_t{1} << x.count) - 1) << x.first;
  uint64_t bits = 0;
  for (int32_t ky = y.first; ky < y.first + y.count; ++ky) bits |= columns << (ky * p.filter_w);
  return bits;
}

// The predicate of eight taps' bits: two bits for each 16-bit lane.
inline mve_pred16_t lane_predicate(uint32_t taps) {
  uint32_t s = taps & 0xFFu;
  s = (s | (s << 4)) & 0x0F0Fu;
  s = (s | (s << 2)) & 0x3333u;
  s = (s | (s << 1)) & 0x5555u;
  return static_cast<mve_pred16_t>(s | (s << 1));
}

// An edge pixel's gather lanes and apart tap inside the input.
inline Inside inside_taps(const DepthwiseConv2dParams& p, const Walk& walk, const TapRange& y,
                          const TapRange& x) {
  const uint64_t bits = inside_bits(p, y, x);
  Inside in;
  for (int32_t c = 0; c < walk.chunks; ++c)
    in.lanes[c] = lane_predicate(static_cast<uint32_t>(bits >> (c * kDepthwiseMveLanes)));
  in.last = walk.last_apart && ((bits >> walk.summed_taps) & 1u) != 0;
  return in;
}

template <Rounding R>
TINYAOT_MODE_LOOP void convolve(const DepthwiseConv2dParams& p, const int8_t* input,
                                const int8_t* filter, const ChannelQuant* quant, int8_t* output) {
  const DepthwiseMveLayout l = depthwise_mve_layout(p);
  Walk walk;
  uint16_t offsets[kDepthwiseMveMaxChunks * kDepthwiseMveLanes] = {};
  for (int32_t t = 0; t < l.summed_taps; ++t)
    offsets[t] = static_cast<uint16_t>(depthwise_mve_tap_offset(p, t / p.filter_w, t % p.filter_w));
  for (int32_t c = 0; c < l.chunks; ++c)
    walk.offsets[c] = vldrhq_u16(offsets + c * kDepthwiseMveLanes);
  const int32_t last_count = l.summed_taps - (l.chunks - 1) * kDepthwiseMveLanes;
  walk.last_lanes = vctp16q(static_cast<uint32_t>(last_count));
  walk.chunks = l.chunks;
  walk.summed_taps = l.summed_taps;
  walk.depth = l.depth;
  walk.multiplier = p.depth_multiplier;
  walk.last_apart = l.last_apart;
  walk.last_offset =
      static_cast<int32_t>(depthwise_mve_tap_offset(p, p.filter_h - 1, p.filter_w - 1));
  walk.weights = filter;
  walk.last_weights = filter + l.depth * l.summed_taps;
  walk.zero_point = -p.input_offset;
  const OutputRangeMve range = output_range_mve(output_range(p));
  // The 3x3 filter with multiplier 1 (one full chunk and the apart tap),
  // else the general loop.
  const bool one_chunk =
      l.chunks == 1 && l.summed_taps == kDepthwiseMveLanes && p.depth_multiplier == 1;
  const PixelFn<R> interior = !one_chunk     ? pixel_general<R, false>
                              : l.last_apart ? pixel_one_chunk<R, false, true>
                                             : pixel_one_chunk<R, false, false>;
  const PixelFn<R> edge = !one_chunk     ? pixel_general<R, true>
                          : l.last_apart ? pixel_one_chunk<R, true, true>
                                         : pixel_one_chunk<R, true, false>;
  Inside all = {};
  all.last = true;
  const int32_t image_bytes = p.input_h * p.input_w * p.input_depth;
  const int32_t out_pixel = l.depth;
  for (int32_t b = 0; b < p.batches; ++b) {
    const uintptr_t image = reinterpret_cast<uintptr_t>(input) + uintptr_t(b * image_bytes);
    for (int32_t oy = 0; oy < p.output_h; ++oy) {
      const TapRange y =
          tap_range(oy * p.stride_h - p.pad_top, p.input_h, p.filter_h, p.dilation_h);
      const bool rows_inside = y.count == p.filter_h;
      for (int32_t ox = 0; ox < p.output_w;) {
        const TapRange x =
            tap_range(ox * p.stride_w - p.pad_left, p.input_w, p.filter_w, p.dilation_w);
        // With the whole filter width inside, so are the next pixels' up to
        // the right edge's: one call serves them all.
        Run run = {1, p.stride_w * p.input_depth};
        if (x.count == p.filter_w)
          while (ox + run.pixels < p.output_w &&
                 (ox + run.pixels) * p.stride_w - p.pad_left + (p.filter_w - 1) * p.dilation_w <
                     p.input_w)
            ++run.pixels;
        const auto* origin = reinterpret_cast<const int8_t*>(
            image + static_cast<uintptr_t>(static_cast<intptr_t>(window_origin(p, oy, ox))));
        int8_t* out = output + ((b * p.output_h + oy) * p.output_w + ox) * out_pixel;
        if (rows_inside && x.count == p.filter_w)
          interior(origin, run, all, walk, quant, out, range);
        else
          edge(origin, run, inside_taps(p, walk, y, x), walk, quant, out, range);
        ox += run.pixels;
      }
    }
  }
}

#else

// The same sums in portable C++ (the host runs programs planned for MVE
// cores bit for bit): raw inputs times the stored weights, the zero point
// where a tap lies outside, the folded bias added by the step.
template <Rounding R>
TINYAOT_MODE_LOOP void convolve(const DepthwiseConv2dParams& p, const int8_t* input,
                                const int8_t* filter, const ChannelQuant* quant, int8_t* output) {
  const DepthwiseMveLayout l = depthwise_mve_layout(p);
  const int32_t zero_point = -p.input_offset;
  const OutputRange range = output_range(p);
  for (int32_t b = 0; b < p.batches; ++b)
    for (int32_t oy = 0; oy < p.output_h; ++oy)
      for (int32_t ox = 0; ox < p.output_w; ++ox)
        for (int32_t o = 0; o < l.depth; ++o) {
          const int32_t c = o / p.depth_multiplier;
          uint32_t acc = 0;
          for (int32_t t = 0; t < l.taps; ++t) {
            const int32_t iy = oy * p.stride_h - p.pad_top + (t / p.filter_w) * p.dilation_h;
            const int32_t ix = ox * p.stride_w - p.pad_left + (t % p.filter_w) * p.dilation_w;
            const bool inside = iy >= 0 && iy < p.input_h && ix >= 0 && ix < p.input_w;
            const int32_t value =
                inside ? input[((b * p.input_h + iy) * p.input_w + ix) * p.input_depth + c]
                       : zero_point;
            const int32_t weight = t < l.summed_taps ? filter[o * l.summed_taps + t]
                                                     : filter[l.depth * l.summed_taps + o];
            acc += static_cast<uint32_t>(value * weight);
          }
          const int32_t v = fast_output_value<R>(acc + static_cast<uint32_t>(quant[o].bias),
                                                 quant[o], range.output_offset);
          output[((b * p.output_h + oy) * p.output_w + ox) * l.depth + o] = clamp_output(v, range);
        }
}

#endif

Status run(const KernelArgs& args) {
  const auto& p = *static_cast<const DepthwiseConv2dParams*>(args.params);
  const WeightedOperands o = weighted_operands(args);
  with_any_rounding(args.rounding, [&](auto mode) {
    convolve<decltype(mode)::value>(p, o.input, o.filter, o.quant, o.output);
  });
  return Status::kOk;
}

}  // namespace

const KernelDescriptor kernel_depthwise_conv2d_s8_mve = {
    "depthwise_conv2d_s8_mve",
    "depthwise_conv2d",
    1,
    sizeof(DepthwiseConv2dParams),
    3,
    3,
    1,
    IsaClass::kMve,
    "input:s8[batches,input_h,input_w,input_depth], "
    "filter:s8{[input_depth*depth_multiplier][summed_taps],"
    "[input_depth*depth_multiplier] if last_apart}, "
    "quant:ChannelQuant[input_depth*depth_multiplier]{bias+=input_offset*sum(filter[o])} "
    "-> output:s8[batches,output_h,output_w,input_depth*depth_multiplier]; "
    "params=DepthwiseConv2dParams{batches,input_h,input_w,input_depth,depth_multiplier,"
    "filter_h,filter_w,output_h,output_w,stride_h,stride_w,dilation_h,dilation_w,pad_top,"
    "pad_left,input_offset,output_offset,act_min,act_max}; case=taps<=64,offsets<=65535",
    run,
    validate,
    nullptr,
};

}  // namespace tinyaot
