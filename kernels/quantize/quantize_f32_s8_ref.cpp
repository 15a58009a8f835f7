// Reference float32 -> int8 QUANTIZE: TFLite Micro's AffineQuantize,
// round(x / scale) with the division in float and ties away from zero; in
// rounding mode onnx onnxruntime's QuantizeLinear (MlasQuantizeLinear), the
// same float32 division rounded half to even. Both saturate to int8.
#include "kernels/common/output_step.h"
#include "kernels/quantize/quantize_common.h"
#include "kernels/quantize/quantize_float.h"
#include "tinyaot/load_time.h"

namespace tinyaot {
namespace {

TINYAOT_LOAD_TIME Status validate(const void* raw, const OperandView* inputs, uint32_t num_inputs,
                                  const OperandView* outputs, uint32_t num_outputs) {
  if (num_inputs != 1 || num_outputs != 1) return Status::kBadParams;
  return validate_quantize_params(*static_cast<const QuantizeParams*>(raw), inputs[0].bytes,
                                  outputs[0].bytes);
}

Status run(const KernelArgs& args) {
  const auto& p = *static_cast<const QuantizeParams*>(args.params);
  const auto* input = static_cast<const float*>(args.inputs[0].data);
  // Word-aligned: the descriptor says so and the loader checks it.
  auto* output = static_cast<int8_t*>(args.outputs[0].data);
  with_any_rounding(args.rounding, [&](auto mode) {
    for (int32_t i = 0; i < p.size; ++i)
      output[i] = quantize_one<decltype(mode)::value>(input[i], p.scale, p.zero_point);
  });
  return Status::kOk;
}

}  // namespace

const KernelDescriptor kernel_quantize_f32_s8_ref = {
    "quantize_f32_s8_ref",
    "quantize",
    2,
    sizeof(QuantizeParams),
    1,
    1,
    1,
    IsaClass::kScalar,
    "input:f32[size] -> output:s8[size]; params=QuantizeParams{size,scale,zero_point}",
    run,
    validate,
    nullptr,
    operand_bit(0),  // element i written after input elements 0..i are read
};

}  // namespace tinyaot
