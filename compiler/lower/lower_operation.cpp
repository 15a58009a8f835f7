#include "compiler/lower/lowering.h"
#include "compiler/lower/operation_macs.h"
#include "kernels/lowerings.h"
#include "kernels/onnx_kernels.h"

namespace tinyaot {

std::string describe(const Operation& op) {
  return "operation " + std::to_string(op.source_index) + " (" + op_type_name(op.type) + ")";
}

namespace {

LoweredOp lower_by_family(const Graph& graph, const Operation& op, const Target& target) {
  switch (op.type) {
    case OpType::kFullyConnected:
      return lower_fully_connected(graph, op, target);
    case OpType::kTransposeConv:
      return lower_transpose_conv(graph, op, target);
    case OpType::kBatchMatMul:
      return lower_batch_matmul(graph, op, target);
    case OpType::kConv2d:
      return lower_conv2d(graph, op, target);
    case OpType::kDepthwiseConv2d:
      return lower_depthwise_conv2d(graph, op, target);
    case OpType::kReshape:
      return lower_reshape(graph, op, target);
    case OpType::kSqueeze:
      return lower_reshape(graph, op, target);
    case OpType::kExpandDims:
      return lower_reshape(graph, op, target);
    case OpType::kPad:
      return lower_pad(graph, op, target);
    case OpType::kPadV2:
      return lower_pad(graph, op, target);
    case OpType::kConcatenation:
      return lower_concatenation(graph, op, target);
    case OpType::kTranspose:
      return lower_transpose(graph, op, target);
    case OpType::kStridedSlice:
      return lower_strided_slice(graph, op, target);
    case OpType::kAveragePool2d:
      return lower_average_pool2d(graph, op, target);
    case OpType::kMaxPool2d:
      return lower_max_pool2d(graph, op, target);
    case OpType::kMean:
      return lower_mean(graph, op, target);
    case OpType::kSoftmax:
      return lower_softmax(graph, op, target);
    case OpType::kAdd:
      return lower_add(graph, op, target);
    case OpType::kSub:
      return lower_sub(graph, op, target);
    case OpType::kMul:
      return lower_mul(graph, op, target);
    case OpType::kMaximum:
      return lower_maximum(graph, op, target);
    case OpType::kMinimum:
      return lower_minimum(graph, op, target);
    case OpType::kLogistic:
      return lower_logistic(graph, op, target);
    case OpType::kTanh:
      return lower_tanh(graph, op, target);
    case OpType::kRelu:
      return lower_relu(graph, op, target);
    case OpType::kRelu6:
      return lower_relu6(graph, op, target);
    case OpType::kHardSwish:
      return lower_hard_swish(graph, op, target);
    case OpType::kLeakyRelu:
      return lower_leaky_relu(graph, op, target);
    case OpType::kLookupTable:
      return lower_lookup_table(graph, op, target);
    case OpType::kResizeNearestNeighbor:
      return lower_resize_nearest_neighbor(graph, op, target);
    case OpType::kQuantize:
      return lower_quantize(graph, op, target);
    case OpType::kDequantize:
      return lower_dequantize(graph, op, target);
    case OpType::kUnidirectionalSequenceLstm:
      return lower_unidirectional_lstm(graph, op, target);
    case OpType::kSvdf:
      return lower_svdf(graph, op, target);
    default:
      break;
  }
  throw CompileError(describe(op) + ": no kernel lowers this operator yet");
}

}  // namespace

// In rounding mode onnx, why an operator has no definition (nullptr: it
// has one). The operators onnxruntime runs as float32 chains need kernels
// of their own; TFLite's activations (LOGISTIC, TANH, ...) compute their
// tables in TFLite's arithmetic, where an ONNX model's become LOOKUP_TABLE.
const char* missing_onnx_definition(OpType type) {
  switch (type) {
    case OpType::kSoftmax:
      return "onnxruntime's QLinearSoftmax (a float32 exponential table and sum) is not "
             "implemented";
    case OpType::kMaximum:
    case OpType::kMinimum:
    case OpType::kLogistic:
    case OpType::kTanh:
    case OpType::kRelu:
    case OpType::kRelu6:
    case OpType::kHardSwish:
    case OpType::kLeakyRelu:
      return "its kernel computes TFLite's fixed-point arithmetic; an ONNX model's operator "
             "of this kind arrives as LOOKUP_TABLE or folds into a clamp";
    case OpType::kUnidirectionalSequenceLstm:
      return "its kernel computes TFLite Micro's integer LSTM, which onnxruntime does not have";
    case OpType::kSvdf:
      return "it is TFLite's operator, with no ONNX counterpart";
    default:
      return nullptr;
  }
}

bool lowering_applies_clamp(OpType type) {
  switch (type) {
    case OpType::kConv2d:
    case OpType::kDepthwiseConv2d:
    case OpType::kFullyConnected:
    case OpType::kAveragePool2d:
    case OpType::kMaxPool2d:
    case OpType::kAdd:
    case OpType::kSub:
    case OpType::kMul:
    case OpType::kTransposeConv:
    case OpType::kBatchMatMul:
    case OpType::kLookupTable:
      return true;
    default:
      return false;
  }
}

// Operators whose lowering takes int16 tensors (int16x8 activations, an
// LSTM's int16 cell state, an SVDF's int16 time weights) and int64 biases;
// every other lowering is written for int8 and never sees one.
bool lowers_int16(OpType type) {
  switch (type) {
    case OpType::kUnidirectionalSequenceLstm:
    case OpType::kSvdf:
    case OpType::kQuantize:
    case OpType::kDequantize:
    case OpType::kSoftmax:
    case OpType::kFullyConnected:
    case OpType::kConv2d:
    case OpType::kDepthwiseConv2d:
    case OpType::kReshape:
    case OpType::kSqueeze:
    case OpType::kExpandDims:
    case OpType::kPad:
    case OpType::kPadV2:
    case OpType::kConcatenation:
    case OpType::kTranspose:
    case OpType::kStridedSlice:
    case OpType::kAdd:
    case OpType::kSub:
    case OpType::kMul:
    case OpType::kAveragePool2d:
    case OpType::kMaxPool2d:
    case OpType::kTransposeConv:
    case OpType::kBatchMatMul:
    case OpType::kRelu:
    case OpType::kRelu6:
    case OpType::kLogistic:
    case OpType::kTanh:
    case OpType::kLeakyRelu:
    case OpType::kMean:
      return true;
    default:
      return false;
  }
}

void refuse_int16_unless_lowered(const Graph& graph, const Operation& op) {
  if (lowers_int16(op.type)) return;
  auto check = [&](int32_t t) {
    if (t < 0) return;
    const DType dtype = graph.tensors[static_cast<size_t>(t)].dtype;
    if (dtype == DType::kInt16 || dtype == DType::kInt64)
      throw CompileError(describe(op) + ": tensor " + std::to_string(t) + " '" +
                         graph.tensors[static_cast<size_t>(t)].name + "' is " +
                         (dtype == DType::kInt16 ? "int16" : "int64") + "; " +
                         op_type_name(op.type) + " has no int16x8 kernel in tinyaot yet");
  };
  for (int32_t t : op.inputs) check(t);
  for (int32_t t : op.outputs) check(t);
}

LoweredOp lower_operation(const Graph& graph, const Operation& op, const Target& target) {
  refuse_int16_unless_lowered(graph, op);
  if (target.rounding == Rounding::kOnnx) {
    if (const char* why = missing_onnx_definition(op.type))
      throw CompileError(describe(op) + ": rounding mode onnx has no definition of " +
                         op_type_name(op.type) + ": " + why +
                         "; compile with --rounding tflm for TFLite's arithmetic");
  }
  VariantChoice choice;
  Target noted = target;
  noted.choice = &choice;
  LoweredOp lowered = lower_by_family(graph, op, noted);
  if (target.rounding == Rounding::kOnnx) {
    const KernelDescriptor* kernel = find_kernel(static_cast<uint32_t>(lowered.kernel));
    if (kernel == nullptr || !kernel_has_onnx_rounding(kernel->name))
      throw CompileError("internal: " + describe(op) +
                         " lowered to a variant without rounding "
                         "mode onnx");
  }
  lowered.macs = operation_macs(graph, op);
  lowered.choice = choice;
  return lowered;
}

}  // namespace tinyaot
