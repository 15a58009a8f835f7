// Numpy-style broadcasting for binary elementwise operators, as a walk over
// the output in row-major order. The compiler does all the shape work: it
// extends both inputs to the output's rank, gives each input a stride of 0
// along the axes it is broadcast on, merges axes that stay contiguous and
// pads the result to kBroadcastRank. The kernel only steps pointers.
//
// Freestanding and header-only.
#pragma once

#include <stdint.h>

#include "kernels/common/validate.h"
#include "tinyaot/load_time.h"
#include "tinyaot/status.h"

namespace tinyaot {

constexpr int kBroadcastRank = 6;

struct BroadcastShape {
  int32_t dims[kBroadcastRank];      // output extents, outermost first
  int32_t strides1[kBroadcastRank];  // elements input 1 advances per step (0: broadcast)
  int32_t strides2[kBroadcastRank];
};

// Elements one input must hold for the walk to stay inside it: its largest
// offset plus one; -1 when a stride is negative or the span overflows.
inline int64_t broadcast_span(const int32_t* dims, const int32_t* strides) {
  int64_t span = 1;
  for (int d = 0; d < kBroadcastRank; ++d) {
    int64_t reach = 0;
    if (strides[d] < 0 || !checked_mul(dims[d] - 1, strides[d], &reach)) return -1;
    span += reach;
    if (span > INT32_MAX) return -1;
  }
  return span;
}

// The two inputs must be exactly as large as the walk reaches (a broadcast
// reads every input element), and the output as large as the walk.
TINYAOT_LOAD_TIME inline Status validate_broadcast(const BroadcastShape& shape,
                                                   uint32_t input1_elements,
                                                   uint32_t input2_elements,
                                                   uint32_t output_elements) {
  const int64_t total = checked_elements(shape.dims, kBroadcastRank);
  if (total < 1 || total != output_elements) return Status::kBadParams;
  if (broadcast_span(shape.dims, shape.strides1) != input1_elements ||
      broadcast_span(shape.dims, shape.strides2) != input2_elements)
    return Status::kBadParams;
  return Status::kOk;
}

// row(a_row, b_row, out_row, n) for every row of the output in order: the
// row's first elements of `a`, `b` and `out` and its length n (the
// innermost dimension; the inputs' innermost strides are the caller's).
// Offsets are stepped back before they would pass the end of an axis, so
// they never leave [0, span) and stay within int32.
template <typename In, typename Out, typename Row>
inline void broadcast_rows(const BroadcastShape& shape, const In* a, const In* b, Out* out,
                           const Row& row) {
  constexpr int kInner = kBroadcastRank - 1;
  const int32_t length = shape.dims[kInner];
  int32_t index[kInner] = {};
  int32_t offset1 = 0;
  int32_t offset2 = 0;
  for (;;) {
    row(a + offset1, b + offset2, out, length);
    out += length;
    int d = kInner - 1;
    for (; d >= 0; --d) {
      if (++index[d] < shape.dims[d]) {
        offset1 += shape.strides1[d];
        offset2 += shape.strides2[d];
        break;
      }
      index[d] = 0;
      offset1 -= shape.strides1[d] * (shape.dims[d] - 1);
      offset2 -= shape.strides2[d] * (shape.dims[d] - 1);
    }
    if (d < 0) return;
  }
}

// out[i] = op(a[offset1(i)], b[offset2(i)]) over the output in order.
template <typename In, typename Out, typename Op>
inline void broadcast_walk(const BroadcastShape& shape, const In* a, const In* b, Out* out,
                           const Op& op) {
  const int32_t stride1 = shape.strides1[kBroadcastRank - 1];
  const int32_t stride2 = shape.strides2[kBroadcastRank - 1];
  broadcast_rows(shape, a, b, out, [&](const In* row1, const In* row2, Out* o, int32_t n) {
    for (int32_t i = 0; i < n; ++i) o[i] = op(row1[i * stride1], row2[i * stride2]);
  });
}

}  // namespace tinyaot
