// float32 <-> int16 QUANTIZE and DEQUANTIZE: the int8 references'
// arithmetic (TFLite Micro's AffineQuantize and Dequantize) on int16.
#include "kernels/common/output_step.h"
#include "kernels/quantize/quantize_common.h"
#include "kernels/quantize/quantize_float.h"
#include "tinyaot/load_time.h"

namespace tinyaot {
namespace {

TINYAOT_LOAD_TIME Status validate_quantize(const void* raw, const OperandView* inputs,
                                           uint32_t num_inputs, const OperandView* outputs,
                                           uint32_t num_outputs) {
  if (num_inputs != 1 || num_outputs != 1) return Status::kBadParams;
  return validate_quantize_params(*static_cast<const QuantizeParams*>(raw), inputs[0].bytes,
                                  outputs[0].bytes, sizeof(int16_t));
}

TINYAOT_LOAD_TIME Status validate_dequantize(const void* raw, const OperandView* inputs,
                                             uint32_t num_inputs, const OperandView* outputs,
                                             uint32_t num_outputs) {
  if (num_inputs != 1 || num_outputs != 1) return Status::kBadParams;
  return validate_quantize_params(*static_cast<const QuantizeParams*>(raw), outputs[0].bytes,
                                  inputs[0].bytes, sizeof(int16_t));
}

Status quantize(const KernelArgs& args) {
  const auto& p = *static_cast<const QuantizeParams*>(args.params);
  const auto* input = static_cast<const float*>(args.inputs[0].data);
  auto* output = static_cast<int16_t*>(args.outputs[0].data);
  with_rounding(args.rounding, [&](auto mode) {
    for (int32_t i = 0; i < p.size; ++i)
      output[i] = quantize_one<decltype(mode)::value, int16_t>(input[i], p.scale, p.zero_point);
  });
  return Status::kOk;
}

Status dequantize(const KernelArgs& args) {
  const auto& p = *static_cast<const QuantizeParams*>(args.params);
  const auto* input = static_cast<const int16_t*>(args.inputs[0].data);
  auto* output = static_cast<float*>(args.outputs[0].data);
  for (int32_t i = 0; i < p.size; ++i)
    output[i] = p.scale * static_cast<float>(input[i] - p.zero_point);
  return Status::kOk;
}

}  // namespace

const KernelDescriptor kernel_quantize_f32_s16_ref = {
    "quantize_f32_s16_ref",
    "quantize_s16",  // other types than the swept float -> int8 family
    1,
    sizeof(QuantizeParams),
    1,
    1,
    1,
    IsaClass::kScalar,
    "input:f32[size] -> output:s16[size]; params=QuantizeParams{size,scale,zero_point}",
    quantize,
    validate_quantize,
    nullptr,
    operand_bit(0),  // element i written after input elements 0..i are read
};

const KernelDescriptor kernel_dequantize_s16_f32_ref = {
    "dequantize_s16_f32_ref",
    "dequantize_s16",
    1,
    sizeof(QuantizeParams),
    1,
    1,
    1,
    IsaClass::kScalar,
    "input:s16[size] -> output:f32[size]; params=QuantizeParams{size,scale,zero_point}",
    dequantize,
    validate_dequantize,
    nullptr,
};

}  // namespace tinyaot
