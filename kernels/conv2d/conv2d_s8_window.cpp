// CONV_2D of any window, stride, dilation and padding (ungrouped) with no
// scratch: an implicit GEMM. Each tap of an output pixel's window is a
// segment of input_depth raw int8 values read where the input holds them;
// a tap outside the input reads the pad row, input_depth copies of the
// input zero point, which the compiler stores beside the weights. With the
// input offset folded into the bias (bias + input_offset * sum of the
// channel's weights), a zero-point tap contributes exactly nothing, as the
// reference's skipped tap, so the inner loop has no bounds checks. Two
// channels x two pixels accumulate in registers (conv2d_gemm.h); when the
// channel count is a multiple of the weight chunk and a filter row lies
// inside the input for both pixels (dilation 1), the row is one segment.
#include "kernels/common/output_step.h"
#include "kernels/common/quant.h"
#include "kernels/common/weighted_operands.h"
#include "kernels/conv2d/conv2d.h"
#include "kernels/conv2d/conv2d_cases.h"
#include "kernels/conv2d/conv2d_gemm.h"
#include "tinyaot/load_time.h"

namespace tinyaot {
namespace {

TINYAOT_LOAD_TIME Status validate(const void* raw, const OperandView* inputs, uint32_t num_inputs,
                                  const OperandView* outputs, uint32_t num_outputs) {
  const auto& p = *static_cast<const Conv2dParams*>(raw);
  if (num_inputs != 4) return Status::kBadParams;
  const Status status = validate_conv2d_operands(p, inputs, 3, outputs, num_outputs);
  if (status != Status::kOk) return status;
  if (!is_conv2d_im2col_case(p)) return Status::kBadParams;
  return is_conv2d_pad_row(p, inputs[3]) ? validate_gemm_quant(p, inputs) : Status::kBadParams;
}

// Where an output pixel's window starts.
struct WindowOrigin {
  const int8_t* image;  // the pixel's batch
  int32_t y, x;         // top-left tap, in input coordinates (may be outside)
};

WindowOrigin window_origin(const Conv2dParams& p, const int8_t* input, int32_t pixel) {
  const int32_t per_image = p.output_h * p.output_w;
  const int32_t b = pixel / per_image;
  const int32_t oy = pixel % per_image / p.output_w;
  const int32_t ox = pixel % p.output_w;
  return {input + b * p.input_h * p.input_w * p.input_depth, oy * p.stride_h - p.pad_top,
          ox * p.stride_w - p.pad_left};
}

inline bool inside(int32_t v, int32_t size) {
  return static_cast<uint32_t>(v) < static_cast<uint32_t>(size);
}

// The segments of two windows, tap by tap in the weights' order
// (ky, kx, channel); a filter row inside the input for both windows is
// one segment when the layout allows (dilation 1, whole chunks).
struct WindowWalk {
  const Conv2dParams& p;
  WindowOrigin a, b;
  const int8_t* pad;
  bool merge_rows;

  template <typename Segment>
  void operator()(Segment&& segment) const {
    const int32_t depth = p.input_depth;
    const int32_t row_bytes = p.input_w * depth;
    for (int32_t ky = 0; ky < p.filter_h; ++ky) {
      const int32_t ya = a.y + ky * p.dilation_h, yb = b.y + ky * p.dilation_h;
      const int8_t* row_a = inside(ya, p.input_h) ? a.image + ya * row_bytes : nullptr;
      const int8_t* row_b = inside(yb, p.input_h) ? b.image + yb * row_bytes : nullptr;
      if (merge_rows && row_a != nullptr && row_b != nullptr && a.x >= 0 && b.x >= 0 &&
          a.x + p.filter_w <= p.input_w && b.x + p.filter_w <= p.input_w) {
        segment(row_a + a.x * depth, row_b + b.x * depth, p.filter_w * depth);
        continue;
      }
      for (int32_t kx = 0; kx < p.filter_w; ++kx) {
        const int32_t xa = a.x + kx * p.dilation_w, xb = b.x + kx * p.dilation_w;
        segment(row_a != nullptr && inside(xa, p.input_w) ? row_a + xa * depth : pad,
                row_b != nullptr && inside(xb, p.input_w) ? row_b + xb * depth : pad, depth);
      }
    }
  }
};

template <Rounding R>
TINYAOT_MODE_LOOP void convolve(const Conv2dParams& p, const WeightedOperands& o,
                                const int8_t* pad) {
  const int32_t pixels = p.batches * p.output_h * p.output_w;
  const bool merge_rows = p.dilation_w == 1 && p.input_depth % kGemmChunk == 0;
  int8_t* out = o.output;
  int32_t pixel = 0;
  for (; pixel + 1 < pixels; pixel += 2, out += 2 * p.output_depth) {
    const WindowWalk walk{p, window_origin(p, o.input, pixel), window_origin(p, o.input, pixel + 1),
                          pad, merge_rows};
    conv2d_gemm_two_pixels<R>(p, walk, o.filter, o.quant, out, out + p.output_depth);
  }
  if (pixel < pixels) {
    const WindowOrigin a = window_origin(p, o.input, pixel);
    conv2d_gemm_one_pixel<R>(p, WindowWalk{p, a, a, pad, merge_rows}, o.filter, o.quant, out);
  }
}

Status run(const KernelArgs& args) {
  const WeightedOperands o = weighted_operands(args);
  const auto* pad = static_cast<const int8_t*>(args.inputs[3].data);
  with_any_rounding(args.rounding, [&](auto mode) {
    convolve<decltype(mode)::value>(*static_cast<const Conv2dParams*>(args.params), o, pad);
  });
  return Status::kOk;
}

}  // namespace

const KernelDescriptor kernel_conv2d_s8_window = {
    "conv2d_s8_window",
    "conv2d",
    1,
    sizeof(Conv2dParams),
    4,
    4,
    1,
    IsaClass::kScalar,
    "input:s8[batches,input_h,input_w,input_depth], "
    "filter:s8[output_depth,filter_h,filter_w,input_depth](row pairs interleaved by 4, segment "
    "input_depth), "
    "quant:ChannelQuant[output_depth](bias+input_offset*row_sum), "
    "pad:s8[input_depth](-input_offset) "
    "-> output:s8[batches,output_h,output_w,output_depth]; " TINYAOT_CONV2D_PARAMS_SIGNATURE
    "; case=ungrouped",
    run,
    validate,
    nullptr,
};

}  // namespace tinyaot
