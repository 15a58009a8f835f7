// AVERAGE_POOL_2D in rounding mode onnx: onnxruntime's QLinearAveragePool
// (qlinear_pool.cc, tests/onnx_ops/README.md), a float32 chain where
// TFLite's is an integer average: each cell dequantized, d = f32(s * f32(q
// - z)), the window's cells summed in float32 in row-major order, avg =
// f32(sum / count) over the cells inside the input (count_include_pad 0,
// the only kind imported), q = clamp(rint(f32(f32(avg / s) + z))). Input
// and output share their quantization (pool_params). On a core without an
// FPU these are the compiler's soft-float calls.
#include "kernels/common/onnx_requantize.h"
#include "kernels/pooling/pool_window.h"
#include "kernels/pooling/pooling.h"

namespace tinyaot {
namespace {

TINYAOT_LOAD_TIME Status validate(const void* raw, const OperandView* inputs, uint32_t num_inputs,
                                  const OperandView* outputs, uint32_t num_outputs) {
  const auto& p = *static_cast<const AvgPool2dOnnxParams*>(raw);
  const Status status = validate_avg_pool2d(&p.pool, inputs, num_inputs, outputs, num_outputs);
  if (status != Status::kOk) return status;
  const float scale = float_of_bits(static_cast<uint32_t>(p.scale_bits));
  if (!(scale > 0.0f && scale <= 3.4028234e38f) || p.zero_point < -128 || p.zero_point > 127)
    return Status::kBadParams;
  return Status::kOk;
}

Status run(const KernelArgs& args) {
  const auto& onnx = *static_cast<const AvgPool2dOnnxParams*>(args.params);
  const Pool2dParams& p = onnx.pool;
  const float scale = float_of_bits(static_cast<uint32_t>(onnx.scale_bits));
  const float zero_point = static_cast<float>(onnx.zero_point);
  const float lo = static_cast<float>(p.act_min), hi = static_cast<float>(p.act_max);
  const auto* input = static_cast<const int8_t*>(args.inputs[0].data);
  auto* output = static_cast<int8_t*>(args.outputs[0].data);
  for (int32_t b = 0; b < p.batches; ++b) {
    const int8_t* image = input + b * p.input_h * p.input_w * p.channels;
    for (int32_t oy = 0; oy < p.output_h; ++oy) {
      int32_t y_begin, y_end;
      clip_window(oy * p.stride_h - p.pad_top, p.filter_h, p.input_h, &y_begin, &y_end);
      for (int32_t ox = 0; ox < p.output_w; ++ox) {
        int32_t x_begin, x_end;
        clip_window(ox * p.stride_w - p.pad_left, p.filter_w, p.input_w, &x_begin, &x_end);
        const float count = static_cast<float>((y_end - y_begin) * (x_end - x_begin));
        int8_t* out = output + ((b * p.output_h + oy) * p.output_w + ox) * p.channels;
        for (int32_t c = 0; c < p.channels; ++c) {
          float sum = 0.0f;
          for (int32_t y = y_begin; y < y_end; ++y) {
            for (int32_t x = x_begin; x < x_end; ++x) {
              const int32_t q = image[(y * p.input_w + x) * p.channels + c];
              sum += rounded_product(scale * static_cast<float>(q - onnx.zero_point));
            }
          }
          const float average = sum / count;
          const float shifted = average / scale + zero_point;
          out[c] = static_cast<int8_t>(round_half_to_even(clamp_float(shifted, lo, hi)));
        }
      }
    }
  }
  return Status::kOk;
}

}  // namespace

const KernelDescriptor kernel_avg_pool2d_s8_onnx = {
    "avg_pool2d_s8_onnx",
    "avg_pool2d_onnx",  // another arithmetic, not a variant of avg_pool2d
    1,
    sizeof(AvgPool2dOnnxParams),
    1,
    1,
    1,
    IsaClass::kScalar,
    "input:s8[batches,input_h,input_w,channels] -> output:s8[batches,output_h,output_w,channels]; "
    "params=AvgPool2dOnnxParams{pool{batches,input_h,input_w,channels,output_h,output_w,filter_h,"
    "filter_w,stride_h,stride_w,pad_top,pad_left,act_min,act_max},scale_bits,zero_point}",
    run,
    validate,
    nullptr,
};

}  // namespace tinyaot
