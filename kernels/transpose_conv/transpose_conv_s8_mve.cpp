// TRANSPOSE_CONV for MVE cores, with no scratch: each output pixel gathers
// the input pixels that reach it instead of every input pixel scattering
// into an int32 image of the output. Along one axis the taps k that reach
// output o are those with (o + pad - k) divisible by the stride, reading
// input i = (o + pad - k) / stride inside the input: one phase's taps,
// every stride-th, their input pixels adjacent (i falls by one as k rises
// by the stride). Per group of four output channels the sums of all those
// taps, each tap one input pixel's channels times the group's four weight
// rows of that tap (gemm_mve.h: per 16 inputs one input load, four weight
// loads, four VMLADAVA.S8; the last input_depth % 16 predicated), each
// tap's offset sums (stored before its weights: one post-indexed VLDRW and
// a VADD), then the biases and the vector output step
// (output_step_mve.h), a last short group predicated.
//
// Sums are taken modulo 2^32 in any order, so this is the reference's
// result bit for bit: each output's sum of (x + input_offset) * w over the
// same taps and channels, x * w multiplied raw and input_offset * sum(w)
// of each tap added from the weights' operand (transpose_conv_mve_layout.h).
#include "kernels/common/gemm_mve.h"
#include "kernels/common/output_step.h"
#include "kernels/common/output_step_mve.h"
#include "kernels/common/quant.h"
#include "kernels/common/validate.h"
#include "kernels/transpose_conv/transpose_conv.h"
#include "kernels/transpose_conv/transpose_conv_checks.h"
#include "kernels/transpose_conv/transpose_conv_mve_layout.h"
#include "tinyaot/load_time.h"

