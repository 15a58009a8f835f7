// CONCATENATION, int8, any axis: viewed as [outer, axis * inner] per input,
// the output row o is input 0's row o, then input 1's, ... The compiler
// reduces every shape to `outer` and each input's bytes per row.
#pragma once

#include <stdint.h>

#include "tinyaot/kernel_abi.h"
#include "tinyaot/program_format.h"

namespace tinyaot {

// One operand slot is the output.
constexpr uint32_t kConcatenationMaxInputs = kMaxOperands - 1;

struct ConcatenationParams {
  int32_t num_inputs;                          // 1..kConcatenationMaxInputs
  int32_t outer;                               // product of the dims before the axis
  int32_t row_bytes[kConcatenationMaxInputs];  // per input: axis dim * inner dims
};

// Operands: inputs s8 [outer, row_bytes[i]] -> output s8 [outer, sum row_bytes].
extern const KernelDescriptor kernel_concatenation_s8_ref;

}  // namespace tinyaot
