#include "compiler/lower/operation_macs.h"

namespace tinyaot {
namespace {

const std::vector<int32_t>& shape_of(const Graph& graph, int32_t tensor) {
  return graph.tensors[static_cast<size_t>(tensor)].shape;
}

uint64_t elements_of(const Graph& graph, int32_t tensor) {
  return static_cast<uint64_t>(graph.tensors[static_cast<size_t>(tensor)].num_elements());
}

// The product of dims [first, end) of a shape; 0 when it lacks them.
uint64_t product(const std::vector<int32_t>& shape, size_t first, size_t end) {
  if (end > shape.size()) return 0;
  uint64_t n = 1;
  for (size_t d = first; d < end; ++d) n *= static_cast<uint64_t>(shape[d]);
  return n;
}

}  // namespace

uint64_t operation_macs(const Graph& graph, const Operation& op) {
  if (op.inputs.size() < 2 || op.outputs.empty() || op.inputs[1] < 0) return 0;
  const std::vector<int32_t>& second = shape_of(graph, op.inputs[1]);
  const uint64_t outputs = elements_of(graph, op.outputs[0]);
  switch (op.type) {
    case OpType::kConv2d:  // filter [out channels, h, w, depth per group]
      return outputs * product(second, 1, 4);
    case OpType::kDepthwiseConv2d:  // filter [1, h, w, channels]
      return outputs * product(second, 1, 3);
    case OpType::kFullyConnected:  // weights [units, depth]
      return outputs * product(second, 1, 2);
    case OpType::kTransposeConv:  // inputs: output shape, filter [out, h, w, in], data;
      // every input element meets out x h x w weights
      if (op.inputs.size() < 3 || op.inputs[2] < 0) return 0;
      return elements_of(graph, op.inputs[2]) * product(second, 0, 3);
    case OpType::kBatchMatMul: {  // each output element: one row of depth products
      const std::vector<int32_t>& lhs = shape_of(graph, op.inputs[0]);
      if (lhs.size() < 2) return 0;
      return outputs * static_cast<uint64_t>(op.attrs.adj_x ? lhs[lhs.size() - 2] : lhs.back());
    }
    case OpType::kUnidirectionalSequenceLstm: {  // per output row, 4 gates x (input + units)
      if (op.inputs.size() < 3 || op.inputs[2] < 0) return 0;
      const std::vector<int32_t>& weights = shape_of(graph, op.inputs[2]);  // [units, input]
      if (weights.size() != 2) return 0;
      return outputs * 4 * static_cast<uint64_t>(weights[1] + weights[0]);
    }
    case OpType::kSvdf: {  // per batch: the feature products, then the time products
      if (op.inputs.size() < 3 || op.inputs[2] < 0 || shape_of(graph, op.inputs[0]).empty())
        return 0;
      const auto batches = static_cast<uint64_t>(shape_of(graph, op.inputs[0])[0]);
      return batches * (elements_of(graph, op.inputs[1]) + elements_of(graph, op.inputs[2]));
    }
    default:
      return 0;
  }
}

}  // namespace tinyaot
