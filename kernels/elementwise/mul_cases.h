// The case of mul_s8_fast, asked by its validate on the device and by the
// lowering on the host. Freestanding.
#pragma once

#include <stdint.h>

#include "kernels/elementwise/elementwise.h"
#include "kernels/elementwise/elementwise_mve.h"
#include "tinyaot/load_time.h"

namespace tinyaot {

// A right shift (a rescale below 0.5: every model's input1 * input2 /
// output scale we know) of at most 23, so that the output offset times 2^s
// joins the rounding constant within int32 (add_sub_flat_math.h).
TINYAOT_LOAD_TIME inline bool is_mul_fast_case(const MulParams& p) {
  return p.output_multiplier >= 0 && p.output_shift <= -1 && p.output_shift >= -23;
}

// The case of mul_s8_mve: rows as is_row_broadcast takes them (elementwise_mve.h)
// and a right shift of any size (the vector step adds the output offset
// after the shift).
TINYAOT_LOAD_TIME inline bool is_mul_mve_case(const MulParams& p) {
  return is_row_broadcast(p.shape) && p.output_multiplier >= 0 && p.output_shift <= -1 &&
         p.output_shift >= -31;
}

}  // namespace tinyaot
