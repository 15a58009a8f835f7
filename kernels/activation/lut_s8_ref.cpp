// Reference table lookup.
#include "kernels/activation/activation.h"
#include "tinyaot/load_time.h"

namespace tinyaot {
namespace {

TINYAOT_LOAD_TIME Status validate(const void* raw, const OperandView* inputs, uint32_t num_inputs,
                                  const OperandView* outputs, uint32_t num_outputs) {
  const auto& p = *static_cast<const LutParams*>(raw);
  if (num_inputs != 2 || num_outputs != 1 || p.size < 1) return Status::kBadParams;
  const auto size = static_cast<uint32_t>(p.size);
  if (inputs[0].bytes != size || inputs[1].bytes != kLutEntries || outputs[0].bytes != size)
    return Status::kBadParams;
  return Status::kOk;
}

Status run(const KernelArgs& args) {
  const auto& p = *static_cast<const LutParams*>(args.params);
  const auto* input = static_cast<const uint8_t*>(args.inputs[0].data);
  const auto* table = static_cast<const int8_t*>(args.inputs[1].data);
  auto* output = static_cast<int8_t*>(args.outputs[0].data);
  for (int32_t i = 0; i < p.size; ++i) output[i] = table[input[i]];
  return Status::kOk;
}

}  // namespace

const KernelDescriptor kernel_lut_s8_ref = {
    "lut_s8_ref",
    "lut",
    2,
    sizeof(LutParams),
    2,
    2,
    1,
    IsaClass::kScalar,
    "input:s8[size], table:s8[256] -> output:s8[size]; params=LutParams{size}",
    run,
    validate,
    nullptr,
    operand_bit(0),  // out[i] = table[in[i]]: the output may lie on the input
};

}  // namespace tinyaot
