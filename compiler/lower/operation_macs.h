// Multiply-accumulates per operation: a compile-time fact of the shapes,
// computed once here and recorded in the program's debug info, so
// `tinyaot report` and `tinyaot bench --per-op` read the same figure.
#pragma once

#include <cstdint>

#include "compiler/ir/graph.h"

namespace tinyaot {

// The multiply-accumulates of the operator's product with its weights or
// its second matrix, as the model defines it: every output element of a
// convolution takes filter height x width x depth of them, padding
// included (TFLite's convention). Operators without such a product
// (pooling, element-wise, activations, data movement) count 0.
uint64_t operation_macs(const Graph& graph, const Operation& op);

}  // namespace tinyaot
