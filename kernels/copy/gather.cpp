#include "kernels/copy/gather.h"

#include <string.h>

#include "tinyaot/load_time.h"

namespace tinyaot {

TINYAOT_LOAD_TIME Status validate_gather(const StridedBox& source, int32_t input_elements,
                                         const OperandView* inputs, uint32_t num_inputs,
                                         const OperandView* outputs, uint32_t num_outputs) {
  if (num_inputs != 1 || num_outputs != 1 || input_elements < 1) return Status::kBadParams;
  if (inputs[0].bytes != static_cast<uint32_t>(input_elements)) return Status::kBadParams;
  const int64_t elements = checked_box_elements(source, input_elements);
  if (elements < 0 || outputs[0].bytes != elements) return Status::kBadParams;
  return Status::kOk;
}

void run_gather(const StridedBox& source, const int8_t* input, int8_t* output) {
  for_each_row(source, [&](int32_t start, int32_t length, int32_t step) {
    if (step == 1) {
      memcpy(output, input + start, static_cast<size_t>(length));
    } else {
      for (int32_t i = 0; i < length; ++i) output[i] = input[start + i * step];
    }
    output += length;
  });
}

}  // namespace tinyaot
