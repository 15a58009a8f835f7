// Reference DEPTHWISE_CONV_2D 16x8: TFLite Micro's per-channel integer
// depthwise convolution for int16 activations and int8 weights, any depth
// multiplier, accumulating in the bias's width (kernels/common/int16x8.h).
#include "kernels/common/int16x8.h"
#include "kernels/depthwise_conv2d/depthwise_conv2d.h"
#include "kernels/depthwise_conv2d/depthwise_conv2d_cases.h"
#include "kernels/depthwise_conv2d/depthwise_conv2d_s16_channels.h"

namespace tinyaot {
namespace {

template <Rounding R, typename Acc>
TINYAOT_MODE_LOOP void convolve(const DepthwiseConv2dParams& p, const Int16x8Operands& o) {
  const int32_t output_depth = p.input_depth * p.depth_multiplier;
  for (int32_t b = 0; b < p.batches; ++b) {
    const int16_t* image = o.input + b * p.input_h * p.input_w * p.input_depth;
    for (int32_t oy = 0; oy < p.output_h; ++oy) {
      const int32_t y_origin = oy * p.stride_h - p.pad_top;
      for (int32_t ox = 0; ox < p.output_w; ++ox) {
        const int32_t x_origin = ox * p.stride_w - p.pad_left;
        int16_t* out = o.output + ((b * p.output_h + oy) * p.output_w + ox) * output_depth;
        for (int32_t c = 0; c < p.input_depth; ++c) {
          for (int32_t m = 0; m < p.depth_multiplier; ++m) {
            const int32_t channel = c * p.depth_multiplier + m;
            Acc acc = 0;
            for (int32_t ky = 0; ky < p.filter_h; ++ky) {
              const int32_t y = y_origin + ky * p.dilation_h;
              if (y < 0 || y >= p.input_h) continue;
              for (int32_t kx = 0; kx < p.filter_w; ++kx) {
                const int32_t x = x_origin + kx * p.dilation_w;
                if (x < 0 || x >= p.input_w) continue;
                acc = accumulate(acc, image[(y * p.input_w + x) * p.input_depth + c],
                                 o.filter[(ky * p.filter_w + kx) * output_depth + channel]);
              }
            }
            out[channel] = int16x8_output_step<R>(acc, channel, o, p);
          }
        }
      }
    }
  }
}

Status run(const KernelArgs& args) {
  const auto& p = *static_cast<const DepthwiseConv2dParams*>(args.params);
  const Int16x8Operands o = int16x8_operands(args);
  with_int16x8_accumulator(args, o, [&](auto mode, auto accumulator) {
    convolve<decltype(mode)::value, typename decltype(accumulator)::type>(p, o);
  });
  return Status::kOk;
}

}  // namespace

const KernelDescriptor kernel_depthwise_conv2d_s16_ref = {
    "depthwise_conv2d_s16_ref",
    "depthwise_conv2d_s16",
    1,
    sizeof(DepthwiseConv2dParams),
    3,
    4,
    1,
    IsaClass::kScalar,
    TINYAOT_DEPTHWISE_CONV2D_S16_SIGNATURE,
    run,
    validate_depthwise_conv2d_s16,
    nullptr,
};

}  // namespace tinyaot
