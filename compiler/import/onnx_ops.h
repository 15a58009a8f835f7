// How each ONNX operator is converted. An operator's handler either
// converts the node when the walk reaches it (`visit`), or, for an
// arithmetic operator on reals, records it as pending and `emit`s it when
// the QuantizeLinear ending its region (or a QLinear operator, directly)
// gives the output's quantization.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "compiler/import/onnx_context.h"

namespace tinyaot::onnx_import {

using Visit = void (*)(Importer&, const Node&);
// `in` holds the operator's operands in ONNX's input order (Conv: X, W, B).
using Emit = void (*)(Importer&, const Node&, const std::vector<Operand>& in, const OutputSpec&);

struct OpHandler {
  Visit visit = nullptr;  // nullptr: an arithmetic operator (pending until quantized)
  Emit emit = nullptr;
};

// Keyed by "op_type" for the default domain, "domain:op_type" otherwise.
using HandlerTable = std::map<std::string, OpHandler>;

const HandlerTable& handlers();

void add_constant_handlers(HandlerTable& table);    // onnx_fold.cpp
void add_boundary_handlers(HandlerTable& table);    // onnx_qdq.cpp
void add_movement_handlers(HandlerTable& table);    // onnx_ops_movement.cpp
void add_weighted_handlers(HandlerTable& table);    // onnx_ops_weighted.cpp
void add_arithmetic_handlers(HandlerTable& table);  // onnx_ops_arithmetic.cpp
void add_qoperator_handlers(HandlerTable& table);   // onnx_qoperator.cpp

// Folds a node whose inputs are all constants; false when the operator has
// no folding.
bool fold_constant_node(Importer& importer, const Node& node);

// Emits the pending arithmetic node that value `v` (kPending) stands for,
// quantized by `out`; returns the result's IR tensor and defines nothing.
void emit_pending(Importer& importer, const Value& v, const OutputSpec& out);

// The ONNX shape of a broadcast of `a` and `b` (numpy rules); fails naming
// the node when they do not broadcast.
std::vector<int64_t> broadcast_shape(const Node& node, const std::vector<int64_t>& a,
                                     const std::vector<int64_t>& b);

// An axis attribute or input resolved against `rank` (negative counts from
// the end); fails naming the node when outside.
int32_t resolve_axis(const Node& node, int64_t axis, size_t rank);

}  // namespace tinyaot::onnx_import

namespace tinyaot::onnx_import {

// Records an arithmetic node's result as pending (its emit runs when a
// QuantizeLinear quantizes it).
void visit_pending(Importer& importer, const Node& node);

// The emitters the QDQ regions and the QOperator operators share. Each
// takes the operator's operands in ONNX's order (QDQ) or the equivalent
// ones of the QLinear operator, defines `out.name` as the result.
void emit_conv(Importer& im, const Node& node, const std::vector<Operand>& in,
               const OutputSpec& out);  // X, W, B
void emit_conv_transpose(Importer& im, const Node& node, const std::vector<Operand>& in,
                         const OutputSpec& out);  // X, W, B
void emit_gemm(Importer& im, const Node& node, const std::vector<Operand>& in,
               const OutputSpec& out);  // A, B, C
void emit_matmul(Importer& im, const Node& node, const std::vector<Operand>& in,
                 const OutputSpec& out);  // A, B
void emit_binary(Importer& im, const Node& node, const std::vector<Operand>& in,
                 const OutputSpec& out);  // Add, Sub, Mul: A, B
void emit_unary(Importer& im, const Node& node, const std::vector<Operand>& in,
                const OutputSpec& out);  // X (and Clip's min, max)
void emit_softmax(Importer& im, const Node& node, const std::vector<Operand>& in,
                  const OutputSpec& out);
void emit_average_pool(Importer& im, const Node& node, const std::vector<Operand>& in,
                       const OutputSpec& out);
void emit_global_average_pool(Importer& im, const Node& node, const std::vector<Operand>& in,
                              const OutputSpec& out);
void emit_concat(Importer& im, const Node& node, const std::vector<Operand>& in,
                 const OutputSpec& out);

// The window of a convolution or pooling over the spatial axes of an NCHW
// input: ONNX's kernel_shape (or `kernel`), strides, dilations, auto_pad /
// pads, and the output size (ceil_mode rounds it up: the end padding then
// grows until TFLite's floor rule gives the same size).
struct SpatialWindow {
  std::vector<int64_t> kernel, strides, dilations, pad_begin, pad_end, out;
};
SpatialWindow spatial_window(const Node& node, const std::vector<int64_t>& in,
                             const std::vector<int64_t>& kernel, bool ceil_mode);
// The window as IR attributes (2-D): strides, dilations, explicit padding.
Attributes window_attributes(const SpatialWindow& w);

}  // namespace tinyaot::onnx_import
