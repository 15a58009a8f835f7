// Constant tensors of an ONNX graph (initializers, Constant nodes, and what
// the importer folds from them), decoded from TensorProto into plain
// vectors: integers exactly as int64, reals as double.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "onnx/onnx_pb.h"

namespace tinyaot::onnx_import {

// ONNX element types the importer reads (onnx::TensorProto_DataType).
enum ElementType : int32_t {
  kFloat = onnx::TensorProto_DataType_FLOAT,
  kUint8 = onnx::TensorProto_DataType_UINT8,
  kInt8 = onnx::TensorProto_DataType_INT8,
  kInt32 = onnx::TensorProto_DataType_INT32,
  kInt64 = onnx::TensorProto_DataType_INT64,
  kBool = onnx::TensorProto_DataType_BOOL,
  kDouble = onnx::TensorProto_DataType_DOUBLE,
};

const char* element_type_name(int32_t type);
bool is_integer_type(int32_t type);
bool is_real_type(int32_t type);

struct Constant {
  int32_t type = kFloat;
  std::vector<int64_t> dims;
  std::vector<int64_t> ints;  // integer and bool types
  std::vector<double> reals;  // float and double

  int64_t elements() const;
  // Element i as an integer (reals truncated toward zero) or as a real.
  int64_t integer(size_t i) const;
  double real(size_t i) const;
  std::vector<int64_t> integers() const;
};

// The largest constant the importer decodes (weights of a model for a
// microcontroller are far below it).
constexpr int64_t kMaxConstantElements = int64_t{1} << 24;

// Decodes `proto`; throws CompileError naming `where` on a type the
// importer does not read, external data, or data that disagrees with the
// dims.
Constant read_constant(const onnx::TensorProto& proto, const std::string& where);

// Product of `dims`, or -1 when a dim is negative or the product exceeds
// kMaxConstantElements.
int64_t checked_elements(const std::vector<int64_t>& dims);

// A constant of `type` holding `values` (converted to the type's domain).
Constant make_integer_constant(int32_t type, std::vector<int64_t> dims,
                               std::vector<int64_t> values);
Constant make_real_constant(std::vector<int64_t> dims, std::vector<double> values);

// Cast to `type` with ONNX's Cast semantics for the types read here
// (integers wrap, reals to integers truncate toward zero); throws CompileError
// naming `where` when a real is out of the target's range.
Constant cast_constant(const Constant& c, int32_t type, const std::string& where);

// `c` with its axes permuted: output axis k is input axis perm[k].
Constant transpose_constant(const Constant& c, const std::vector<int32_t>& perm);

}  // namespace tinyaot::onnx_import
