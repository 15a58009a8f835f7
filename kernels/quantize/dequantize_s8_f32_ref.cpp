// Reference int8 -> float32 DEQUANTIZE: TFLite Micro's Dequantize, one
// float multiply of the exact integer difference.
#include "kernels/quantize/quantize_common.h"
#include "tinyaot/load_time.h"

namespace tinyaot {
namespace {

TINYAOT_LOAD_TIME Status validate(const void* raw, const OperandView* inputs, uint32_t num_inputs,
                                  const OperandView* outputs, uint32_t num_outputs) {
  if (num_inputs != 1 || num_outputs != 1) return Status::kBadParams;
  return validate_quantize_params(*static_cast<const QuantizeParams*>(raw), outputs[0].bytes,
                                  inputs[0].bytes);
}

Status run(const KernelArgs& args) {
  const auto& p = *static_cast<const QuantizeParams*>(args.params);
  const auto* input = static_cast<const int8_t*>(args.inputs[0].data);
  auto* output = static_cast<float*>(args.outputs[0].data);
  // Word-aligned: the descriptor says so and the loader checks it.
  for (int32_t i = 0; i < p.size; ++i)
    output[i] = p.scale * static_cast<float>(input[i] - p.zero_point);
  return Status::kOk;
}

}  // namespace

const KernelDescriptor kernel_dequantize_s8_f32_ref = {
    "dequantize_s8_f32_ref",
    "dequantize",
    2,
    sizeof(QuantizeParams),
    1,
    1,
    1,
    IsaClass::kScalar,
    "input:s8[size] -> output:f32[size]; params=QuantizeParams{size,scale,zero_point}",
    run,
    validate,
    nullptr,
};

}  // namespace tinyaot
