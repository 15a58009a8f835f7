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
  StridedBox destination;   // over the output in bytes, walked in input order
  int32_t output_elements;  // exact output size in bytes
  int32_t pad_value;        // output zero point (PAD) or the constant (PADV2)
};

// Operands: input s8 [box elements] -> output s8 [output_elements].
extern const KernelDescriptor kernel_pad_s8_ref;
// The same for int16 tensors: the fill an int16 value.
extern const KernelDescriptor kernel_pad_s16_ref;

}  // namespace tinyaot
