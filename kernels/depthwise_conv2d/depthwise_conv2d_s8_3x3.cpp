// DEPTHWISE_CONV_2D with a 3x3 filter and depth multiplier 1: for each
// output pixel the taps inside the input form one rectangle, computed once
// (not checked per tap and channel), and a block of channels accumulates
// tap by tap, reading input and weights contiguously.
#include "kernels/common/output_step.h"
#include "kernels/common/quant.h"
#include "kernels/common/weighted_operands.h"
#include "kernels/depthwise_conv2d/depthwise_conv2d.h"
#include "kernels/depthwise_conv2d/depthwise_conv2d_cases.h"

namespace tinyaot {
namespace {

constexpr int32_t kFilter = 3;
constexpr int32_t kBlock = 16;  // channels accumulated together (on the stack)

Status validate(const void* raw, const OperandView* inputs, uint32_t num_inputs,
                const OperandView* outputs, uint32_t num_outputs) {
  const auto& p = *static_cast<const DepthwiseConv2dParams*>(raw);
  const Status status =
      validate_depthwise_conv2d_operands(p, inputs, num_inputs, outputs, num_outputs);
  if (status != Status::kOk) return status;
  return is_depthwise_3x3_case(p) ? Status::kOk : Status::kBadParams;
}

// Taps [first, last) of an axis that land inside [0, size).
void tap_range(int32_t origin, int32_t size, int32_t* first, int32_t* last) {
  *first = origin < 0 ? -origin : 0;
  if (*first > kFilter) *first = kFilter;
  // int64: a corrupt pad near INT32_MAX makes origin very negative.
  const int64_t room = int64_t{size} - origin;
  *last = room < kFilter ? static_cast<int32_t>(room) : kFilter;
  if (*last < *first) *last = *first;
}

template <Rounding R>
TINYAOT_MODE_LOOP void convolve(const DepthwiseConv2dParams& p, const int8_t* input,
                                const int8_t* filter, const ChannelQuant* quant, int8_t* output) {
  const int32_t depth = p.input_depth;
  for (int32_t b = 0; b < p.batches; ++b) {
    const int8_t* image = input + b * p.input_h * p.input_w * depth;
    for (int32_t oy = 0; oy < p.output_h; ++oy) {
      const int32_t y_origin = oy * p.stride_h - p.pad_top;
      int32_t ky_first, ky_last;
      tap_range(y_origin, p.input_h, &ky_first, &ky_last);
      for (int32_t ox = 0; ox < p.output_w; ++ox) {
        const int32_t x_origin = ox * p.stride_w - p.pad_left;
        int32_t kx_first, kx_last;
        tap_range(x_origin, p.input_w, &kx_first, &kx_last);
        int8_t* out = output + ((b * p.output_h + oy) * p.output_w + ox) * depth;
        for (int32_t c0 = 0; c0 < depth; c0 += kBlock) {
          const int32_t count = depth - c0 < kBlock ? depth - c0 : kBlock;
          // Unsigned sums wrap like the hardware's int32 accumulator.
          uint32_t acc[kBlock] = {};
          for (int32_t ky = ky_first; ky < ky_last; ++ky) {
            for (int32_t kx = kx_first; kx < kx_last; ++kx) {
              const int8_t* in = image + ((y_origin + ky) * p.input_w + x_origin + kx) * depth + c0;
              const int8_t* weights = filter + (ky * kFilter + kx) * depth + c0;
              // Plain C++ on every core (DSP cores take
              // depthwise_conv2d_s8_dsp). A whole block unrolled: fixed
              // offsets instead of pointer steps, no loop compare.
              if (count == kBlock) {
#pragma GCC unroll 16
                for (int32_t j = 0; j < kBlock; ++j)
                  acc[j] += static_cast<uint32_t>((in[j] + p.input_offset) * weights[j]);
              } else {
                for (int32_t j = 0; j < count; ++j)
                  acc[j] += static_cast<uint32_t>((in[j] + p.input_offset) * weights[j]);
              }
            }
          }
          for (int32_t j = 0; j < count; ++j)
            out[c0 + j] = output_step<R>(acc[j], quant[c0 + j], p);
        }
      }
    }
  }
}

Status run(const KernelArgs& args) {
  const auto& p = *static_cast<const DepthwiseConv2dParams*>(args.params);
  const WeightedOperands o = weighted_operands(args);
  with_rounding(args.rounding, [&](auto mode) {
    convolve<decltype(mode)::value>(p, o.input, o.filter, o.quant, o.output);
  });
  return Status::kOk;
}

}  // namespace

const KernelDescriptor kernel_depthwise_conv2d_s8_3x3 = {
    "depthwise_conv2d_s8_3x3",
    "depthwise_conv2d",
    1,
    sizeof(DepthwiseConv2dParams),
    3,
    3,
    1,
    IsaClass::kScalar,
    "input:s8[batches,input_h,input_w,input_depth], filter:s8[1,3,3,input_depth], "
    "quant:ChannelQuant[input_depth] -> output:s8[batches,output_h,output_w,input_depth]; "
    "params=DepthwiseConv2dParams{batches,input_h,input_w,input_depth,depth_multiplier,"
    "filter_h,filter_w,output_h,output_w,stride_h,stride_w,dilation_h,dilation_w,pad_top,"
    "pad_left,input_offset,output_offset,act_min,act_max}; case=3x3,multiplier1,dilation1",
    run,
    validate,
    nullptr,
};

}  // namespace tinyaot
