// Reference CONV_2D: TFLite Micro's per-channel integer convolution, no
// tricks (grouped convolution included, as TFLite's reference supports it).
#include "kernels/common/output_step.h"
#include "kernels/common/quant.h"
#include "kernels/common/validate.h"
#include "kernels/common/weighted_operands.h"
#include "kernels/conv2d/conv2d.h"
#include "kernels/conv2d/conv2d_cases.h"
#include "kernels/conv2d/window_checks.h"
#include "tinyaot/load_time.h"

namespace tinyaot {
namespace {

TINYAOT_LOAD_TIME Status validate(const void* raw, const OperandView* inputs, uint32_t num_inputs,
                                  const OperandView* outputs, uint32_t num_outputs) {
  // Every shape the family's lowering produces, grouped convolutions included.
  return validate_conv2d_operands(*static_cast<const Conv2dParams*>(raw), inputs, num_inputs,
                                  outputs, num_outputs);
}

template <Rounding R>
TINYAOT_MODE_LOOP void convolve(const Conv2dParams& p, const int8_t* input, const int8_t* filter,
                                const ChannelQuant* quant, int8_t* output) {
  const int32_t filters_per_group = p.output_depth / (p.input_depth / p.filter_depth);
  for (int32_t b = 0; b < p.batches; ++b) {
    const int8_t* image = input + b * p.input_h * p.input_w * p.input_depth;
    for (int32_t oy = 0; oy < p.output_h; ++oy) {
      const int32_t y_origin = oy * p.stride_h - p.pad_top;
      for (int32_t ox = 0; ox < p.output_w; ++ox) {
        const int32_t x_origin = ox * p.stride_w - p.pad_left;
        int8_t* out = output + ((b * p.output_h + oy) * p.output_w + ox) * p.output_depth;
        for (int32_t o = 0; o < p.output_depth; ++o) {
          const int32_t first_channel = (o / filters_per_group) * p.filter_depth;
          const int8_t* weights = filter + o * p.filter_h * p.filter_w * p.filter_depth;
          int32_t acc = 0;
          for (int32_t ky = 0; ky < p.filter_h; ++ky) {
            const int32_t y = y_origin + ky * p.dilation_h;
            if (y < 0 || y >= p.input_h) continue;
            for (int32_t kx = 0; kx < p.filter_w; ++kx) {
              const int32_t x = x_origin + kx * p.dilation_w;
              if (x < 0 || x >= p.input_w) continue;
              const int8_t* pixel = image + (y * p.input_w + x) * p.input_depth + first_channel;
              const int8_t* tap = weights + (ky * p.filter_w + kx) * p.filter_depth;
              for (int32_t c = 0; c < p.filter_depth; ++c)
                acc = wrapping_add(acc, (pixel[c] + p.input_offset) * tap[c]);
            }
          }
          out[o] = output_step<R>(acc, quant[o], p);
        }
      }
    }
  }
}

Status run(const KernelArgs& args) {
  const auto& p = *static_cast<const Conv2dParams*>(args.params);
  const WeightedOperands o = weighted_operands(args);
  with_any_rounding(args.rounding, [&](auto mode) {
    convolve<decltype(mode)::value>(p, o.input, o.filter, o.quant, o.output);
  });
  return Status::kOk;
}

}  // namespace

const KernelDescriptor kernel_conv2d_s8_ref = {
    "conv2d_s8_ref",
    "conv2d",
    1,
    sizeof(Conv2dParams),
    3,
    3,
    1,
    IsaClass::kScalar,
    "input:s8[batches,input_h,input_w,input_depth], "
    "filter:s8[output_depth,filter_h,filter_w,filter_depth], "
    "quant:ChannelQuant[output_depth] -> "
    "output:s8[batches,output_h,output_w,output_depth]; " TINYAOT_CONV2D_PARAMS_SIGNATURE,
    run,
    validate,
    nullptr,
};

}  // namespace tinyaot
