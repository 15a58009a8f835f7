// STRIDED_SLICE, int8. The compiler resolves begin/end/strides, the masks
// and TFLite's clamping into a strided box over the input (start offset,
// element count and signed step per axis); the kernel is a plain gather.
#pragma once

#include <stdint.h>

#include "kernels/copy/strided_box.h"
#include "tinyaot/kernel_abi.h"

namespace tinyaot {

struct StridedSliceParams {
  StridedBox source;       // over the input, walked in output order
  int32_t input_elements;  // exact input size
};

// Operands: input s8 [input_elements] -> output s8 [box elements].
extern const KernelDescriptor kernel_strided_slice_s8_ref;

}  // namespace tinyaot
