#include "compiler/ir/graph.h"

#include <algorithm>

namespace tinyaot {

const char* op_type_name(OpType type) {
  switch (type) {
#define TINYAOT_OP_NAME(id, name) \
  case OpType::id:                \
    return name;
    TINYAOT_OP_LIST(TINYAOT_OP_NAME)
#undef TINYAOT_OP_NAME
  }
  return "UNKNOWN";
}

static int64_t dtype_size(DType dtype) {
  switch (dtype) {
    case DType::kInt8:
      return 1;
    case DType::kInt16:
      return 2;
    case DType::kInt32:
    case DType::kFloat32:
      return 4;
    case DType::kInt64:
      return 8;
  }
  return 1;
}

int64_t Tensor::num_elements() const {
  int64_t n = 1;
  for (int32_t d : shape) n *= d;
  return n;
}

int64_t Tensor::bytes() const { return num_elements() * dtype_size(dtype); }

int32_t Graph::storage_of(int32_t id) const {
  while (id >= 0 && tensors[static_cast<size_t>(id)].alias_of >= 0)
    id = tensors[static_cast<size_t>(id)].alias_of;
  return id;
}

std::vector<int32_t> Graph::consumers(int32_t id) const {
  std::vector<int32_t> out;
  for (size_t i = 0; i < operations.size(); ++i) {
    const auto& in = operations[i].inputs;
    if (std::find(in.begin(), in.end(), id) != in.end()) out.push_back(static_cast<int32_t>(i));
  }
  return out;
}

int32_t Graph::producer(int32_t id) const {
  for (size_t i = 0; i < operations.size(); ++i) {
    const auto& out = operations[i].outputs;
    if (std::find(out.begin(), out.end(), id) != out.end()) return static_cast<int32_t>(i);
  }
  return -1;
}

}  // namespace tinyaot
