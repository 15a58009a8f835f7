// What the ONNX importer knows about each value of the graph while it walks
// the nodes. A value is a constant, an int8 tensor of the IR (an
// activation), the real-valued reading of an activation or of an integer
// constant (the output of a DequantizeLinear), a float operator's result
// waiting for the QuantizeLinear that gives it its quantization, or a float
// graph input.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "compiler/import/onnx_constant.h"

namespace tinyaot::onnx_import {

// How a quantized tensor's integers read as reals. Zero points are in the
// int8 domain: a uint8 tensor's are stored minus 128, as its values are.
struct QuantParams {
  std::vector<float> scales;  // one, or one per slice along `axis`
  std::vector<int32_t> zero_points;
  int32_t axis = -1;     // ONNX axis of per-axis parameters; -1 per tensor
  int32_t type = kInt8;  // the ONNX element type of the integers: int8, uint8, int32
  bool per_axis() const { return axis >= 0; }
  float scale() const { return scales.empty() ? 0.0f : scales[0]; }
  int32_t zero_point() const { return zero_points.empty() ? 0 : zero_points[0]; }
  // Same real reading (the element type of the integers aside).
  bool same_reading(const QuantParams& other) const {
    return scales == other.scales && zero_points == other.zero_points &&
           (axis == other.axis || scales.size() == 1);
  }
};

enum class ValueKind {
  kConstant,     // `constant`
  kActivation,   // IR tensor `tensor` (int8), ONNX shape `shape`, laid out by `layout`
  kDequantized,  // reals: the activation or constant named `source`, read with `quant`
  kPending,      // reals: node `node`'s float result, clamped to [clamp_min, clamp_max]
  kFloatInput,   // a float32 graph input: IR tensor `tensor`
};

// IR axis i of an activation holds ONNX axis layout[i]. Rank-4 tensors the
// convolutions read or write are NHWC: {0, 2, 3, 1} of ONNX's NCHW.
using Layout = std::vector<int32_t>;

Layout identity_layout(size_t rank);
Layout nhwc_layout();
bool is_identity(const Layout& layout);
// The IR shape of an ONNX shape laid out by `layout`.
std::vector<int32_t> ir_shape(const std::vector<int64_t>& shape, const Layout& layout);
// True when both layouts put the elements in the same memory order (they
// differ only in where size-1 axes sit), so a reshape turns one into the
// other without moving bytes.
bool same_memory_order(const std::vector<int64_t>& shape, const Layout& a, const Layout& b);

struct Value {
  ValueKind kind = ValueKind::kConstant;
  std::vector<int64_t> shape;  // ONNX dims
  Constant constant;
  int32_t tensor = -1;
  Layout layout;
  int32_t type = kInt8;  // kActivation: the ONNX element type (int8 or uint8)
  // kActivation of a Flatten whose input was permuted: `tensor` holds the
  // input (ONNX shape flatten_source, laid out by flatten_layout) and
  // reading it as this value's 2-D shape (`layout` the identity) needs
  // ONNX's element order: a fully connected consumer permutes its weights
  // instead, any other gets a transposed copy.
  std::vector<int64_t> flatten_source;
  Layout flatten_layout;
  // kActivation of a graph input whose quantization its first reader
  // (a DequantizeLinear or QLinear operator) gives.
  bool quant_unset = false;
  std::string source;  // kDequantized
  QuantParams quant;   // kDequantized
  int32_t node = -1;   // kPending
  float clamp_min = -INFINITY, clamp_max = INFINITY;
};

// One operand of an arithmetic operator: an activation or an integer
// constant read as reals through `quant`, or a plain constant (`quant`
// empty), or absent (value nullptr).
struct Operand {
  const Value* value = nullptr;
  QuantParams quant;
  std::string name;  // the ONNX value (the constant or activation behind a view)
  bool present() const { return value != nullptr; }
  bool quantized() const { return !quant.scales.empty(); }
  bool is_activation() const { return value && value->kind == ValueKind::kActivation; }
  bool is_constant() const { return value && value->kind == ValueKind::kConstant; }
};

// Where an arithmetic operator's result goes: the quantization of the
// QuantizeLinear that ends its region (or of a QLinear operator's output),
// and the Relu / Clip folded between them.
struct OutputSpec {
  std::string name;
  QuantParams quant;
  float clamp_min = -INFINITY, clamp_max = INFINITY;
  bool clamped() const { return std::isfinite(clamp_min) || std::isfinite(clamp_max); }
};

}  // namespace tinyaot::onnx_import
