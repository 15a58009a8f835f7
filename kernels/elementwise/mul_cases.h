// The case of mul_s8_fast, asked by its validate on the device and by the
// lowering on the host. Freestanding.
#pragma once

#include <stdint.h>

#include "kernels/elementwise/elementwise.h"

namespace tinyaot {

// A right shift (a rescale below 0.5: every model's input1 * input2 /
// output scale we know) of at most 23, so that the output offset times 2^s
// joins the rounding constant within int32 (add_sub_flat_math.h).
inline bool is_mul_fast_case(const MulParams& p) {
  return p.output_multiplier >= 0 && p.output_shift <= -1 && p.output_shift >= -23;
}

}  // namespace tinyaot
