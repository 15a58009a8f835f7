// A strided box: the one index walk behind TRANSPOSE, STRIDED_SLICE and PAD.
//
// The compiler reduces each of those operators to a box of up to kMaxRank
// dimensions laid over a flat buffer: element (i0, ..., i_{r-1}) of the box,
// taken in row-major order, sits at `offset + sum_d i_d * steps[d]` in the
// buffer. A gather (transpose, slice) walks the box over its input and
// writes the output contiguously; a scatter (pad) walks it over its output
// and reads the input contiguously. Steps may be negative (reversed slices).
#pragma once

#include <stdint.h>

#include "tinyaot/program_format.h"

namespace tinyaot {

struct StridedBox {
  int32_t rank;  // 1..kMaxRank
  int32_t offset;
  int32_t dims[kMaxRank];
  int32_t steps[kMaxRank];
};

// Elements of the box if it lies entirely inside a buffer of
// `buffer_elements` and no index computed while walking it can overflow
// int32; -1 otherwise. What every kernel built on a box validates first.
int64_t checked_box_elements(const StridedBox& box, int64_t buffer_elements);

// Calls row(start, length, step) once per innermost row, rows in row-major
// order: `start` is the buffer index of the row's first element.
template <typename RowFn>
inline void for_each_row(const StridedBox& box, RowFn row) {
  const int32_t inner = box.rank - 1;
  int32_t counter[kMaxRank] = {};
  int32_t start = box.offset;
  for (;;) {
    row(start, box.dims[inner], box.steps[inner]);
    int32_t d = inner - 1;
    for (; d >= 0; --d) {
      start += box.steps[d];
      if (++counter[d] < box.dims[d]) break;
      // checked_box_elements bounds |steps[d]| * dims[d], so no overflow.
      start -= box.steps[d] * box.dims[d];
      counter[d] = 0;
    }
    if (d < 0) return;
  }
}

}  // namespace tinyaot
