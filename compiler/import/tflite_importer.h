// TFLite import: verifies the flatbuffer, then reads the one subgraph into
// the IR, refusing anything tinyaot cannot compile with an error that names
// the operator or tensor and where it is.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "compiler/ir/graph.h"

namespace tinyaot {

// Throws CompileError (compiler/lower/lowering.h) on any problem.
Graph import_tflite(const uint8_t* data, size_t bytes);

// "ADD, AVERAGE_POOL_2D, ...": the TFLite operators the importer takes, as
// its refusal of another one lists them.
std::string supported_tflite_op_names();

}  // namespace tinyaot
