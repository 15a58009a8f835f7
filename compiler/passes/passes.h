// The graph passes. The order they run in is defined once, in
// compiler/pipeline.cpp; nothing else strings passes together.
#pragma once

#include "compiler/ir/graph.h"
#include "compiler/lower/lowering.h"

namespace tinyaot {

// Fused activation functions become each operation's int8 clamp range.
void resolve_activations(Graph& graph, const Target& target);
// A standalone RELU/RELU6 that only narrows its producer's clamp (same
// quantization in and out) is folded into the producer.
void fold_activations(Graph& graph, const Target& target);
// An explicit PAD whose value is the zero point becomes the following
// convolution's padding (kernels/conv2d/fold_pad.cpp).
void fold_pad_into_conv(Graph& graph);
// RESHAPE, SQUEEZE and EXPAND_DIMS become aliases: no kernel, no bytes.
void alias_reshapes(Graph& graph, const Target& target);
// Operations whose outputs nobody reads are dropped.
void remove_dead_operations(Graph& graph, const Target& target);

}  // namespace tinyaot
