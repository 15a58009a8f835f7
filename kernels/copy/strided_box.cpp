#include "kernels/copy/strided_box.h"

#include "kernels/common/validate.h"

namespace tinyaot {

int64_t checked_box_elements(const StridedBox& box, int64_t buffer_elements) {
  if (box.rank < 1 || box.rank > static_cast<int32_t>(kMaxRank)) return -1;
  const int64_t elements = checked_elements(box.dims, static_cast<uint32_t>(box.rank));
  if (elements < 0) return -1;
  // The walk visits offset + partial sums of steps; bounding the sum of
  // |step| * dim keeps every intermediate (including one step past a row's
  // end before it rewinds) inside int32.
  const int64_t offset = box.offset;
  int64_t lowest = offset, highest = offset, reach = offset < 0 ? -offset : offset;
  for (int32_t d = 0; d < box.rank; ++d) {
    const int64_t step = box.steps[d];
    const int64_t span = step * (box.dims[d] - 1);
    if (span < 0)
      lowest += span;
    else
      highest += span;
    reach += (step < 0 ? -step : step) * box.dims[d];
    if (reach > INT32_MAX) return -1;
  }
  if (lowest < 0 || highest >= buffer_elements) return -1;
  return elements;
}

}  // namespace tinyaot
