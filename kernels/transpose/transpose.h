// TRANSPOSE, int8: output[i_0..i_{r-1}] = input at i_k along input axis
// perm[k]. The compiler turns the permutation into a strided box over the
// input (output dims, permuted input strides), merged where axes stay
// adjacent, so the kernel is a plain gather.
#pragma once

#include <stdint.h>

#include "kernels/copy/strided_box.h"
#include "tinyaot/kernel_abi.h"

namespace tinyaot {

struct TransposeParams {
  StridedBox source;       // over the input, walked in output order
  int32_t input_elements;  // exact input size
};

// Operands: input s8 [input_elements] -> output s8 [box elements].
extern const KernelDescriptor kernel_transpose_s8_ref;

}  // namespace tinyaot
