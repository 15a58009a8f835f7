// Compile-time construction of a StridedBox (host only).
#pragma once

#include <vector>

#include "kernels/copy/strided_box.h"

namespace tinyaot {

// Row-major strides of a shape: the step of each dimension in a dense
// buffer of that shape.
std::vector<int64_t> dense_strides(const std::vector<int32_t>& shape);

// The box with these dimensions and steps, simplified so the kernel walks
// as few, as long rows as possible: size-1 dimensions are dropped and a
// dimension whose step spans exactly its inner neighbour is merged into it.
// At least one dimension remains. Dims and steps have the same length, at
// most kMaxRank. Dims, steps and offset count elements of `element_bytes`
// bytes; the box counts bytes (the kernels move bytes).
StridedBox make_strided_box(const std::vector<int32_t>& dims, const std::vector<int64_t>& steps,
                            int64_t offset, int32_t element_bytes = 1);

}  // namespace tinyaot
