// Shape cases of CONV_2D's variants and the operand checks they share
// (freestanding, header-only). Each case predicate is written once: the
// compiler's variant chooser asks it, and the variant's validate refuses
// params outside it, so a corrupt program cannot steer a specialised
// kernel onto a shape it does not handle.
#pragma once

#include <stdint.h>
#include <string.h>

#include "kernels/common/dot_s8.h"
#include "kernels/common/gemm_mve_layout.h"
#include "kernels/common/int16x8.h"
#include "kernels/common/output_step.h"
#include "kernels/common/quant.h"
#include "kernels/common/validate.h"
#include "kernels/conv2d/conv2d.h"
#include "kernels/conv2d/gemm_blocks.h"
#include "kernels/conv2d/window_checks.h"
#include "kernels/conv2d/window_mve_layout.h"
#include "tinyaot/load_time.h"

namespace tinyaot {

// Operand sizes and value ranges every variant needs; the reference
// kernel's validate is exactly this.
TINYAOT_LOAD_TIME inline Status validate_conv2d_operands(
    const Conv2dParams& p, const OperandView* inputs, uint32_t num_inputs,
    const OperandView* outputs, uint32_t num_outputs, Activations a = Activations::kInt8) {
  if (num_inputs < 3 || num_outputs != 1) return Status::kBadParams;
  if (p.batches < 1 || p.input_depth < 1 || p.filter_depth < 1 || p.output_depth < 1)
    return Status::kBadParams;
  if (!is_window_2d(p, p.input_depth)) return Status::kBadParams;
  if (p.input_depth % p.filter_depth != 0) return Status::kBadParams;
  if (p.output_depth % (p.input_depth / p.filter_depth) != 0) return Status::kBadParams;
  const int32_t input_dims[] = {p.batches, p.input_h, p.input_w, p.input_depth};
  const int32_t filter_dims[] = {p.output_depth, p.filter_h, p.filter_w, p.filter_depth};
  const int32_t output_dims[] = {p.batches, p.output_h, p.output_w, p.output_depth};
  const int64_t input_size = checked_elements(input_dims, 4);
  const int64_t filter_size = checked_elements(filter_dims, 4);
  const int64_t output_size = checked_elements(output_dims, 4);
  if (input_size < 0 || filter_size < 0 || output_size < 0) return Status::kBadParams;
  const int64_t width = activation_bytes(a);
  if (inputs[0].bytes != input_size * width || inputs[1].bytes != filter_size ||
      !is_channel_quant_operand(inputs[2], p.output_depth) ||
      outputs[0].bytes != output_size * width)
    return Status::kBadParams;
  if (!is_weighted_activation_setup(p, a, inputs, num_inputs, p.output_depth))
    return Status::kBadParams;
  return Status::kOk;
}

// Weights per output channel (one im2col column): filter_h * filter_w *
// filter_depth, or -1 when it overflows. Only meaningful for params that
// passed validate_conv2d_operands or came from the compiler.
inline int64_t conv2d_column_length(const Conv2dParams& p) {
  const int32_t dims[] = {p.filter_h, p.filter_w, p.filter_depth};
  return checked_elements(dims, 3);
}

// Pointwise convolution: every output pixel is one input pixel, so the
// operation is a plain GEMM [pixels, depth] x [depth, channels].
TINYAOT_LOAD_TIME inline bool is_conv2d_1x1_case(const Conv2dParams& p) {
  return p.filter_h == 1 && p.filter_w == 1 && p.stride_h == 1 && p.stride_w == 1 &&
         p.pad_top == 0 && p.pad_left == 0 && p.output_h == p.input_h && p.output_w == p.input_w &&
         p.filter_depth == p.input_depth;
}

// A 1x1 window at any stride with no padding, every window inside the
// input (the last row and column read included): each output pixel is one
// input pixel's channels as they lie.
TINYAOT_LOAD_TIME inline bool is_conv2d_pointwise_case(const Conv2dParams& p) {
  if (p.filter_h != 1 || p.filter_w != 1 || p.filter_depth != p.input_depth) return false;
  if (p.pad_top != 0 || p.pad_left != 0) return false;
  return (int64_t{p.output_h} - 1) * p.stride_h < p.input_h &&
         (int64_t{p.output_w} - 1) * p.stride_w < p.input_w;
}

// Up to three bytes as straight code: written as a loop, GCC turns it
// into a call of memcpy or memset, dearer than the copy.
inline void conv2d_copy_tail(int8_t* to, const int8_t* from, int32_t count) {
  if (count > 0) to[0] = from[0];
  if (count > 1) to[1] = from[1];
  if (count > 2) to[2] = from[2];
}

// Copies `count` bytes: whole 32-bit words where the core allows them at
// these addresses (any address on a core with unaligned access;
// Cortex-M0 faults on an unaligned word), four bytes a step otherwise,
// then the last one to three bytes.
inline void conv2d_copy_bytes(int8_t* to, const int8_t* from, int32_t count) {
  const int8_t* const words_end = from + (count & ~3);
#if defined(__arm__) && !defined(__ARM_FEATURE_UNALIGNED)
  if (((reinterpret_cast<uintptr_t>(to) | reinterpret_cast<uintptr_t>(from)) & 3) == 0) {
    for (; from != words_end; to += 4, from += 4)
      *static_cast<uint32_t*>(__builtin_assume_aligned(to, 4)) =
          *static_cast<const uint32_t*>(__builtin_assume_aligned(from, 4));
  } else {
    for (; from != words_end; to += 4, from += 4) {
      const int8_t b0 = from[0], b1 = from[1], b2 = from[2], b3 = from[3];
      to[0] = b0;
      to[1] = b1;
      to[2] = b2;
      to[3] = b3;
    }
  }
#else
  for (; from != words_end; to += 4, from += 4) {
    uint32_t word;
    memcpy(&word, from, 4);
    memcpy(to, &word, 4);
  }
#endif
  conv2d_copy_tail(to, from, count & 3);
}

// As conv2d_copy_bytes, blocks of four words first (one LDM and one STM)
// where both addresses are word-aligned: for long runs.
inline void conv2d_copy_blocks(int8_t* to, const int8_t* from, int32_t count) {
  if (((reinterpret_cast<uintptr_t>(to) | reinterpret_cast<uintptr_t>(from)) & 3) == 0) {
    const int8_t* const blocks_end = from + (count & ~15);
    for (; from != blocks_end; to += 16, from += 16)
      memcpy(__builtin_assume_aligned(to, 4), __builtin_assume_aligned(from, 4), 16);
    count &= 15;
  }
  conv2d_copy_bytes(to, from, count);
}

// Stores `count` copies of `value`: blocks of four words (one STM) where
// the address is word-aligned, then whole words where the address allows.
inline void conv2d_set_bytes(int8_t* to, int8_t value, int32_t count) {
  const uint32_t word = 0x01010101u * static_cast<uint8_t>(value);
  if ((reinterpret_cast<uintptr_t>(to) & 3) == 0) {
    const uint32_t block[4] = {word, word, word, word};
    const int8_t* const blocks_end = to + (count & ~15);
    for (; to != blocks_end; to += 16) memcpy(__builtin_assume_aligned(to, 4), block, 16);
    count &= 15;
  }
#if !defined(__arm__) || defined(__ARM_FEATURE_UNALIGNED)
  for (; count >= 4; count -= 4, to += 4) memcpy(to, &word, 4);
#else
  if ((reinterpret_cast<uintptr_t>(to) & 3) == 0) {
    for (; count >= 4; count -= 4, to += 4)
      *static_cast<uint32_t*>(__builtin_assume_aligned(to, 4)) = word;
  } else {
    for (; count >= 4; count -= 4, to += 4) {
      to[0] = value;
      to[1] = value;
      to[2] = value;
      to[3] = value;
    }
  }
#endif
  const int8_t values[3] = {value, value, value};
  conv2d_copy_tail(to, values, count);
}

// Where output pixels' windows lie, pixel after pixel (batches, rows,
// columns) without a division: the pixel's image and the input
// coordinates of its top-left tap (negative or past the input at an edge).
struct Conv2dWindowCursor {
  const int8_t* image;
  int32_t y, x;    // the top-left tap
  int32_t oy, ox;  // the output pixel in its image

