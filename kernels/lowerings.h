// Every kernel family's lowering entry point (each defined in its own
// folder, kernels/<family>/<family>_lower.cpp).
#pragma once

#include "compiler/lower/lowering.h"

namespace tinyaot {

LoweredOp lower_fully_connected(const Graph& graph, const Operation& op, const Target& target);
LoweredOp lower_transpose_conv(const Graph& graph, const Operation& op, const Target& target);
LoweredOp lower_batch_matmul(const Graph& graph, const Operation& op, const Target& target);
LoweredOp lower_conv2d(const Graph& graph, const Operation& op, const Target& target);
LoweredOp lower_depthwise_conv2d(const Graph& graph, const Operation& op, const Target& target);
LoweredOp lower_reshape(const Graph& graph, const Operation& op, const Target& target);
LoweredOp lower_pad(const Graph& graph, const Operation& op, const Target& target);
LoweredOp lower_concatenation(const Graph& graph, const Operation& op, const Target& target);
LoweredOp lower_transpose(const Graph& graph, const Operation& op, const Target& target);
LoweredOp lower_strided_slice(const Graph& graph, const Operation& op, const Target& target);
LoweredOp lower_average_pool2d(const Graph& graph, const Operation& op, const Target& target);
LoweredOp lower_max_pool2d(const Graph& graph, const Operation& op, const Target& target);
LoweredOp lower_mean(const Graph& graph, const Operation& op, const Target& target);
// MEAN over the input dimensions `reduced` marks (one flag per dimension):
// lower_mean's after resolving its axes operand, and the global average
// pool's in rounding mode onnx (onnxruntime's QLinearGlobalAveragePool).
LoweredOp lower_mean_over(const Graph& graph, const Operation& op, const Target& target,
                          const std::vector<bool>& reduced);
LoweredOp lower_softmax(const Graph& graph, const Operation& op, const Target& target);
LoweredOp lower_add(const Graph& graph, const Operation& op, const Target& target);
LoweredOp lower_sub(const Graph& graph, const Operation& op, const Target& target);
LoweredOp lower_mul(const Graph& graph, const Operation& op, const Target& target);
LoweredOp lower_maximum(const Graph& graph, const Operation& op, const Target& target);
LoweredOp lower_minimum(const Graph& graph, const Operation& op, const Target& target);
LoweredOp lower_logistic(const Graph& graph, const Operation& op, const Target& target);
LoweredOp lower_tanh(const Graph& graph, const Operation& op, const Target& target);
LoweredOp lower_relu(const Graph& graph, const Operation& op, const Target& target);
LoweredOp lower_relu6(const Graph& graph, const Operation& op, const Target& target);
LoweredOp lower_hard_swish(const Graph& graph, const Operation& op, const Target& target);
LoweredOp lower_leaky_relu(const Graph& graph, const Operation& op, const Target& target);
LoweredOp lower_lookup_table(const Graph& graph, const Operation& op, const Target& target);
LoweredOp lower_resize_nearest_neighbor(const Graph& graph, const Operation& op,
                                        const Target& target);
LoweredOp lower_requantize(const Graph& graph, const Operation& op, const Target& target);
LoweredOp lower_quantize(const Graph& graph, const Operation& op, const Target& target);
LoweredOp lower_dequantize(const Graph& graph, const Operation& op, const Target& target);
LoweredOp lower_unidirectional_lstm(const Graph& graph, const Operation& op, const Target& target);
LoweredOp lower_svdf(const Graph& graph, const Operation& op, const Target& target);

}  // namespace tinyaot
