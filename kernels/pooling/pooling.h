// AVERAGE_POOL_2D and MAX_POOL_2D, int8, NHWC, input and output sharing
// their quantization. For each output pixel and channel, the window of
// filter_h x filter_w input cells starting at (oy * stride_h - pad_top,
// ox * stride_w - pad_left), clipped to the input:
//   average: round(sum / count) over the cells inside the input (ties away
//            from zero), clamped to [act_min, act_max];
//   max:     the largest cell, clamped to [act_min, act_max].
#pragma once

#include <stdint.h>

#include "tinyaot/kernel_abi.h"

namespace tinyaot {

struct Pool2dParams {
  int32_t batches;
  int32_t input_h, input_w;
  int32_t channels;
  int32_t output_h, output_w;
  int32_t filter_h, filter_w;
  int32_t stride_h, stride_w;
  // Padding before the input; the padding after it is implied by the
  // output size (cells past the input are skipped).
  int32_t pad_top, pad_left;
  int32_t act_min, act_max;
};

// AVERAGE_POOL_2D in rounding mode onnx (avg_pool2d_s8_onnx.cpp): the
// window, and the quantization input and output share, the scale as its
// float32 bits.
struct AvgPool2dOnnxParams {
  Pool2dParams pool;
  int32_t scale_bits;
  int32_t zero_point;
};

// Every pooling variant's operands and params, part of its signature.
#define TINYAOT_POOL2D_SIGNATURE                                                                  \
  "input:s8[batches,input_h,input_w,channels] -> output:s8[batches,output_h,output_w,channels]; " \
  "params=Pool2dParams{batches,input_h,input_w,channels,output_h,output_w,filter_h,filter_w,"     \
  "stride_h,stride_w,pad_top,pad_left,act_min,act_max}"

// The int16 variants' operands and params.
#define TINYAOT_POOL2D_S16_SIGNATURE                                                          \
  "input:s16[batches,input_h,input_w,channels] -> "                                           \
  "output:s16[batches,output_h,output_w,channels]; "                                          \
  "params=Pool2dParams{batches,input_h,input_w,channels,output_h,output_w,filter_h,filter_w," \
  "stride_h,stride_w,pad_top,pad_left,act_min,act_max}"

// The onnx average pooling variants' operands and params.
#define TINYAOT_AVG_POOL2D_ONNX_SIGNATURE                                                         \
  "input:s8[batches,input_h,input_w,channels] -> output:s8[batches,output_h,output_w,channels]; " \
  "params=AvgPool2dOnnxParams{pool{batches,input_h,input_w,channels,output_h,output_w,filter_h,"  \
  "filter_w,stride_h,stride_w,pad_top,pad_left,act_min,act_max},scale_bits,zero_point}"

// Operands: input s8 [batches, input_h, input_w, channels]
// -> output s8 [batches, output_h, output_w, channels].
extern const KernelDescriptor kernel_avg_pool2d_s8_ref;
extern const KernelDescriptor kernel_max_pool2d_s8_ref;
// int16 (input and output s16; an int16 activation range; averages of at
// most 2^15 cells; no rounding mode onnx).
extern const KernelDescriptor kernel_avg_pool2d_s16_ref;
extern const KernelDescriptor kernel_max_pool2d_s16_ref;
// Channel-vectorized variants (avg_pool2d_s8_sum.cpp, max_pool2d_s8_words.cpp).
extern const KernelDescriptor kernel_avg_pool2d_s8_sum16;  // windows of at most 256 cells
extern const KernelDescriptor kernel_avg_pool2d_s8_sum32;
extern const KernelDescriptor kernel_max_pool2d_s8_words;
// MVE, 16 channels a vector (pool2d_s8_mve.cpp).
extern const KernelDescriptor kernel_avg_pool2d_s8_mve;  // windows of at most 256 cells
extern const KernelDescriptor kernel_max_pool2d_s8_mve;
// onnxruntime's QLinearAveragePool: its float32 chain for every output
// (avg_pool2d_s8_onnx.cpp), and from 16-bit window sums, windows of at
// most 256 cells (onnx_average.h; avg_pool2d_s8_sum.cpp, pool2d_s8_mve.cpp).
extern const KernelDescriptor kernel_avg_pool2d_s8_onnx;
extern const KernelDescriptor kernel_avg_pool2d_s8_onnx_sum16;
extern const KernelDescriptor kernel_avg_pool2d_s8_onnx_mve;

}  // namespace tinyaot