namespace tinyaot {
namespace {

TINYAOT_LOAD_TIME Status validate(const void* raw, const OperandView* inputs, uint32_t num_inputs,
                                  const OperandView* outputs, uint32_t num_outputs) {
  const auto& p = *static_cast<const TransposeConvParams*>(raw);
  if (num_inputs != 3 || num_outputs != 1) return Status::kBadParams;
  const TransposeConvSizes sizes = transpose_conv_sizes(p);
  if (sizes.input < 0 || sizes.filter < 0 || sizes.output < 0 || !is_transpose_conv_mve_case(p))
    return Status::kBadParams;
  if (inputs[0].bytes != sizes.input || inputs[1].bytes != transpose_conv_mve_weight_bytes(p) ||
      !is_aligned_for<int32_t>(inputs[1].constant) ||
      !is_fast_channel_quant_operand(inputs[2], p.output_depth) || outputs[0].bytes != sizes.output)
    return Status::kBadParams;
  return is_transpose_conv_params(p) ? Status::kOk : Status::kBadParams;
}

// The taps of one axis that reach an output coordinate: `count` of them,
// the first `first_tap` reading input `first_input`; each next one a
// stride further in the filter and one pixel back in the input.
struct AxisTaps {
  int32_t first_tap, first_input, count;
};

// `out + pad` fits int32 (is_transpose_conv_mve_case), so does every
// value here: 32-bit divisions, no library call.
inline AxisTaps axis_taps(int32_t out, int32_t pad, int32_t stride, int32_t filter, int32_t input) {
  const int32_t at = out + pad;
  int32_t tap = at % stride, in = at / stride;
  if (in >= input) {  // the first taps read past the input's end
    const int32_t skip = in - (input - 1);
    tap += skip * stride;  // at most `at`
    in -= skip;
  }
  if (tap >= filter) return {0, 0, 0};
  const int32_t taps = (filter - 1 - tap) / stride + 1;
  return {tap, in, taps < in + 1 ? taps : in + 1};
}

// What the pixel loop needs, derived once per call.
struct Geometry {
  TransposeConvMveShape s;
  int32_t depth, blocks, rest;
  int32_t row_bytes;  // an input row
  // From a tap to the one stride_w right, and to the one stride_h below,
  // less the offset sums the loop's load steps over (only taken between
  // two taps of the filter: 0 where the stride passes it).
  int32_t column_step, row_step;
};

Geometry geometry(const TransposeConvParams& p) {
  Geometry g;
  g.s = transpose_conv_mve_shape(p);
  g.depth = p.input_depth;
  g.blocks = p.input_depth / kMveBlock;
  g.rest = p.input_depth % kMveBlock;
  g.row_bytes = p.input_w * p.input_depth;
  g.column_step = p.stride_w < p.filter_w
                      ? static_cast<int32_t>(p.stride_w * g.s.tap_bytes) - kTransposeConvOffsetBytes
                      : 0;
  g.row_step =
      p.stride_h < p.filter_h ? static_cast<int32_t>(p.stride_h * p.filter_w * g.s.tap_bytes) : 0;
  return g;
}

#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1)

// The sums of one row of taps: `count` input pixels from x back, each times
// its tap from w on (offset sums, then weights), into s0..s3 and `acc`.
__attribute__((always_inline)) inline void row_sums(const Geometry& g, const int8_t* x,
                                                    const int8_t* w, int32_t count, int32_t& s0,
                                                    int32_t& s1, int32_t& s2, int32_t& s3,
                                                    int32x4_t& acc) {
  const int32_t depth = g.depth, blocks = g.blocks, rest = g.rest, step = g.column_step;
  do {
    acc = wrapping_add_lanes(acc, vldrwq_s32(reinterpret_cast<const int32_t*>(w)));
    w += kTransposeConvOffsetBytes;
    gemm_group_accumulate(x, w, blocks, rest, s0, s1, s2, s3);
    x -= depth;
    w += step;
  } while (--count != 0);
}

// One group's four outputs of pixel (ty x tx): the sums of its taps from
// the group's constants w, then the output step.
template <Rounding R>
inline void group_pixel(const Geometry& g, const int8_t* image, AxisTaps ty, AxisTaps tx,
                        const int8_t* w, const ChannelQuantLanes& q, const OutputRangeMve& range,
                        mve_pred16_t lanes, int8_t* out, int32_t filter_w) {
  int32_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  int32x4_t acc = q.bias;
  if (ty.count > 0 && tx.count > 0) {
    const int8_t* x = image + ty.first_input * g.row_bytes + tx.first_input * g.depth;
    w += (ty.first_tap * filter_w + tx.first_tap) * g.s.tap_bytes;
    for (int32_t ry = ty.count; ry > 0; --ry, x -= g.row_bytes, w += g.row_step)
      row_sums(g, x, w, tx.count, s0, s1, s2, s3, acc);
  }
  output_step_mve<R>(out, wrapping_add_lanes(acc, lanes_of_sums(s0, s1, s2, s3)), q, range, lanes);
}

// Output columns whose taps are found once for every row and group (192
// bytes of stack; the sweeps' outputs, up to 25 columns, cross a chunk).
constexpr int32_t kColumnChunk = 16;

// Group by group (its constants and the output range stay in vector
// registers), pixel by pixel, a chunk of output columns at a time: a
// column's taps found once per chunk for every row and group, a row's
// once per group (reloading a group's constants per pixel instead costs
// more: 51,448 against 44,151 instructions for op_transpose_conv_s2).
template <Rounding R>
TINYAOT_MODE_LOOP void gather(const TransposeConvParams& params, const Geometry& geometry,
                              const int8_t* input, const int8_t* weights, const ChannelQuant* quant,
                              int8_t* output) {
  // Copies: the output's byte stores may alias anything reached through
  // a pointer, so GCC would reload every field after each pixel.
  const TransposeConvParams p = params;
  const Geometry g = geometry;
  const OutputRangeMve range = output_range_mve(output_range(p));
  const int32_t image_bytes = p.input_h * g.row_bytes;
  const int32_t pixel_step = p.output_depth;
  AxisTaps columns[kColumnChunk];
  for (int32_t x0 = 0; x0 < p.output_w; x0 += kColumnChunk) {
    const int32_t chunk = p.output_w - x0 < kColumnChunk ? p.output_w - x0 : kColumnChunk;
    for (int32_t i = 0; i < chunk; ++i)
      columns[i] = axis_taps(x0 + i, p.pad_left, p.stride_w, p.filter_w, p.input_w);
    for (int32_t group = 0; group < g.s.groups; ++group) {
      const int32_t o = group * kMveRows;
      const mve_pred16_t lanes = vctp32q(static_cast<uint32_t>(p.output_depth - o));
      const ChannelQuantLanes q = load_channel_quant_x4(quant + o, lanes);
      const int8_t* w = weights + group * g.s.group_bytes;
      for (int32_t b = 0; b < p.batches; ++b) {
        const int8_t* image = input + b * image_bytes;
        for (int32_t y = 0; y < p.output_h; ++y) {
          const AxisTaps ty = axis_taps(y, p.pad_top, p.stride_h, p.filter_h, p.input_h);
          int8_t* out = output + ((b * p.output_h + y) * p.output_w + x0) * pixel_step + o;
          for (int32_t i = 0; i < chunk; ++i, out += pixel_step)
            group_pixel<R>(g, image, ty, columns[i], w, q, range, lanes, out, p.filter_w);
        }
      }
    }
  }
}

#else

// Elsewhere (the host running a program planned for an MVE core) the same
// taps in portable C++ over the same layout, and the scalar output step.
template <Rounding R>
TINYAOT_MODE_LOOP void gather(const TransposeConvParams& p, const Geometry& g, const int8_t* input,
                              const int8_t* weights, const ChannelQuant* quant, int8_t* output) {
  const OutputRange range = output_range(p);
  for (int32_t b = 0; b < p.batches; ++b)
    for (int32_t y = 0; y < p.output_h; ++y) {
      const AxisTaps ty = axis_taps(y, p.pad_top, p.stride_h, p.filter_h, p.input_h);
      for (int32_t x = 0; x < p.output_w; ++x, output += p.output_depth) {
        const AxisTaps tx = axis_taps(x, p.pad_left, p.stride_w, p.filter_w, p.input_w);
        for (int32_t o = 0; o < p.output_depth; ++o) {
          const int32_t group = o / kMveRows, row = o % kMveRows;
          uint32_t sum = 0;
          for (int32_t jy = 0; jy < ty.count; ++jy)
            for (int32_t jx = 0; jx < tx.count; ++jx) {
              const int32_t tap =
                  (ty.first_tap + jy * p.stride_h) * p.filter_w + tx.first_tap + jx * p.stride_w;
              const int8_t* pixel = input + ((b * p.input_h + ty.first_input - jy) * p.input_w +
                                             tx.first_input - jx) *
                                                g.depth;
              const int8_t* at = weights + group * g.s.group_bytes + tap * g.s.tap_bytes;
              uint32_t share = 0;  // little-endian, as the layout stores it
              for (int32_t byte = 3; byte >= 0; --byte)
                share = share << 8 | static_cast<uint8_t>(at[row * 4 + byte]);
              const int8_t* w = at + kTransposeConvOffsetBytes;
              for (int32_t d = 0; d < g.depth; ++d)
                sum += static_cast<uint32_t>(pixel[d] *
                                             w[mve_weight_position(kMveRows, g.depth, row, d)]);
              sum += share;
            }
          output[o] = fast_output_step<R>(sum, quant[o], range);
        }
      }
    }
}

#endif

Status run(const KernelArgs& args) {
  const auto& p = *static_cast<const TransposeConvParams*>(args.params);
  const Geometry g = geometry(p);
  const auto* input = static_cast<const int8_t*>(args.inputs[0].data);
  const auto* weights = static_cast<const int8_t*>(args.inputs[1].data);
  const auto* quant = static_cast<const ChannelQuant*>(args.inputs[2].data);
  auto* output = static_cast<int8_t*>(args.outputs[0].data);
  with_any_rounding(args.rounding, [&](auto mode) {
    gather<decltype(mode)::value>(p, g, input, weights, quant, output);
  });
  return Status::kOk;
}

}  // namespace

const KernelDescriptor kernel_transpose_conv_s8_mve = {
    "transpose_conv_s8_mve",
    "transpose_conv",
    1,
    sizeof(TransposeConvParams),
    3,
    3,
    1,
    IsaClass::kMve,
    "input:s8[batches,input_h,input_w,input_depth], "
    "filter:s8[groups of 4 output channels][filter_h*filter_w]{s32[4] "
    "input_offset*sum(filter[o][tap]), s8[4 rows of input_depth, interleaved by 16]}, "
    "quant:ChannelQuant[output_depth] "
    "-> output:s8[batches,output_h,output_w,output_depth]; "
    "params=TransposeConvParams{batches,input_h,input_w,input_depth,filter_h,filter_w,output_h,"
    "output_w,output_depth,stride_h,stride_w,pad_top,pad_left,input_offset,output_offset,act_min,"
    "act_max}",
    run,
    validate,
    nullptr,
};

}  // namespace tinyaot
