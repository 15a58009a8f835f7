// Reshape-like operators change only the shape, never the bytes: their
// output becomes a view of their input, so they cost no kernel and no arena.
#include <algorithm>

#include "compiler/passes/passes.h"

namespace tinyaot {

static bool is_reshape_like(OpType type) {
  return type == OpType::kReshape || type == OpType::kSqueeze || type == OpType::kExpandDims;
}

void alias_reshapes(Graph& graph, const Target&) {
  for (size_t i = 0; i < graph.operations.size(); ++i) {
    const Operation& op = graph.operations[i];
    if (!is_reshape_like(op.type)) continue;
    const int32_t in = op.inputs[0];
    const int32_t out = op.outputs[0];
    Tensor& source = graph.tensors[static_cast<size_t>(in)];
    Tensor& view = graph.tensors[static_cast<size_t>(out)];
    if (source.bytes() != view.bytes() || source.dtype != view.dtype)
      throw CompileError(describe(op) + ": output has " + std::to_string(view.bytes()) +
                         " bytes but its input has " + std::to_string(source.bytes()));
    const bool both_model_edges =
        std::find(graph.inputs.begin(), graph.inputs.end(), graph.storage_of(in)) !=
            graph.inputs.end() &&
        std::find(graph.outputs.begin(), graph.outputs.end(), out) != graph.outputs.end();
    if (both_model_edges) continue;  // an input cannot also be an output: keep a copy
    if (source.is_constant()) {
      view.data = source.data;  // constant folding: the view is a constant too
    } else {
      view.alias_of = in;
    }
    graph.operations.erase(graph.operations.begin() + static_cast<std::ptrdiff_t>(i));
    --i;
  }
}

void remove_dead_operations(Graph& graph, const Target&) {
  bool changed = true;
  while (changed) {
    changed = false;
    for (size_t i = graph.operations.size(); i-- > 0;) {
      const Operation& op = graph.operations[i];
      bool used = false;
      for (int32_t out : op.outputs) {
        if (std::find(graph.outputs.begin(), graph.outputs.end(), out) != graph.outputs.end())
          used = true;
        for (size_t t = 0; t < graph.tensors.size() && !used; ++t)
          if (graph.tensors[t].alias_of == out) used = true;
        if (!graph.consumers(out).empty()) used = true;
      }
      if (!used) {
        graph.operations.erase(graph.operations.begin() + static_cast<std::ptrdiff_t>(i));
        changed = true;
      }
    }
  }
}

}  // namespace tinyaot
