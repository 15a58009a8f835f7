#include "kernels/copy/strided_box_lower.h"

#include <stdexcept>

#include "compiler/lower/lowering.h"

namespace tinyaot {

std::vector<int64_t> dense_strides(const std::vector<int32_t>& shape) {
  std::vector<int64_t> strides(shape.size(), 1);
  for (size_t d = shape.size(); d-- > 1;) strides[d - 1] = strides[d] * shape[d];
  return strides;
}

StridedBox make_strided_box(const std::vector<int32_t>& dims, const std::vector<int64_t>& steps,
                            int64_t offset, int32_t element_bytes) {
  if (dims.size() != steps.size() || dims.size() > kMaxRank || element_bytes < 1)
    throw CompileError("internal: strided box of bad rank");
  // Built innermost first, reversed at the end. Wider elements are an
  // innermost axis of their bytes, which merges into any contiguous row.
  std::vector<int64_t> kept_dims, kept_steps;
  if (element_bytes > 1) {
    kept_dims.push_back(element_bytes);
    kept_steps.push_back(1);
  }
  for (size_t d = dims.size(); d-- > 0;) {
    if (dims[d] == 1) continue;
    const int64_t step = steps[d] * element_bytes;
    if (!kept_dims.empty() && step == kept_steps.back() * kept_dims.back()) {
      kept_dims.back() *= dims[d];
      continue;
    }
    kept_dims.push_back(dims[d]);
    kept_steps.push_back(step);
  }
  offset *= element_bytes;
  if (kept_dims.size() > kMaxRank)
    throw CompileError("a strided access over " + std::to_string(element_bytes) +
                       "-byte elements needs more than " + std::to_string(kMaxRank) + " axes");
  if (kept_dims.empty()) {
    kept_dims.push_back(1);
    kept_steps.push_back(1);
  }
  StridedBox box{};
  box.rank = static_cast<int32_t>(kept_dims.size());
  auto narrow = [](int64_t value) {
    if (value < INT32_MIN || value > INT32_MAX)
      throw CompileError("strided access does not fit 32-bit indices");
    return static_cast<int32_t>(value);
  };
  box.offset = narrow(offset);
  for (int32_t d = 0; d < box.rank; ++d) {
    box.dims[d] = narrow(kept_dims[kept_dims.size() - 1 - static_cast<size_t>(d)]);
    box.steps[d] = narrow(kept_steps[kept_steps.size() - 1 - static_cast<size_t>(d)]);
  }
  return box;
}

}  // namespace tinyaot
