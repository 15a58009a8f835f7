// ONNX import: parses the protobuf (onnx::ModelProto), runs ONNX's checker
// and shape inference, then converts the quantized graph (QDQ regions and
// QOperator operators) into the same IR the TFLite importer builds. A float
// operator outside a quantized region, an operator tinyaot cannot run
// exactly, and any malformed input are refused with an error that names the
// node (its name or index), its operator and why.
#pragma once

#include <cstddef>
#include <cstdint>

#include "compiler/ir/graph.h"

namespace tinyaot {

struct OnnxImportOptions {
  // Rank-4 graph inputs and outputs in NHWC (the kernels' layout) rather
  // than the model's NCHW: no transposes at the program's boundary.
  bool nhwc_io = false;
};

// Throws CompileError (compiler/lower/lowering.h) on any problem.
Graph import_onnx(const uint8_t* data, size_t bytes, const OnnxImportOptions& options);

}  // namespace tinyaot
