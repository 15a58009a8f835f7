// The kernel variants a program in rounding mode onnx may name: those whose
// arithmetic is onnxruntime's in that mode (the weighted operators' and
// the global average's output step, onnx_requantize.h; QuantizeLinear's
// division and round half to even) and those with no arithmetic to round
// (data movement, max pooling, lookup tables built by the compiler,
// DequantizeLinear, the same float32 product in both engines). The
// compiler picks only these in mode onnx (choose_variant) and the loader
// refuses any other, so no kernel runs TFLite's fixed-point arithmetic for
// an onnx program. Not listed, with their reason:
// - batch_matmul_s8_mve (its step has the mode, output_step_mve.h, but no
//   sweep proves it in mode onnx yet) and the MVE elementwise, pooling and
//   softmax variants (TFLite's arithmetic; in mode onnx add_s8_flat and
//   sub_s8_flat run four lanes a step when built for MVE, add_sub_onnx.h);
// - the other average pooling variants: TFLite's integer average (mode
//   onnx takes the avg_pool2d_s8_onnx family, onnxruntime's float32 chain
//   (kernels/pooling/onnx_average.h), or MEAN for a global average);
// - mul_s8_fast, mul_s8_mve: TFLite's arithmetic (mode onnx takes
//   mul_s8_ref, which runs QLinearMul's float32 chain, mul_onnx.h);
// - softmax, maximum, minimum: onnxruntime computes them as float32 chains
//   these kernels do not have.
// Freestanding: used by the loader on the device and by the compiler.
#pragma once

#include <stdint.h>
#include <string.h>

namespace tinyaot {

constexpr const char* kOnnxRoundingKernels[] = {
    "conv2d_s8_ref",
    "conv2d_s8_1x1",
    "conv2d_s8_im2col",
    "conv2d_s8_window",
    "depthwise_conv2d_s8_ref",
    "depthwise_conv2d_s8_3x3",
    "depthwise_conv2d_s8_scalar",
    "depthwise_conv2d_s8_dsp",
    "depthwise_conv2d_s8_dsp_3x3",
    "fully_connected_s8_ref",
    "fully_connected_s8_blocked",
    "fully_connected_s8_dsp",
    "batch_matmul_s8_ref",
    "transpose_conv_s8_ref",
    "conv2d_s8_1x1_mve",
    "conv2d_s8_im2col_mve",
    "conv2d_s8_window_mve",
    "depthwise_conv2d_s8_mve",
    "fully_connected_s8_mve",
    "transpose_conv_s8_mve",
    "mean_s8_ref",
    "mean_s8_planes",
    "mean_s8_planes_mve",
    "avg_pool2d_s8_onnx",
    "avg_pool2d_s8_onnx_sum16",
    "avg_pool2d_s8_onnx_mve",
    "add_s8_ref",
    "sub_s8_ref",
    "add_s8_flat",
    "sub_s8_flat",
    "mul_s8_ref",
    "quantize_f32_s8_ref",
    "quantize_f32_s8_estimate",
    "dequantize_s8_f32_ref",
    "copy_s8",
    "pad_s8_ref",
    "concatenation_s8_ref",
    "transpose_s8_ref",
    "strided_slice_s8_ref",
    "max_pool2d_s8_ref",
    "max_pool2d_s8_words",
    "max_pool2d_s8_mve",
    "lut_s8_ref",
};

inline bool kernel_has_onnx_rounding(const char* name) {
  for (const char* listed : kOnnxRoundingKernels)
    if (strcmp(name, listed) == 0) return true;
  return false;
}

}  // namespace tinyaot
