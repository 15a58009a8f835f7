// Reference PAD: fill everything with the pad value, then copy the input's
// rows into place. A row is contiguous in the output unless the compiler
// dropped a size-1 innermost input axis that is padded. The box and sizes
// are in bytes for either element type; only the fill differs.
#include <string.h>

#include "kernels/pad/pad.h"
#include "tinyaot/load_time.h"

namespace tinyaot {
namespace {

template <typename T>
TINYAOT_LOAD_TIME Status validate(const void* raw, const OperandView* inputs, uint32_t num_inputs,
                                  const OperandView* outputs, uint32_t num_outputs) {
  const auto& p = *static_cast<const PadParams*>(raw);
  if (num_inputs != 1 || num_outputs != 1 || p.output_elements < 1) return Status::kBadParams;
  constexpr int32_t kMin = sizeof(T) == 2 ? -32768 : -128;
  constexpr int32_t kMax = sizeof(T) == 2 ? 32767 : 127;
  if (p.pad_value < kMin || p.pad_value > kMax || p.output_elements % sizeof(T) != 0)
    return Status::kBadParams;
  if (outputs[0].bytes != static_cast<uint32_t>(p.output_elements)) return Status::kBadParams;
  const int64_t elements = checked_box_elements(p.destination, p.output_elements);
  if (elements < 0 || inputs[0].bytes != elements) return Status::kBadParams;
  return Status::kOk;
}

template <typename T>
Status run(const KernelArgs& args) {
  const auto& p = *static_cast<const PadParams*>(args.params);
  const auto* input = static_cast<const int8_t*>(args.inputs[0].data);
  auto* output = static_cast<int8_t*>(args.outputs[0].data);
  if constexpr (sizeof(T) == 1) {
    memset(output, static_cast<int8_t>(p.pad_value), static_cast<size_t>(p.output_elements));
  } else {
    T* elements = static_cast<T*>(args.outputs[0].data);
    for (int32_t i = 0; i < p.output_elements / static_cast<int32_t>(sizeof(T)); ++i)
      elements[i] = static_cast<T>(p.pad_value);
  }
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
    run<int8_t>,
    validate<int8_t>,
    nullptr,
};

const KernelDescriptor kernel_pad_s16_ref = {
    "pad_s16_ref",
    "pad_s16",  // another fill element: not a variant of pad_s8_ref
    1,
    sizeof(PadParams),
    1,
    1,
    1,
    IsaClass::kScalar,
    "input:s16[box] -> output:s16[output_elements/2]; "
    "params=PadParams{StridedBox{rank,offset,dims[6],steps[6]} in bytes,output_elements (bytes),"
    "pad_value (int16)}",
    run<int16_t>,
    validate<int16_t>,
    nullptr,
};

}  // namespace tinyaot
