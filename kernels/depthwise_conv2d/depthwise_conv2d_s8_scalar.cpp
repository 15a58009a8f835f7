// DEPTHWISE_CONV_2D for any core, plain C++ for the scalar ones (M0, M3):
// any filter, stride, padding, dilation and depth multiplier, the model's
// weights as they are. Per output pixel the taps inside the input form one
// rectangle (depthwise_window.h), computed once, so no tap is checked per
// channel; a block of 16 outputs accumulates on the stack tap by tap, each
// tap a run over the block's input, weights and sums read in order (the
// loop depthwise_conv2d_s8_3x3 runs for its one shape; a register per
// output over its window was slower on M0 and M3: too few registers for
// the pointers, the sum and three taps). A depth multiplier reads each
// input value once for its adjacent outputs. No scratch.
#include "kernels/common/output_step.h"
#include "kernels/common/quant.h"
#include "kernels/common/weighted_operands.h"
#include "kernels/depthwise_conv2d/depthwise_conv2d.h"
#include "kernels/depthwise_conv2d/depthwise_conv2d_cases.h"
#include "kernels/depthwise_conv2d/depthwise_window.h"
#include "tinyaot/load_time.h"

namespace tinyaot {
namespace {

TINYAOT_LOAD_TIME Status validate(const void* raw, const OperandView* inputs, uint32_t num_inputs,
                                  const OperandView* outputs, uint32_t num_outputs) {
  const auto& p = *static_cast<const DepthwiseConv2dParams*>(raw);
  const Status status =
      validate_depthwise_conv2d_operands(p, inputs, num_inputs, outputs, num_outputs);
  return status != Status::kOk ? status : validate_fast_depthwise_quant(p, inputs);
}

constexpr int32_t kBlock = 16;  // outputs accumulated together (on the stack)

// Where a block of outputs starts: output o0 = c0 * multiplier + m0.
struct BlockStart {
  int32_t o0, c0, m0;
};

// One pixel's outputs [o0, o0 + count) (count <= kBlock) over its window,
// tap by tap, each tap a run over the block's outputs: input, weights and
// sums all read in order. kUnit: depth multiplier 1 (one weight per input
// value); otherwise each input value feeds `multiplier` adjacent outputs.
// Unsigned sums wrap like the hardware's int32 accumulator.
template <Rounding R, bool kUnit>
void block_outputs(const DepthwiseConv2dParams& p, const DepthwiseWindow& win,
                   const BlockStart& start, int32_t count, const int8_t* filter,
                   const ChannelQuant* quant, int8_t* out) {
  const int32_t depth = p.input_depth;
  const int32_t multiplier = p.depth_multiplier;
  const int32_t out_depth = depth * multiplier;
  const int32_t offset = p.input_offset;
  const int32_t col_step = p.dilation_w * depth;
  const int32_t row_step = p.dilation_h * p.input_w * depth;
  uint32_t acc[kBlock] = {};
  const int8_t* in_row = win.input + start.c0;
  const int8_t* w_row = filter + win.first_tap * out_depth + start.o0;
  for (int32_t ky = 0; ky < win.rows; ++ky, in_row += row_step, w_row += p.filter_w * out_depth) {
    const int8_t* in = in_row;
    const int8_t* weights = w_row;
    for (int32_t kx = 0; kx < win.cols; ++kx, in += col_step, weights += out_depth) {
      if (kUnit && count == kBlock) {
        // A whole block unrolled: fixed offsets instead of pointer steps,
        // no loop compare (M3: 6 instructions a MAC instead of 8).
#pragma GCC unroll 16
        for (int32_t j = 0; j < kBlock; ++j)
          acc[j] += static_cast<uint32_t>((in[j] + offset) * weights[j]);
      } else if (kUnit) {
        for (int32_t j = 0; j < count; ++j)
          acc[j] += static_cast<uint32_t>((in[j] + offset) * weights[j]);
      } else {
        // The next channel's value is read only when an output needs it.
        const int8_t* x = in;
        int32_t m = start.m0;
        int32_t value = *x + offset;
        for (int32_t j = 0; j < count; ++j, ++m) {
          if (m == multiplier) {
            m = 0;
            value = *++x + offset;
          }
          acc[j] += static_cast<uint32_t>(value * weights[j]);
        }
      }
    }
  }
  for (int32_t j = 0; j < count; ++j)
    out[start.o0 + j] = fast_output_step<R>(acc[j], quant[start.o0 + j], p);
}

template <Rounding R>
TINYAOT_MODE_LOOP void convolve(const DepthwiseConv2dParams& p, const int8_t* input,
                                const int8_t* filter, const ChannelQuant* quant, int8_t* output) {
  const int32_t depth = p.input_depth;
  const int32_t multiplier = p.depth_multiplier;
  const int32_t out_depth = depth * multiplier;
  for (int32_t b = 0; b < p.batches; ++b) {
    const int8_t* image = input + b * p.input_h * p.input_w * depth;
    for (int32_t oy = 0; oy < p.output_h; ++oy) {
      const TapRange y =
          tap_range(oy * p.stride_h - p.pad_top, p.input_h, p.filter_h, p.dilation_h);
      for (int32_t ox = 0; ox < p.output_w; ++ox) {
        const DepthwiseWindow win = depthwise_window(p, image, y, ox);
        int8_t* out = output + ((b * p.output_h + oy) * p.output_w + ox) * out_depth;
        BlockStart start = {0, 0, 0};
        while (start.o0 < out_depth) {
          const int32_t count = out_depth - start.o0 < kBlock ? out_depth - start.o0 : kBlock;
          if (multiplier == 1)
            block_outputs<R, true>(p, win, start, count, filter, quant, out);
          else
            block_outputs<R, false>(p, win, start, count, filter, quant, out);
          // The next block's start, without a division (a library call on
          // Cortex-M0).
          start.o0 += count;
          start.m0 += count;
          while (start.m0 >= multiplier) {
            start.m0 -= multiplier;
            ++start.c0;
          }
        }
      }
    }
  }
}

Status run(const KernelArgs& args) {
  const auto& p = *static_cast<const DepthwiseConv2dParams*>(args.params);
  const WeightedOperands o = weighted_operands(args);
  with_any_rounding(args.rounding, [&](auto mode) {
    convolve<decltype(mode)::value>(p, o.input, o.filter, o.quant, o.output);
  });
  return Status::kOk;
}

}  // namespace

const KernelDescriptor kernel_depthwise_conv2d_s8_scalar = {
    "depthwise_conv2d_s8_scalar",
    "depthwise_conv2d",
    1,
    sizeof(DepthwiseConv2dParams),
    3,
    3,
    1,
    IsaClass::kScalar,
    "input:s8[batches,input_h,input_w,input_depth], "
    "filter:s8[1,filter_h,filter_w,input_depth*depth_multiplier], "
    "quant:ChannelQuant[input_depth*depth_multiplier] "
    "-> output:s8[batches,output_h,output_w,input_depth*depth_multiplier]; "
    "params=DepthwiseConv2dParams{batches,input_h,input_w,input_depth,depth_multiplier,"
    "filter_h,filter_w,output_h,output_w,stride_h,stride_w,dilation_h,dilation_w,pad_top,"
    "pad_left,input_offset,output_offset,act_min,act_max}",
    run,
    validate,
    nullptr,
};

}  // namespace tinyaot
