// Compile-time half of SOFTMAX (host only), exposed so tests can check the
// table the kernel reads.
#pragma once

#include <cstdint>
#include <vector>

#include "compiler/lower/lowering.h"

namespace tinyaot {

// gemmlowp exp of every difference max(row) - x in 0..255 after TFLite's
// beta * input_scale rescale, Q0.31; 0 where TFLite skips the difference.
// `op` names the operation in errors.
std::vector<int32_t> softmax_exp_table(double beta, double input_scale, Rounding rounding,
                                       const Operation& op);

}  // namespace tinyaot
