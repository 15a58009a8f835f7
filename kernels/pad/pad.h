// PAD / PADV2, int8: the output is the input surrounded by a constant. The
// compiler describes where the input lands as a strided box over the
// output (input dims, output strides, offset of the first element), merged
// where no axis is padded, so the kernel fills the output and copies rows.
#pragma once

#include <stdint.h>

#include "kernels/copy/strided_box.h"
#include "tinyaot/kernel_abi.h"

namespace tinyaot {

struct PadParams {
  StridedBox destination;   // over the output, walked in input order
  int32_t output_elements;  // exact output size
  int32_t pad_value;        // int8: output zero point (PAD) or the constant (PADV2)
};

// Operands: input s8 [box elements] -> output s8 [output_elements].
extern const KernelDescriptor kernel_pad_s8_ref;

}  // namespace tinyaot
