// Activation passes: clamp ranges instead of activation operators.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "compiler/lower/lowering.h"
#include "compiler/passes/passes.h"
#include "kernels/common/quantize_multiplier.h"

namespace tinyaot {
namespace {

const char* activation_name(Activation activation) {
  switch (activation) {
    case Activation::kRelu:
      return "RELU";
    case Activation::kRelu6:
      return "RELU6";
    case Activation::kReluN1To1:
      return "RELU_N1_TO_1";
    case Activation::kClip:
      return "CLIP";
    case Activation::kNone:
      break;
  }
  return "NONE";
}

// TFLite's CalculateActivationRangeQuantized for int8 and int16 (and ONNX's Clip
// between `op`'s clip bounds, quantized the same way; an infinite bound
// leaves that side open), the bounds rounded as the rounding mode's
// engine quantizes (quantize_real). `op` (whose output is `output`) is
// named when a bound does not fit an integer.
void activation_range(Activation activation, const Tensor& output, const Operation& op,
                      Rounding rounding, int32_t* lo, int32_t* hi) {
  const float scale = output.quant.scale();
  const int32_t zp = output.quant.zero_point();
  auto bound = [&](float value) {
    const std::optional<int32_t> q = quantize_real(scale, zp, value, rounding);
    if (!q) {
      char text[96];
      std::snprintf(text, sizeof(text), "the %s bound %g / scale %g is outside the int32 range",
                    activation_name(activation), static_cast<double>(value),
                    static_cast<double>(scale));
      throw CompileError(describe(op) + ": output '" + output.name + "': " + text);
    }
    return *q;
  };
  const bool int16 = output.dtype == DType::kInt16;
  int32_t min = int16 ? -32768 : -128, max = int16 ? 32767 : 127;
  switch (activation) {
    case Activation::kNone:
      break;
    case Activation::kRelu:
      min = std::max(min, bound(0.0f));
      break;
    case Activation::kRelu6:
      min = std::max(min, bound(0.0f));
      max = std::min(max, bound(6.0f));
      break;
    case Activation::kReluN1To1:
      min = std::max(min, bound(-1.0f));
      max = std::min(max, bound(1.0f));
      break;
    case Activation::kClip:
      if (std::isfinite(op.attrs.clip_min)) min = std::max(min, bound(op.attrs.clip_min));
      if (std::isfinite(op.attrs.clip_max)) max = std::min(max, bound(op.attrs.clip_max));
      break;
  }
  *lo = min;
  *hi = max;
}

bool same_quantization(const Tensor& a, const Tensor& b) {
  return a.quant.scales == b.quant.scales && a.quant.zero_points == b.quant.zero_points;
}

bool is_graph_output(const Graph& graph, int32_t tensor) {
  return std::find(graph.outputs.begin(), graph.outputs.end(), tensor) != graph.outputs.end();
}

}  // namespace

void resolve_activations(Graph& graph, const Target& target) {
  for (Operation& op : graph.operations) {
    if (op.outputs.empty()) continue;
    const Tensor& out = graph.tensors[static_cast<size_t>(op.outputs[0])];
    if (out.dtype != DType::kInt8 && out.dtype != DType::kInt16) continue;
    activation_range(op.attrs.activation, out, op, target.rounding, &op.act_min, &op.act_max);
  }
}

void fold_activations(Graph& graph, const Target& target) {
  for (size_t i = 0; i < graph.operations.size(); ++i) {
    const Operation relu = graph.operations[i];
    if (relu.type != OpType::kRelu && relu.type != OpType::kRelu6) continue;
    const int32_t in = relu.inputs[0];
    const int32_t out = relu.outputs[0];
    const int32_t producer = graph.producer(in);
    if (producer < 0 ||
        !lowering_applies_clamp(graph.operations[static_cast<size_t>(producer)].type))
      continue;
    if (!same_quantization(graph.tensors[static_cast<size_t>(in)],
                           graph.tensors[static_cast<size_t>(out)]))
      continue;
    if (graph.consumers(in).size() != 1 || is_graph_output(graph, in)) continue;
    int32_t lo, hi;
    activation_range(relu.type == OpType::kRelu ? Activation::kRelu : Activation::kRelu6,
                     graph.tensors[static_cast<size_t>(out)], relu, target.rounding, &lo, &hi);
    Operation& p = graph.operations[static_cast<size_t>(producer)];
    p.act_min = std::max(p.act_min, lo);
    p.act_max = std::min(p.act_max, hi);
    p.outputs[0] = out;  // the producer now writes the activation's output
    graph.operations.erase(graph.operations.begin() + static_cast<std::ptrdiff_t>(i));
    --i;
  }
}

}  // namespace tinyaot
