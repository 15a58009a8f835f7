// TFLite's per-axis STRIDED_SLICE index resolution (host only), kept apart
// from the lowering so tests can check the clamping rules directly.
#pragma once

#include <cstdint>

namespace tinyaot {

struct SliceAxisSpec {
  int32_t begin = 0, end = 0, stride = 1;
  bool begin_masked = false, end_masked = false, shrink = false;
};

struct SliceAxis {
  int64_t start;  // first input index visited
  int64_t count;  // elements visited (0: empty slice)
};

// Start and element count along one axis of size `axis_size`, as TFLite's
// reference kernel walks it: negative indices count from the end, begin is
// clamped to [0, size] ([-1, size-1] for a negative stride) before the
// begin mask overrides it, end likewise before the end mask, and a shrunk
// axis takes exactly the element at start. stride must be non-zero.
SliceAxis resolve_slice_axis(const SliceAxisSpec& spec, int32_t axis_size);

}  // namespace tinyaot
