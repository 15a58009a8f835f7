// The weight layout of the MVE matrix-multiply variants (gemm_mve.h),
// written once: the compiler stores the weights so, the sweeps reorder
// their random weights so, and the kernels read them so (freestanding,
// header-only, host and device).
#pragma once

#include <stdint.h>

namespace tinyaot {

// Rows per group and lanes per block of the layout below.
constexpr int32_t kMveRows = 4;
constexpr int32_t kMveBlock = 16;

// Where weight [row][d] of a [rows][depth] matrix goes: rows in groups of
// kMveRows, the depth in blocks of kMveBlock; per block of a group, the
// block of its first row, of its second, and so on, then each row's last
// depth % kMveBlock weights. Rows past the last whole group stay as they
// are. One pointer walks a group, its four loads a block at immediate
// offsets 0, 16, 32 and 48. Same size as the model's [rows][depth].
inline int64_t mve_weight_position(int32_t rows, int32_t depth, int32_t row, int32_t d) {
  const int32_t grouped = rows - rows % kMveRows;
  if (row >= grouped) return int64_t{row} * depth + d;
  const int32_t in_group = row % kMveRows;
  const int32_t block = d - d % kMveBlock;
  const int32_t width = depth - block < kMveBlock ? depth - block : kMveBlock;
  return int64_t{row - in_group} * depth + int64_t{block} * kMveRows + in_group * width +
         d % kMveBlock;
}

// Model-order weights [rows][depth] into that layout (`out` as large).
inline void order_mve_weights(const int8_t* model, int32_t rows, int32_t depth, int8_t* out) {
  for (int32_t row = 0; row < rows; ++row)
    for (int32_t d = 0; d < depth; ++d)
      out[mve_weight_position(rows, depth, row, d)] = model[int64_t{row} * depth + d];
}

}  // namespace tinyaot
