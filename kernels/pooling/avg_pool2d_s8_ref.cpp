// Reference AVERAGE_POOL_2D: TFLite Micro's integer average, which divides
// by the number of cells inside the input (not the filter area) and rounds
// the quotient half away from zero.
#include "kernels/common/quant.h"
#include "kernels/pooling/average_divider.h"
#include "kernels/pooling/pool_window.h"
#include "kernels/pooling/pooling.h"

namespace tinyaot {
namespace {

// T: int8_t, or int16_t (TFLite Micro's int16 kernel, the same walk).
template <typename T>
Status run(const KernelArgs& args) {
  const auto& p = *static_cast<const Pool2dParams*>(args.params);
  const auto* input = static_cast<const T*>(args.inputs[0].data);
  auto* output = static_cast<T*>(args.outputs[0].data);
  for (int32_t b = 0; b < p.batches; ++b) {
    const T* image = input + b * p.input_h * p.input_w * p.channels;
    for (int32_t oy = 0; oy < p.output_h; ++oy) {
      int32_t y_begin, y_end;
      clip_window(oy * p.stride_h - p.pad_top, p.filter_h, p.input_h, &y_begin, &y_end);
      for (int32_t ox = 0; ox < p.output_w; ++ox) {
        int32_t x_begin, x_end;
        clip_window(ox * p.stride_w - p.pad_left, p.filter_w, p.input_w, &x_begin, &x_end);
        const int32_t count = (y_end - y_begin) * (x_end - x_begin);
        T* out = output + ((b * p.output_h + oy) * p.output_w + ox) * p.channels;
        for (int32_t c = 0; c < p.channels; ++c) {
          int32_t sum = 0;
          for (int32_t y = y_begin; y < y_end; ++y) {
            for (int32_t x = x_begin; x < x_end; ++x)
              sum += image[(y * p.input_w + x) * p.channels + c];
          }
          out[c] = static_cast<T>(clamp_i32(divide_rounded(sum, count), p.act_min, p.act_max));
        }
      }
    }
  }
  return Status::kOk;
}

}  // namespace

const KernelDescriptor kernel_avg_pool2d_s8_ref = {
    "avg_pool2d_s8_ref",
    "avg_pool2d",
    1,
    sizeof(Pool2dParams),
    1,
    1,
    1,
    IsaClass::kScalar,
    TINYAOT_POOL2D_SIGNATURE,
    run<int8_t>,
    validate_avg_pool2d,
    nullptr,
};

const KernelDescriptor kernel_avg_pool2d_s16_ref = {
    "avg_pool2d_s16_ref",
    "avg_pool2d_s16",
    1,
    sizeof(Pool2dParams),
    1,
    1,
    1,
    IsaClass::kScalar,
    TINYAOT_POOL2D_S16_SIGNATURE,
    run<int16_t>,
    validate_avg_pool2d_s16,
    nullptr,
};

}  // namespace tinyaot
