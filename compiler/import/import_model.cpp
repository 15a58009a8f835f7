#include "compiler/import/import_model.h"

#include <climits>
#include <cstring>

#include "compiler/import/tflite_importer.h"
#include "onnx/onnx_pb.h"

namespace tinyaot {

ModelFormat detect_model_format(const uint8_t* data, size_t bytes) {
  if (data == nullptr || bytes == 0) return ModelFormat::kTflite;
  if (bytes >= 8 && std::memcmp(data + 4, "TFL3", 4) == 0) return ModelFormat::kTflite;
  // A ModelProto starts with its ir_version (field 1, a varint: tag 0x08)
  // as every ONNX writer orders the fields; a truncated one still does.
  if (data[0] == 0x08) return ModelFormat::kOnnx;
  onnx::ModelProto model;
  if (bytes <= static_cast<size_t>(INT_MAX) &&
      model.ParseFromArray(data, static_cast<int>(bytes)) && model.has_graph())
    return ModelFormat::kOnnx;
  return ModelFormat::kTflite;
}

const char* model_format_name(ModelFormat format) {
  return format == ModelFormat::kOnnx ? "ONNX" : "TensorFlow Lite";
}

Graph import_model(const uint8_t* data, size_t bytes, const OnnxImportOptions& onnx_options) {
  if (detect_model_format(data, bytes) == ModelFormat::kOnnx)
    return import_onnx(data, bytes, onnx_options);
  return import_tflite(data, bytes);
}

}  // namespace tinyaot
