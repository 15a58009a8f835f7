// The cases of the pooling variants, asked by their validate on the device
// and by the lowering on the host, so the compiler never picks a variant
// the loader would refuse. Freestanding.
#pragma once

#include <stdint.h>

#include "kernels/pooling/pool_window.h"
#include "kernels/pooling/pooling.h"
#include "tinyaot/load_time.h"

namespace tinyaot {

// avg_pool2d_s8_sum16 sums a channel in 16 bits: 256 int8 cells reach
// -32768 at worst and 32512 at best, and 256 values biased to [0, 255]
// stay below 65536.
#define TINYAOT_POOL_SUM16_MAX_CELLS 256
constexpr int64_t kSum16MaxCells = TINYAOT_POOL_SUM16_MAX_CELLS;

// The bound as text, for the variant's signature.
#define TINYAOT_POOL_TEXT_(x) #x
#define TINYAOT_POOL_TEXT(x) TINYAOT_POOL_TEXT_(x)

TINYAOT_LOAD_TIME inline bool is_avg_pool2d_sum16_case(const Pool2dParams& p) {
  return pool_window_cells(p) <= kSum16MaxCells;
}

}  // namespace tinyaot
