// Reference PAD: fill everything with the pad value, then copy the input's
// rows into place. A row is contiguous in the output unless the compiler
// dropped a size-1 innermost input axis that is padded.
#include <string.h>

#include "kernels/pad/pad.h"
#include "tinyaot/load_time.h"

namespace tinyaot {
namespace {

TINYAOT_LOAD_TIME Status validate(const void* raw, const OperandView* inputs, uint32_t num_inputs,
                                  const OperandView* outputs, uint32_t num_outputs) {
  const auto& p = *static_cast<const PadParams*>(raw);
  if (num_inputs != 1 || num_outputs != 1 || p.output_elements < 1) return Status::kBadParams;
  if (p.pad_value < -128 || p.pad_value > 127) return Status::kBadParams;
  if (outputs[0].bytes != static_cast<uint32_t>(p.output_elements)) return Status::kBadParams;
  const int64_t elements = checked_box_elements(p.destination, p.output_elements);
  if (elements < 0 || inputs[0].bytes != elements) return Status::kBadParams;
  return Status::kOk;
}

Status run(const KernelArgs& args) {
  const auto& p = *static_cast<const PadParams*>(args.params);
  const auto* input = static_cast<const int8_t*>(args.inputs[0].data);
  auto* output = static_cast<int8_t*>(args.outputs[0].data);
  memset(output, static_cast<int8_t>(p.pad_value), static_cast<size_t>(p.output_elements));
  for_each_row(p.destination, [&](int32_t start, int32_t length, int32_t step) {
    if (step == 1) {
      memcpy(output + start, input, static_cast<size_t>(length));
    } else {
      for (int32_t i = 0; i < length; ++i) output[start + i * step] = input[i];
    }
    input += length;
  });
  return Status::kOk;
}

}  // namespace

const KernelDescriptor kernel_pad_s8_ref = {
    "pad_s8_ref",
    "pad",
    1,
    sizeof(PadParams),
    1,
    1,
    1,
    IsaClass::kScalar,
    "input:s8[box] -> output:s8[output_elements]; "
    "params=PadParams{StridedBox{rank,offset,dims[6],steps[6]},output_elements,pad_value}",
    run,
    validate,
    nullptr,
};

}  // namespace tinyaot
