// What the fast int16x8 CONV_2D variants share (freestanding, header-only):
// per output pixel and block of output channels of one group, the
// window's rows as runs of contiguous inputs against the filters' matching
// runs (kernels/common/dot_s16x8.h). With offsets 0 a tap past the input
// adds nothing, so the window is clipped to the input, no padding is
// read: one run per window row (its taps in the input, all channels) when
// the taps lie side by side (dilation 1, no groups), else one a tap. The
// DSP and MVE variants differ only in their dot product; the weights as
// the model has them.
#pragma once

#include <stdint.h>

#include "kernels/common/dot_s16x8.h"
#include "kernels/common/int16x8.h"
#include "kernels/common/window_taps.h"
#include "kernels/conv2d/conv2d.h"
#include "kernels/conv2d/conv2d_cases.h"

// The operands of every int16x8 variant, the reference's included.
#define TINYAOT_CONV2D_S16_SIGNATURE                                   \
  "input:s16[batches,input_h,input_w,input_depth], "                   \
  "filter:s8[output_depth,filter_h,filter_w,filter_depth], "           \
  "quant:ChannelQuant[output_depth], wide_bias:s64[output_depth]? -> " \
  "output:s16[batches,output_h,output_w,output_depth]; " TINYAOT_CONV2D_PARAMS_SIGNATURE

namespace tinyaot {

// An output pixel's window clipped to the input: its rows and the runs
// of each row (the first tap, the count and length of the runs).
struct ClippedWindow {
  const int16_t* image;  // the batch's input
  TapRange rows, columns;
  int32_t runs, run;
};

inline ClippedWindow clip_window(const Conv2dParams& p, const int16_t* image, int32_t y_origin,
                                 int32_t x_origin) {
  const TapRange rows = tap_range(y_origin, p.input_h, p.filter_h, p.dilation_h);
  const TapRange columns = tap_range(x_origin, p.input_w, p.filter_w, p.dilation_w);
  const bool side_by_side = p.dilation_w == 1 && p.filter_depth == p.input_depth;
  return {image, rows, columns, side_by_side ? 1 : columns.count,
          side_by_side ? columns.count * p.filter_depth : p.filter_depth};
}

// The window's `Channels` output channels from `first` on (one group's,
// whose inputs start at `group_channel`).
template <typename Dot, Rounding R, typename Acc, int Channels>
inline void conv2d_s16_channels(const Conv2dParams& p, const Int16x8Operands& o,
                                const ClippedWindow& w, int32_t first, int32_t group_channel,
                                int16_t* out) {
  const int32_t filter_size = p.filter_h * p.filter_w * p.filter_depth;
  const int8_t* filters = o.filter + first * filter_size;
  Acc acc[Channels] = {};
  for (int32_t i = 0; i < w.rows.count; ++i) {
    const int32_t ky = w.rows.first + i;
    const int32_t y = w.rows.origin + i * p.dilation_h;
    for (int32_t k = 0; k < w.runs; ++k) {
      const int32_t kx = w.columns.first + k;
      const int32_t x = w.columns.origin + k * p.dilation_w;
      const int16_t* pixel = w.image + (y * p.input_w + x) * p.input_depth + group_channel;
      const int8_t* tap = filters + (ky * p.filter_w + kx) * p.filter_depth;
      Dot::template rows<Acc, Channels>(pixel, tap, filter_size, w.run, acc);
    }
  }
  for (int c = 0; c < Channels; ++c)
    out[first + c] = int16x8_output_step<R>(acc[c], first + c, o, p);
}

template <typename Dot, Rounding R, typename Acc>
TINYAOT_MODE_LOOP inline void conv2d_s16_pixels(const Conv2dParams& p, const Int16x8Operands& o) {
  constexpr int kChannels = Dot::template kRows<Acc>;
  const int32_t groups = p.input_depth / p.filter_depth;
  const int32_t filters_per_group = p.output_depth / groups;
  for (int32_t b = 0; b < p.batches; ++b) {
    const int16_t* image = o.input + b * p.input_h * p.input_w * p.input_depth;
    for (int32_t oy = 0; oy < p.output_h; ++oy) {
      for (int32_t ox = 0; ox < p.output_w; ++ox) {
        const ClippedWindow w =
            clip_window(p, image, oy * p.stride_h - p.pad_top, ox * p.stride_w - p.pad_left);
        int16_t* out = o.output + ((b * p.output_h + oy) * p.output_w + ox) * p.output_depth;
        for (int32_t g = 0; g < groups; ++g) {
          const int32_t group_channel = g * p.filter_depth;
          int32_t c = g * filters_per_group;
          const int32_t group_end = c + filters_per_group;
          for (; c + kChannels <= group_end; c += kChannels)
            conv2d_s16_channels<Dot, R, Acc, kChannels>(p, o, w, c, group_channel, out);
          for (; c < group_end; ++c)
            conv2d_s16_channels<Dot, R, Acc, 1>(p, o, w, c, group_channel, out);
        }
      }
    }
  }
}

// A variant's run: the rounding mode and the accumulator as the operands
// say (with_int16x8_accumulator).
template <typename Dot>
inline Status run_conv2d_s16(const KernelArgs& args) {
  const auto& p = *static_cast<const Conv2dParams*>(args.params);
  const Int16x8Operands o = int16x8_operands(args);
  with_int16x8_accumulator(args, o, [&](auto mode, auto accumulator) {
    conv2d_s16_pixels<Dot, decltype(mode)::value, typename decltype(accumulator)::type>(p, o);
  });
  return Status::kOk;
}

// Every int16x8 variant takes what the reference takes.
TINYAOT_LOAD_TIME inline Status validate_conv2d_s16(const void* raw, const OperandView* inputs,
                                                    uint32_t num_inputs, const OperandView* outputs,
                                                    uint32_t num_outputs) {
  return validate_conv2d_operands(*static_cast<const Conv2dParams*>(raw), inputs, num_inputs,
                                  outputs, num_outputs, Activations::kInt16);
}

}  // namespace tinyaot
