// Activation passes: clamp ranges instead of activation operators.
#include <algorithm>

#include "compiler/passes/passes.h"
#include "kernels/common/quantize_multiplier.h"

namespace tinyaot {
namespace {

// TFLite's CalculateActivationRangeQuantized for int8.
void activation_range(Activation activation, const Tensor& output, int32_t* lo, int32_t* hi) {
  const float scale = output.quant.scale();
  const int32_t zp = output.quant.zero_point();
  int32_t min = -128, max = 127;
  switch (activation) {
    case Activation::kNone:
      break;
    case Activation::kRelu:
      min = std::max(min, quantize_real(scale, zp, 0.0f));
      break;
    case Activation::kRelu6:
      min = std::max(min, quantize_real(scale, zp, 0.0f));
      max = std::min(max, quantize_real(scale, zp, 6.0f));
      break;
    case Activation::kReluN1To1:
      min = std::max(min, quantize_real(scale, zp, -1.0f));
      max = std::min(max, quantize_real(scale, zp, 1.0f));
      break;
  }
  *lo = min;
  *hi = max;
}

bool same_quantization(const Tensor& a, const Tensor& b) {
  return a.quant.scales == b.quant.scales && a.quant.zero_points == b.quant.zero_points;
}

// Operators whose kernels apply act_min/act_max to their output.
bool applies_clamp(OpType type) {
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
      return true;
    default:
      return false;
  }
}

bool is_graph_output(const Graph& graph, int32_t tensor) {
  return std::find(graph.outputs.begin(), graph.outputs.end(), tensor) != graph.outputs.end();
}

}  // namespace

void resolve_activations(Graph& graph, const Target&) {
  for (Operation& op : graph.operations) {
    if (op.outputs.empty()) continue;
    const Tensor& out = graph.tensors[static_cast<size_t>(op.outputs[0])];
    if (out.dtype != DType::kInt8) continue;
    activation_range(op.attrs.activation, out, &op.act_min, &op.act_max);
  }
}

void fold_activations(Graph& graph, const Target&) {
  for (size_t i = 0; i < graph.operations.size(); ++i) {
    const Operation relu = graph.operations[i];
    if (relu.type != OpType::kRelu && relu.type != OpType::kRelu6) continue;
    const int32_t in = relu.inputs[0];
    const int32_t out = relu.outputs[0];
    const int32_t producer = graph.producer(in);
    if (producer < 0 || !applies_clamp(graph.operations[static_cast<size_t>(producer)].type))
      continue;
    if (!same_quantization(graph.tensors[static_cast<size_t>(in)],
                           graph.tensors[static_cast<size_t>(out)]))
      continue;
    if (graph.consumers(in).size() != 1 || is_graph_output(graph, in)) continue;
    int32_t lo, hi;
    activation_range(relu.type == OpType::kRelu ? Activation::kRelu : Activation::kRelu6,
                     graph.tensors[static_cast<size_t>(out)], &lo, &hi);
    Operation& p = graph.operations[static_cast<size_t>(producer)];
    p.act_min = std::max(p.act_min, lo);
    p.act_max = std::min(p.act_max, hi);
    p.outputs[0] = out;  // the producer now writes the activation's output
    graph.operations.erase(graph.operations.begin() + static_cast<std::ptrdiff_t>(i));
    --i;
  }
}

}  // namespace tinyaot
