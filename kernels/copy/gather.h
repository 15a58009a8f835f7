// The gather both TRANSPOSE and STRIDED_SLICE run: walk a strided box over
// the input and write what it visits contiguously to the output.
#pragma once

#include <stdint.h>

#include "kernels/copy/strided_box.h"
#include "tinyaot/kernel_abi.h"
#include "tinyaot/status.h"

namespace tinyaot {

// Kernel validation of a gather: one input of exactly `input_elements`
// bytes holding the whole box, one output of exactly the box's size.
TINYAOT_LOAD_TIME Status validate_gather(const StridedBox& source, int32_t input_elements,
                                         const OperandView* inputs, uint32_t num_inputs,
                                         const OperandView* outputs, uint32_t num_outputs);

void run_gather(const StridedBox& source, const int8_t* input, int8_t* output);

}  // namespace tinyaot
