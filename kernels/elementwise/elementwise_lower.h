// Compile-time broadcasting (host only): turns two input shapes into the
// output shape and the strided walk the elementwise kernels run.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "kernels/elementwise/broadcast.h"

namespace tinyaot {

// Numpy's rule: shapes are aligned at their last axis and each pair of
// extents must match or one of them be 1. nullopt when they are
// incompatible, an extent is below 1 or the rank exceeds kBroadcastRank.
std::optional<std::vector<int32_t>> broadcast_shapes(const std::vector<int32_t>& shape1,
                                                     const std::vector<int32_t>& shape2);

// The walk for inputs of these shapes, with unit axes dropped, contiguous
// axes merged and the rest padded with leading 1s. Same failures as above.
std::optional<BroadcastShape> plan_broadcast(const std::vector<int32_t>& shape1,
                                             const std::vector<int32_t>& shape2);

}  // namespace tinyaot
