// Shape cases of CONV_2D's variants and the operand checks they share
// (freestanding, header-only). Each case predicate is written once: the
// compiler's variant chooser asks it, and the variant's validate refuses
// params outside it, so a corrupt program cannot steer a specialised
// kernel onto a shape it does not handle.
#pragma once

#include <stdint.h>
#include <string.h>

#include "kernels/common/dot_s8.h"
#include "kernels/common/output_step.h"
#include "kernels/common/quant.h"
#include "kernels/common/validate.h"
#include "kernels/conv2d/conv2d.h"
#include "kernels/conv2d/gemm_blocks.h"
#include "kernels/conv2d/window_checks.h"

namespace tinyaot {

// Operand sizes and value ranges every variant needs; the reference
// kernel's validate is exactly this.
inline Status validate_conv2d_operands(const Conv2dParams& p, const OperandView* inputs,
                                       uint32_t num_inputs, const OperandView* outputs,
                                       uint32_t num_outputs) {
  if (num_inputs != 3 || num_outputs != 1) return Status::kBadParams;
  if (p.batches < 1 || p.input_depth < 1 || p.filter_depth < 1 || p.output_depth < 1)
    return Status::kBadParams;
  if (!is_window_axis(p.input_h, p.filter_h, p.output_h, p.stride_h, p.dilation_h, p.pad_top) ||
      !is_window_axis(p.input_w, p.filter_w, p.output_w, p.stride_w, p.dilation_w, p.pad_left))
    return Status::kBadParams;
  if (p.input_depth % p.filter_depth != 0) return Status::kBadParams;
  if (p.output_depth % (p.input_depth / p.filter_depth) != 0) return Status::kBadParams;
  const int32_t input_dims[] = {p.batches, p.input_h, p.input_w, p.input_depth};
  const int32_t filter_dims[] = {p.output_depth, p.filter_h, p.filter_w, p.filter_depth};
  const int32_t output_dims[] = {p.batches, p.output_h, p.output_w, p.output_depth};
  const int64_t input_size = checked_elements(input_dims, 4);
  const int64_t filter_size = checked_elements(filter_dims, 4);
  const int64_t output_size = checked_elements(output_dims, 4);
  if (input_size < 0 || filter_size < 0 || output_size < 0) return Status::kBadParams;
  if (inputs[0].bytes != input_size || inputs[1].bytes != filter_size ||
      !is_channel_quant_operand(inputs[2], p.output_depth) || outputs[0].bytes != output_size)
    return Status::kBadParams;
  if (p.input_offset < -127 || p.input_offset > 128 || p.output_offset < -128 ||
      p.output_offset > 127 || !is_activation_range(p.act_min, p.act_max))
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
inline bool is_conv2d_1x1_case(const Conv2dParams& p) {
  return p.filter_h == 1 && p.filter_w == 1 && p.stride_h == 1 && p.stride_w == 1 &&
         p.pad_top == 0 && p.pad_left == 0 && p.output_h == p.input_h && p.output_w == p.input_w &&
         p.filter_depth == p.input_depth;
}

// The im2col copy of output pixel `pixel`'s window (flat over batches, rows,
// columns) as int8: each tap's input_depth values, or the input zero point
// for a tap past the input's edge (nothing, once the bias carries the input
// offset's share). Whole 32-bit words when the channel count and both
// addresses allow it (aligned: Cortex-M0 faults on an unaligned word).
inline void conv2d_fill_column(const Conv2dParams& p, const int8_t* input, int32_t pixel,
                               int8_t* column) {
  const auto zero_point = static_cast<int8_t>(-p.input_offset);
  const bool words =
      p.input_depth % 4 == 0 &&
      ((reinterpret_cast<uintptr_t>(input) | reinterpret_cast<uintptr_t>(column)) & 3) == 0;
  const uint32_t zero_points = 0x01010101u * static_cast<uint8_t>(zero_point);
  const int32_t per_image = p.output_h * p.output_w;
  const int32_t b = pixel / per_image;
  const int32_t oy = pixel % per_image / p.output_w;
  const int32_t ox = pixel % p.output_w;
  const int8_t* image = input + b * p.input_h * p.input_w * p.input_depth;
  const int32_t y_origin = oy * p.stride_h - p.pad_top;
  const int32_t x_origin = ox * p.stride_w - p.pad_left;
  for (int32_t ky = 0; ky < p.filter_h; ++ky) {
    const int32_t y = y_origin + ky * p.dilation_h;
    for (int32_t kx = 0; kx < p.filter_w; ++kx) {
      const int32_t x = x_origin + kx * p.dilation_w;
      if (y < 0 || y >= p.input_h || x < 0 || x >= p.input_w) {
        if (words) {
          auto* to = static_cast<uint32_t*>(__builtin_assume_aligned(column, 4));
          for (int32_t w = 0; w < p.input_depth / 4; ++w) memcpy(to + w, &zero_points, 4);
        } else {
          for (int32_t c = 0; c < p.input_depth; ++c) column[c] = zero_point;
        }
      } else {
        const int8_t* in = image + (y * p.input_w + x) * p.input_depth;
        if (words) {
          auto* to = static_cast<uint32_t*>(__builtin_assume_aligned(column, 4));
          const auto* from = static_cast<const uint32_t*>(__builtin_assume_aligned(in, 4));
          for (int32_t w = 0; w < p.input_depth / 4; ++w) memcpy(to + w, from + w, 4);
        } else {
          for (int32_t c = 0; c < p.input_depth; ++c) column[c] = in[c];
        }
      }
      column += p.input_depth;
    }
  }
}

// Variants whose ChannelQuant bias carries input_offset * (sum of the
// channel's weights), so that their inner loop multiplies raw inputs.
inline bool conv2d_variant_folds_input_offset(const KernelDescriptor* kernel) {
  return kernel == &kernel_conv2d_s8_1x1 || kernel == &kernel_conv2d_s8_im2col_mve ||
         kernel == &kernel_conv2d_s8_window || kernel == &kernel_conv2d_s8_im2col;
}

// Variants that take a fourth operand: input_depth copies of the input
// zero point, read for a tap outside the input.
inline bool conv2d_variant_takes_pad_row(const KernelDescriptor* kernel) {
  return kernel == &kernel_conv2d_s8_window;
}

// The pad row the loader must see: a constant of input_depth bytes, each
// the zero point (-input_offset), so that its taps contribute nothing.
inline bool is_conv2d_pad_row(const Conv2dParams& p, const OperandView& pad) {
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
  const Conv2dWeightLayout layout = conv2d_weight_layout(kernel, p);
  const int64_t row = conv2d_column_length(p);
  if (layout.segment == 0 || row < 0) return row < 0 ? -1 : row * p.output_depth;
  return row / layout.segment * layout.stored * p.output_depth;
}

// The model's weights as `kernel` reads them (conv2d_weight_bytes(kernel)
// bytes at `out`).
inline void order_conv2d_weights(const KernelDescriptor* kernel, const Conv2dParams& p,
                                 const int8_t* model, int8_t* out) {
  const Conv2dWeightLayout layout = conv2d_weight_layout(kernel, p);
  const int32_t row = static_cast<int32_t>(conv2d_column_length(p));
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
inline bool is_conv2d_im2col_case(const Conv2dParams& p) {
  const int64_t column = conv2d_column_length(p);
  return p.filter_depth == p.input_depth && column >= 1 && column <= kMaxIm2colColumn;
}

// The validate of the im2col variants: the family's checks and their case.
inline Status validate_conv2d_im2col(const void* raw, const OperandView* inputs,
                                     uint32_t num_inputs, const OperandView* outputs,
                                     uint32_t num_outputs) {
  const auto& p = *static_cast<const Conv2dParams*>(raw);
  const Status status = validate_conv2d_operands(p, inputs, num_inputs, outputs, num_outputs);
  if (status != Status::kOk) return status;
  return is_conv2d_im2col_case(p) ? Status::kOk : Status::kBadParams;
}

}  // namespace tinyaot