  static Conv2dWindowCursor first(const Conv2dParams& p, const int8_t* input) {
    return {input, -p.pad_top, -p.pad_left, 0, 0};
  }

  // A step only to a pixel that exists: validate bounds the last pixel's
  // window, not one past it, within int32.
  void advance(const Conv2dParams& p) {
    if (++ox < p.output_w) {
      x += p.stride_w;
      return;
    }
    ox = 0;
    x = -p.pad_left;
    if (++oy < p.output_h) {
      y += p.stride_h;
      return;
    }
    oy = 0;
    y = -p.pad_top;
    image += p.input_h * p.input_w * p.input_depth;
  }
};

// What the im2col copy of a window needs, derived once per operation.
struct Conv2dWindowCopy {
  int32_t input_h, input_w, depth, filter_h, taps, dilation_h, dilation_w;
  int32_t row_values;  // a filter row's values (taps * depth)
  int32_t row_bytes;   // an input row
  int32_t step;        // from one filter row's input to the next
  // A filter row above the last may be copied as row_copy >= row_values
  // bytes (whole words) when the few bytes past it lie within the next
  // row, in the column (which overwrites them) as in the input (which
  // holds them).
  int32_t row_copy;
  int32_t y_last, x_last;  // largest origin whose whole window is inside
  int8_t zero_point;
};

inline Conv2dWindowCopy conv2d_window_copy(const Conv2dParams& p) {
  Conv2dWindowCopy c;
  c.input_h = p.input_h;
  c.input_w = p.input_w;
  c.depth = p.input_depth;
  c.filter_h = p.filter_h;
  c.taps = p.filter_w;
  c.dilation_h = p.dilation_h;
  c.dilation_w = p.dilation_w;
  c.row_values = p.filter_w * p.input_depth;
  c.row_bytes = p.input_w * p.input_depth;
  c.y_last = p.input_h - 1 - (p.filter_h - 1) * p.dilation_h;
  // Read only when a window lies inside with two rows or more, where the
  // product stays below the image's size (no overflow for a huge dilation).
  c.step = c.y_last >= 0 && p.filter_h > 1 ? p.dilation_h * c.row_bytes : 0;
  const int32_t words = (c.row_values + 3) / 4 * 4;
  const int32_t past = words - c.row_values;
  c.row_copy = past <= c.row_values && past <= c.step ? words : c.row_values;
  // Only a row of adjacent taps is one run; a dilated row takes the edge path.
  c.x_last = p.dilation_w == 1 ? p.input_w - p.filter_w : -1;
  c.zero_point = static_cast<int8_t>(-p.input_offset);
  return c;
}

// The window at `w` past an edge of the input: zero points everywhere,
// then the runs inside the input over them, one a filter row (dilation 1;
// tap by tap when dilated).
inline void conv2d_fill_edge_window(const Conv2dWindowCopy& c, const Conv2dWindowCursor& w,
                                    int8_t* column) {
  const int32_t depth = c.depth, taps = c.taps, row_values = c.row_values;
  conv2d_set_bytes(column, c.zero_point, c.filter_h * row_values);
  if (c.dilation_w != 1) {
    for (int32_t ky = 0; ky < c.filter_h; ++ky, column += row_values) {
      const int32_t y = w.y + ky * c.dilation_h;
      if (y < 0 || y >= c.input_h) continue;
      const int8_t* row = w.image + y * c.row_bytes;
      for (int32_t kx = 0; kx < taps; ++kx) {
        const int32_t x = w.x + kx * c.dilation_w;
        if (x >= 0 && x < c.input_w) conv2d_copy_bytes(column + kx * depth, row + x * depth, depth);
      }
    }
    return;
  }
  // Taps [first, last) of a row lie inside the input; 64-bit so that a
  // padding near INT32_MAX cannot overflow.
  const int64_t before = -int64_t{w.x}, room = int64_t{c.input_w} - w.x;
  const int32_t first = before <= 0 ? 0 : before >= taps ? taps : static_cast<int32_t>(before);
  const int32_t last = room <= first ? first : room >= taps ? taps : static_cast<int32_t>(room);
  if (first == last) return;  // every tap left or right of the input
  const int32_t run = (last - first) * depth;
  column += first * depth;
  const int8_t* const start = w.image + (w.x + first) * depth;  // in the input's row 0
  for (int32_t ky = 0; ky < c.filter_h; ++ky, column += row_values) {
    const int32_t y = w.y + ky * c.dilation_h;
    if (y >= 0 && y < c.input_h) conv2d_copy_bytes(column, start + y * c.row_bytes, run);
  }
}

// The im2col copy of one window as int8 (filter_h * filter_w * input_depth
// values in the weights' order): each tap's channels, or the input zero
// point for a tap past the input's edge (nothing, once the bias carries
// the input offset's share). Inside the input each filter row is one run
// of input bytes, copied in whole words.
inline void conv2d_fill_window(const Conv2dWindowCopy& c, const Conv2dWindowCursor& w,
                               int8_t* column) {
  if (w.y < 0 || w.x < 0 || w.y > c.y_last || w.x > c.x_last) {
    conv2d_fill_edge_window(c, w, column);
    return;
  }
  // In locals: the byte stores could alias `c` for the compiler.
  const int32_t row_values = c.row_values, row_copy = c.row_copy, step = c.step;
  const int8_t* in = w.image + w.y * c.row_bytes + w.x * c.depth;
  if (row_values < 16) {
    for (int32_t ky = c.filter_h - 1; ky > 0; --ky, column += row_values, in += step)
      conv2d_copy_bytes(column, in, row_copy);
    conv2d_copy_bytes(column, in, row_values);
    return;
  }
  for (int32_t ky = c.filter_h - 1; ky > 0; --ky, column += row_values, in += step)
    conv2d_copy_blocks(column, in, row_copy);
  conv2d_copy_blocks(column, in, row_values);
}

// The im2col copy of output pixel `pixel`'s window (flat over batches,
// rows, columns), as conv2d_fill_window.
inline void conv2d_fill_column(const Conv2dParams& p, const int8_t* input, int32_t pixel,
                               int8_t* column) {
  const int32_t per_image = p.output_h * p.output_w;
  const int32_t oy = pixel % per_image / p.output_w;
  const int32_t ox = pixel % p.output_w;
  const Conv2dWindowCursor w = {input + pixel / per_image * p.input_h * p.input_w * p.input_depth,
                                oy * p.stride_h - p.pad_top, ox * p.stride_w - p.pad_left, oy, ox};
  conv2d_fill_window(conv2d_window_copy(p), w, column);
}

// Windows that are each one run of contiguous input bytes, as long as
// the padded im2col column: one filter row of adjacent taps (or a single
// tap) whose values fill whole chunks of the 2x2 blocks. Such a window
// inside the input needs no copy.
inline bool is_conv2d_run_window(const Conv2dParams& p) {
  return p.filter_h == 1 && (p.filter_w == 1 || p.dilation_w == 1) &&
         conv2d_column_length(p) % kGemmChunk == 0;
}

// No window reaches past the input (no padding is read).
inline bool conv2d_windows_inside(const Conv2dParams& p) {
  const int64_t last_y =
      (int64_t{p.output_h} - 1) * p.stride_h + (int64_t{p.filter_h} - 1) * p.dilation_h - p.pad_top;
  const int64_t last_x = (int64_t{p.output_w} - 1) * p.stride_w +
                         (int64_t{p.filter_w} - 1) * p.dilation_w - p.pad_left;
  return p.pad_top == 0 && p.pad_left == 0 && last_y < p.input_h && last_x < p.input_w;
}

// Variants whose ChannelQuant bias carries input_offset * (sum of the
// channel's weights), so that their inner loop multiplies raw inputs.
inline bool conv2d_variant_folds_input_offset(const KernelDescriptor* kernel) {
  return kernel == &kernel_conv2d_s8_1x1 || kernel == &kernel_conv2d_s8_im2col_mve ||
         kernel == &kernel_conv2d_s8_window || kernel == &kernel_conv2d_s8_im2col ||
         kernel == &kernel_conv2d_s8_1x1_mve || kernel == &kernel_conv2d_s8_window_mve;
}

// Variants that take a fourth operand: input_depth copies of the input
// zero point, read for a tap outside the input.
inline bool conv2d_variant_takes_pad_row(const KernelDescriptor* kernel) {
  return kernel == &kernel_conv2d_s8_window;
}

// The pad row the loader must see: a constant of input_depth bytes, each
// the zero point (-input_offset), so that its taps contribute nothing.
TINYAOT_LOAD_TIME inline bool is_conv2d_pad_row(const Conv2dParams& p, const OperandView& pad) {
  if (pad.constant == nullptr || pad.bytes != static_cast<uint32_t>(p.input_depth)) return false;
  const auto* bytes = static_cast<const int8_t*>(pad.constant);
  for (int32_t c = 0; c < p.input_depth; ++c)
    if (bytes[c] != -p.input_offset) return false;
  return true;
}

// The im2col variant's column: the window's values padded to whole chunks
// of the 2x2 blocks (its weights padded with zeros to match), so that no
// scalar tail runs whatever the channel count.
inline int64_t conv2d_padded_column(const Conv2dParams& p) {
  return (conv2d_column_length(p) + kGemmChunk - 1) / kGemmChunk * kGemmChunk;
}

// The weight layout a variant reads: segments of `segment` model weights
// stored as `stored` (interleave_row_pairs in gemm_blocks.h); segment 0
// for the model's [output_depth, filter_h, filter_w, filter_depth] order.
struct Conv2dWeightLayout {
  int32_t segment, stored;
};

inline Conv2dWeightLayout conv2d_weight_layout(const KernelDescriptor* kernel,
                                               const Conv2dParams& p) {
  if (kernel == &kernel_conv2d_s8_1x1 || kernel == &kernel_conv2d_s8_window)
    return {p.input_depth, p.input_depth};
  if (kernel == &kernel_conv2d_s8_im2col)
    return {static_cast<int32_t>(conv2d_column_length(p)),
            static_cast<int32_t>(conv2d_padded_column(p))};
  return {0, 0};
}

// Bytes of the weight operand `kernel` takes, or -1 when it overflows.
inline int64_t conv2d_weight_bytes(const KernelDescriptor* kernel, const Conv2dParams& p) {
  if (kernel == &kernel_conv2d_s8_window_mve) return window_mve_weight_bytes(p);
  const Conv2dWeightLayout layout = conv2d_weight_layout(kernel, p);
  const int64_t row = conv2d_column_length(p);
  if (layout.segment == 0 || row < 0) return row < 0 ? -1 : row * p.output_depth;
  return row / layout.segment * layout.stored * p.output_depth;
}

// Whether `kernel` reads its weights in another order than the model's
// (the same size for the MVE layout).
inline bool conv2d_variant_orders_weights(const KernelDescriptor* kernel, const Conv2dParams& p) {
  return conv2d_weight_layout(kernel, p).segment > 0 || kernel == &kernel_conv2d_s8_1x1_mve ||
         kernel == &kernel_conv2d_s8_im2col_mve || kernel == &kernel_conv2d_s8_window_mve;
}

// The model's weights as `kernel` reads them (conv2d_weight_bytes(kernel)
// bytes at `out`).
inline void order_conv2d_weights(const KernelDescriptor* kernel, const Conv2dParams& p,
                                 const int8_t* model, int8_t* out) {
  const Conv2dWeightLayout layout = conv2d_weight_layout(kernel, p);
  const int32_t row = static_cast<int32_t>(conv2d_column_length(p));
  if (kernel == &kernel_conv2d_s8_1x1_mve || kernel == &kernel_conv2d_s8_im2col_mve) {
    order_mve_weights(model, p.output_depth, row, out);
    return;
  }
  if (kernel == &kernel_conv2d_s8_window_mve) {
    order_window_mve_weights(p, model, out);
    return;
  }
  if (layout.segment == 0) {
    for (int64_t i = 0; i < int64_t{row} * p.output_depth; ++i) out[i] = model[i];
    return;
  }
  interleave_row_pairs(model, p.output_depth, row, layout.segment, layout.stored, out);
}

// Largest column the im2col variants take: their scratch (at most four
// int8 columns, each rounded up to whole words, the whole to 16 bytes)
// must stay a valid uint32 size.
constexpr int64_t kMaxIm2colColumn = (int64_t{INT32_MAX} - 15) / 4;

// Ungrouped convolution of any window, padding, stride and dilation whose
// columns fit the im2col scratch.
TINYAOT_LOAD_TIME inline bool is_conv2d_im2col_case(const Conv2dParams& p) {
  const int64_t column = conv2d_column_length(p);
  return p.filter_depth == p.input_depth && column >= 1 && column <= kMaxIm2colColumn;
}

// The validate of the im2col variants: the family's checks and their case.
TINYAOT_LOAD_TIME inline Status validate_conv2d_im2col(const void* raw, const OperandView* inputs,
                                                       uint32_t num_inputs,
                                                       const OperandView* outputs,
                                                       uint32_t num_outputs) {
  const auto& p = *static_cast<const Conv2dParams*>(raw);
  const Status status = validate_conv2d_operands(p, inputs, num_inputs, outputs, num_outputs);
  if (status != Status::kOk) return status;
  return is_conv2d_im2col_case(p) ? Status::kOk : Status::kBadParams;
}

}  // namespace tinyaot
