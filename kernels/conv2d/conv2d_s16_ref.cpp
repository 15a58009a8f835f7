// Reference CONV_2D 16x8: TFLite Micro's per-channel integer convolution
// for int16 activations and int8 weights (grouped convolution included),
// accumulating in the bias's width (kernels/common/int16x8.h).
#include "kernels/common/int16x8.h"
#include "kernels/conv2d/conv2d.h"
#include "kernels/conv2d/conv2d_cases.h"
#include "kernels/conv2d/conv2d_s16_windows.h"

namespace tinyaot {
namespace {

template <Rounding R, typename Acc>
TINYAOT_MODE_LOOP void convolve(const Conv2dParams& p, const Int16x8Operands& o) {
  const int32_t filters_per_group = p.output_depth / (p.input_depth / p.filter_depth);
  for (int32_t b = 0; b < p.batches; ++b) {
    const int16_t* image = o.input + b * p.input_h * p.input_w * p.input_depth;
    for (int32_t oy = 0; oy < p.output_h; ++oy) {
      const int32_t y_origin = oy * p.stride_h - p.pad_top;
      for (int32_t ox = 0; ox < p.output_w; ++ox) {
        const int32_t x_origin = ox * p.stride_w - p.pad_left;
        int16_t* out = o.output + ((b * p.output_h + oy) * p.output_w + ox) * p.output_depth;
        for (int32_t c = 0; c < p.output_depth; ++c) {
          const int32_t first_channel = (c / filters_per_group) * p.filter_depth;
          const int8_t* weights = o.filter + c * p.filter_h * p.filter_w * p.filter_depth;
          Acc acc = 0;
          for (int32_t ky = 0; ky < p.filter_h; ++ky) {
            const int32_t y = y_origin + ky * p.dilation_h;
            if (y < 0 || y >= p.input_h) continue;
            for (int32_t kx = 0; kx < p.filter_w; ++kx) {
              const int32_t x = x_origin + kx * p.dilation_w;
              if (x < 0 || x >= p.input_w) continue;
              const int16_t* pixel = image + (y * p.input_w + x) * p.input_depth + first_channel;
              const int8_t* tap = weights + (ky * p.filter_w + kx) * p.filter_depth;
              for (int32_t k = 0; k < p.filter_depth; ++k) acc = accumulate(acc, pixel[k], tap[k]);
            }
          }
          out[c] = int16x8_output_step<R>(acc, c, o, p);
        }
      }
    }
  }
}

Status run(const KernelArgs& args) {
  const auto& p = *static_cast<const Conv2dParams*>(args.params);
  const Int16x8Operands o = int16x8_operands(args);
  with_int16x8_accumulator(args, o, [&](auto mode, auto accumulator) {
    convolve<decltype(mode)::value, typename decltype(accumulator)::type>(p, o);
  });
  return Status::kOk;
}

}  // namespace

const KernelDescriptor kernel_conv2d_s16_ref = {
    "conv2d_s16_ref",
    "conv2d_s16",
    1,
    sizeof(Conv2dParams),
    3,
    4,
    1,
    IsaClass::kScalar,
    TINYAOT_CONV2D_S16_SIGNATURE,
    run,
    validate_conv2d_s16,
    nullptr,
};

}  // namespace tinyaot
