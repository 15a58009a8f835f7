// CONV_2D for MVE cores, any window: each output pixel's window copied
// into one int8 column of raw input values (a filter row of adjacent taps
// one run, 16 bytes a vector, the last predicated), then the column
// times the weights in the layout of kernels/common/gemm_mve_layout.h
// (kernels/common/gemm_mve.h): four output channels per column load with
// VMLADAVA, predicated tails for any column length, the output step four
// channels a vector. Scratch: the one column, so that the compiler can
// give this variant to more operations without raising the arena. The
// input offset is not added per tap: the compiler folded input_offset *
// sum(filter[o]) into each channel's bias (kernels/common/kernel_sums.h);
// a tap outside the input is stored as the input zero point
// (-input_offset), whose product with the folded term cancels exactly as
// the reference's skipped tap.
#include "kernels/common/gemm_mve.h"
#include "kernels/common/output_step.h"
#include "kernels/common/quant.h"
#include "kernels/common/weighted_operands.h"
#include "kernels/conv2d/conv2d.h"
#include "kernels/conv2d/conv2d_cases.h"
#include "kernels/conv2d/conv2d_gemm.h"
#include "tinyaot/load_time.h"

namespace tinyaot {
namespace {

uint32_t scratch_bytes(const void* raw) {
  const int64_t column = conv2d_column_length(*static_cast<const Conv2dParams*>(raw));
  if (column < 1 || column > kMaxIm2colColumn) return 0;  // validate refuses these
  // Whole words: the window copy may write up to three bytes past a
  // filter row, which the next row overwrites (conv2d_window_copy).
  return static_cast<uint32_t>((column + 3) / 4 * 4);
}

// The family's checks, the im2col case, channels with precomputed rescales.
TINYAOT_LOAD_TIME Status validate(const void* raw, const OperandView* inputs, uint32_t num_inputs,
                                  const OperandView* outputs, uint32_t num_outputs) {
  const Status status = validate_conv2d_im2col(raw, inputs, num_inputs, outputs, num_outputs);
  if (status != Status::kOk) return status;
  return validate_gemm_quant(*static_cast<const Conv2dParams*>(raw), inputs);
}

#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1)

// `count` bytes, 16 a step, the last step predicated (no byte past either
// run is read or written).
inline void copy_run(int8_t* to, const int8_t* from, int32_t count) {
  for (; count > 0; count -= 16, to += 16, from += 16) {
    const mve_pred16_t lanes = vctp8q(static_cast<uint32_t>(count));
    vstrbq_p_s8(to, vldrbq_z_s8(from, lanes), lanes);
  }
}

inline void set_run(int8_t* to, int8x16_t value, int32_t count) {
  for (; count > 0; count -= 16, to += 16) vstrbq_p_s8(to, value, vctp8q(uint32_t(count)));
}

// conv2d_fill_window's column with vector copies: each filter row of a
// window inside the input is one run of row_values bytes; at an edge the
// column is first all zero points, then each row's taps inside the input
// are copied over them (a dilated row takes the shared scalar path).
inline void fill_window(const Conv2dWindowCopy& c, const Conv2dWindowCursor& w, int8_t* column) {
  // In locals: the stores could alias `c` for the compiler.
  const int32_t row_values = c.row_values, step = c.step, filter_h = c.filter_h;
  if (w.y >= 0 && w.x >= 0 && w.y <= c.y_last && w.x <= c.x_last) {
    const int8_t* in = w.image + w.y * c.row_bytes + w.x * c.depth;
    if (row_values <= 16) {  // a first layer's few channels: one vector a row
      const mve_pred16_t lanes = vctp8q(static_cast<uint32_t>(row_values));
      for (int32_t ky = filter_h; ky > 0; --ky, column += row_values, in += step)
        vstrbq_p_s8(column, vldrbq_z_s8(in, lanes), lanes);
      return;
    }
    for (int32_t ky = filter_h; ky > 0; --ky, column += row_values, in += step)
      copy_run(column, in, row_values);
    return;
  }
  if (c.dilation_w != 1) {
    conv2d_fill_edge_window(c, w, column);
    return;
  }
  set_run(column, vdupq_n_s8(c.zero_point), filter_h * row_values);
  // Taps [first, last) of a row lie inside the input (64-bit: a padding
  // near INT32_MAX cannot overflow).
  const int64_t before = -int64_t{w.x}, room = int64_t{c.input_w} - w.x;
  const int32_t first = before <= 0 ? 0 : before >= c.taps ? c.taps : int32_t(before);
  const int32_t last = room <= first ? first : room >= c.taps ? c.taps : int32_t(room);
  if (first == last) return;
  const int32_t run = (last - first) * c.depth;
  const int32_t input_h = c.input_h, dilation_h = c.dilation_h, row_bytes = c.row_bytes;
  column += first * c.depth;
  const int8_t* const start = w.image + (w.x + first) * c.depth;  // in the input's row 0
  for (int32_t ky = 0; ky < filter_h; ++ky, column += row_values) {
    const int32_t y = w.y + ky * dilation_h;
    if (y >= 0 && y < input_h) copy_run(column, start + y * row_bytes, run);
  }
}

#else

inline void fill_window(const Conv2dWindowCopy& c, const Conv2dWindowCursor& w, int8_t* column) {
  conv2d_fill_window(c, w, column);
}

#endif

template <Rounding R>
TINYAOT_MODE_LOOP void convolve(const Conv2dParams& p, const WeightedOperands& o, int8_t* column) {
  const int32_t length = static_cast<int32_t>(conv2d_column_length(p));
  const int32_t channels = p.output_depth;
  const GemmRange range = gemm_range(output_range(p));
  const Conv2dWindowCopy copy = conv2d_window_copy(p);
  const int32_t pixels = p.batches * p.output_h * p.output_w;
  Conv2dWindowCursor window = Conv2dWindowCursor::first(p, o.input);
  int8_t* out = o.output;
  for (int32_t pixel = 0; pixel < pixels; ++pixel, out += channels) {
    if (pixel != 0) window.advance(p);
    fill_window(copy, window, column);
    gemm_row<R>(column, length, o.filter, o.quant, channels, range, out);
  }
}

Status run(const KernelArgs& args) {
  const auto& p = *static_cast<const Conv2dParams*>(args.params);
  const WeightedOperands o = weighted_operands(args);
  const uint32_t need = scratch_bytes(&p);
  if (args.scratch.data == nullptr || args.scratch.bytes < need) return Status::kScratchMismatch;
  int8_t* const column = static_cast<int8_t*>(args.scratch.data);
  with_any_rounding(args.rounding,
                    [&](auto mode) { convolve<decltype(mode)::value>(p, o, column); });
  return Status::kOk;
}

}  // namespace

const KernelDescriptor kernel_conv2d_s8_im2col_mve = {
    "conv2d_s8_im2col_mve",
    "conv2d",
    2,
    sizeof(Conv2dParams),
    3,
    3,
    1,
    IsaClass::kMve,
    "input:s8[batches,input_h,input_w,input_depth], "
    "filter:s8[output_depth,filter_h,filter_w,input_depth](row quads interleaved by 16), "
    "quant:ChannelQuant[output_depth]{bias+=input_offset*sum(filter[o])} "
    "-> output:s8[batches,output_h,output_w,output_depth]; "
    "scratch=s8[align4(filter_h*filter_w*input_depth)]; " TINYAOT_CONV2D_PARAMS_SIGNATURE,
    run,
    validate,
    scratch_bytes,
};

}  // namespace tinyaot
