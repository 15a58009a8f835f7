// Every kernel variant this project has, in registry order: the kernel id
// recorded in a program is the position in this list, so append new
// variants at the end. The loader checks the name recorded beside each id,
// so a reordering is refused with a clear message rather than misread.
//
// Adding an operator: write its family folder (descriptor, kernel, scratch
// size, lowering, tests) and add one line here.
#pragma once

#include "kernels/activation/activation.h"
#include "kernels/batch_matmul/batch_matmul.h"
#include "kernels/concatenation/concatenation.h"
#include "kernels/conv2d/conv2d.h"
#include "kernels/copy/copy.h"
#include "kernels/depthwise_conv2d/depthwise_conv2d.h"
#include "kernels/elementwise/elementwise.h"
#include "kernels/fully_connected/fully_connected.h"
#include "kernels/lstm/lstm.h"
#include "kernels/mean/mean.h"
#include "kernels/pad/pad.h"
#include "kernels/pooling/pooling.h"
#include "kernels/quantize/quantize.h"
#include "kernels/quantize/requantize_int.h"
#include "kernels/softmax/softmax.h"
#include "kernels/softmax/softmax_int16.h"
#include "kernels/strided_slice/strided_slice.h"
#include "kernels/svdf/svdf.h"
#include "kernels/transpose/transpose.h"
#include "kernels/transpose_conv/transpose_conv.h"

// clang-format off
#define TINYAOT_KERNEL_LIST(X) \
  X(fully_connected_s8_ref) \
  X(transpose_conv_s8_ref) \
  X(batch_matmul_s8_ref) \
  X(conv2d_s8_ref) \
  X(depthwise_conv2d_s8_ref) \
  X(copy_s8) \
  X(pad_s8_ref) \
  X(concatenation_s8_ref) \
  X(transpose_s8_ref) \
  X(strided_slice_s8_ref) \
  X(avg_pool2d_s8_ref) \
  X(max_pool2d_s8_ref) \
  X(mean_s8_ref) \
  X(softmax_s8_ref) \
  X(add_s8_ref) \
  X(sub_s8_ref) \
  X(mul_s8_ref) \
  X(maximum_s8_ref) \
  X(minimum_s8_ref) \
  X(lut_s8_ref) \
  X(quantize_f32_s8_ref) \
  X(dequantize_s8_f32_ref) \
  X(conv2d_s8_1x1) \
  X(conv2d_s8_im2col) \
  X(conv2d_s8_im2col_mve) \
  X(depthwise_conv2d_s8_3x3) \
  X(fully_connected_s8_mve) \
  X(fully_connected_s8_dsp) \
  X(depthwise_conv2d_s8_dsp) \
  X(conv2d_s8_window) \
  X(depthwise_conv2d_s8_scalar) \
  X(fully_connected_s8_blocked) \
  X(add_s8_flat) \
  X(sub_s8_flat) \
  X(mul_s8_fast) \
  X(avg_pool2d_s8_sum16) \
  X(avg_pool2d_s8_sum32) \
  X(max_pool2d_s8_words) \
  X(conv2d_s8_window_mve) \
  X(depthwise_conv2d_s8_dsp_3x3) \
  X(add_s8_mve) \
  X(sub_s8_mve) \
  X(mul_s8_mve) \
  X(avg_pool2d_s8_mve) \
  X(max_pool2d_s8_mve) \
  X(depthwise_conv2d_s8_mve) \
  X(conv2d_s8_1x1_mve) \
  X(transpose_conv_s8_mve) \
  X(batch_matmul_s8_mve) \
  X(softmax_s8_mve) \
  X(avg_pool2d_s8_onnx) \
  X(avg_pool2d_s8_onnx_sum16) \
  X(avg_pool2d_s8_onnx_mve) \
  X(mean_s8_planes) \
  X(mean_s8_planes_mve) \
  X(quantize_f32_s8_estimate) \
  X(unidirectional_lstm_s8_ref) \
  X(svdf_s8_state16_ref) \
  X(svdf_s8_state8_ref) \
  X(requantize_int_ref) \
  X(softmax_s8_s16_ref) \
  X(softmax_s16_ref) \
  X(quantize_f32_s16_ref) \
  X(dequantize_s16_f32_ref) \
  X(fully_connected_s16_ref) \
  X(conv2d_s16_ref) \
  X(depthwise_conv2d_s16_ref) \
  X(add_s16_ref) \
  X(sub_s16_ref) \
  X(mul_s16_ref) \
  X(avg_pool2d_s16_ref) \
  X(max_pool2d_s16_ref) \
  X(transpose_conv_s16_ref) \
  X(requantize_s16_ref) \
  X(logistic_s16_ref) \
  X(tanh_s16_ref) \
  X(leaky_relu_s16_ref) \
  X(mean_s16_ref) \
  X(batch_matmul_s16_ref) \
  X(pad_s16_ref) \
  X(unidirectional_lstm_s8_dsp) \
  X(unidirectional_lstm_s8_mve) \
  X(fully_connected_s16_dsp) \
  X(fully_connected_s16_mve) \
  X(conv2d_s16_dsp) \
  X(conv2d_s16_mve) \
  X(depthwise_conv2d_s16_scalar) \
  X(depthwise_conv2d_s16_mve)
// clang-format on

namespace tinyaot {

enum class KernelId : uint32_t {
#define TINYAOT_KERNEL_ID(name) name,
  TINYAOT_KERNEL_LIST(TINYAOT_KERNEL_ID)
#undef TINYAOT_KERNEL_ID
      kCount
};

}  // namespace tinyaot
