// The importer for a model's bytes: TensorFlow Lite (the "TFL3" file
// identifier) or ONNX (a protobuf ModelProto), recognized from the bytes,
// whatever the file is called.
#pragma once

#include <cstddef>
#include <cstdint>

#include "compiler/import/onnx_importer.h"
#include "compiler/ir/graph.h"

namespace tinyaot {

enum class ModelFormat { kTflite, kOnnx };

ModelFormat detect_model_format(const uint8_t* data, size_t bytes);
const char* model_format_name(ModelFormat format);

// Throws CompileError on any problem; an unrecognized file gets the TFLite
// importer's message (it names the missing identifier).
Graph import_model(const uint8_t* data, size_t bytes, const OnnxImportOptions& onnx_options);

}  // namespace tinyaot
