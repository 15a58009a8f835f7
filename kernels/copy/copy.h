// COPY: a byte copy, the fallback for reshape-like operators (RESHAPE,
// SQUEEZE, EXPAND_DIMS) the planner cannot turn into an alias, e.g. when a
// model input is also a model output. Any element type: bytes are bytes.
#pragma once

#include <stdint.h>

#include "tinyaot/kernel_abi.h"

namespace tinyaot {

struct CopyParams {
  int32_t bytes;  // size of the input and of the output
};

// Operands: input [bytes] -> output [bytes].
extern const KernelDescriptor kernel_copy_s8;

}  // namespace tinyaot
