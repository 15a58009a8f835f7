// DEPTHWISE_CONV_2D with a 3x3 filter and depth multiplier 1: for each
// output pixel the taps inside the input form one rectangle, computed once
// (not checked per tap and channel), and four channels accumulate in
// registers over it, tap by tap.
#include "kernels/common/output_step.h"
#include "kernels/common/quant.h"
#include "kernels/common/weighted_operands.h"
#include "kernels/depthwise_conv2d/depthwise_conv2d.h"
#include "kernels/depthwise_conv2d/depthwise_conv2d_cases.h"
#include "tinyaot/load_time.h"

namespace tinyaot {
namespace {

constexpr int32_t kFilter = 3;
constexpr int32_t kGroup = 4;  // channels accumulated together, in registers

TINYAOT_LOAD_TIME Status validate(const void* raw, const OperandView* inputs, uint32_t num_inputs,
                                  const OperandView* outputs, uint32_t num_outputs) {
  const auto& p = *static_cast<const DepthwiseConv2dParams*>(raw);
  const Status status =
      validate_depthwise_conv2d_operands(p, inputs, num_inputs, outputs, num_outputs);
  if (status != Status::kOk) return status;
  return is_depthwise_3x3_case(p) ? validate_fast_depthwise_quant(p, inputs) : Status::kBadParams;
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
  const int32_t offset = p.input_offset;
  const int32_t row_step = p.input_w * depth;
  const OutputRange range = output_range(p);
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
        // A window with no tap inside reads nothing (the loops below do not
        // run), and its origin may lie far outside: no offset from it.
        const bool inside = ky_first < ky_last && kx_first < kx_last;
        const int8_t* const corner =
            inside ? image + ((y_origin + ky_first) * p.input_w + x_origin + kx_first) * depth
                   : image;
        const int8_t* const corner_weights = filter + (ky_first * kFilter + kx_first) * depth;
        int32_t c = 0;
        // Four channels in registers over the tap rectangle: per tap and
        // channel one LDRSB of input and of weight, the offset add, an MLA.
        for (; c + kGroup <= depth; c += kGroup) {
          uint32_t a0 = 0, a1 = 0, a2 = 0, a3 = 0;  // wrap like the int32 accumulator
          const int8_t* row = corner + c;
          const int8_t* row_weights = corner_weights + c;
          for (int32_t ky = ky_first; ky < ky_last;
               ++ky, row += row_step, row_weights += kFilter * depth) {
            const int8_t* in = row;
            const int8_t* w = row_weights;
            for (int32_t kx = kx_first; kx < kx_last; ++kx, in += depth, w += depth) {
              a0 += static_cast<uint32_t>((in[0] + offset) * w[0]);
              a1 += static_cast<uint32_t>((in[1] + offset) * w[1]);
              a2 += static_cast<uint32_t>((in[2] + offset) * w[2]);
              a3 += static_cast<uint32_t>((in[3] + offset) * w[3]);
            }
          }
          out[c] = fast_output_step<R>(a0, quant[c], range);
          out[c + 1] = fast_output_step<R>(a1, quant[c + 1], range);
          out[c + 2] = fast_output_step<R>(a2, quant[c + 2], range);
          out[c + 3] = fast_output_step<R>(a3, quant[c + 3], range);
        }
        for (; c < depth; ++c) {
          uint32_t acc = 0;
          for (int32_t ky = ky_first; ky < ky_last; ++ky)
            for (int32_t kx = kx_first; kx < kx_last; ++kx)
              acc += static_cast<uint32_t>(
                  (corner[(ky - ky_first) * row_step + (kx - kx_first) * depth + c] + offset) *
                  corner_weights[((ky - ky_first) * kFilter + kx - kx_first) * depth + c]);
          out[c] = fast_output_step<R>(acc, quant[c], range);
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
