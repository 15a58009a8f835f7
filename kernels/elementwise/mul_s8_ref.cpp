// Reference MUL: TFLite Micro's int8 MulElementwise / BroadcastMul, one
// requantize of the product of the offset inputs; in rounding mode onnx,
// onnxruntime's QLinearMul float32 chain (mul_onnx.h).
#include "kernels/common/output_step.h"
#include "kernels/common/quant.h"
#include "kernels/common/validate.h"
#include "kernels/elementwise/elementwise.h"
#include "kernels/elementwise/mul_onnx.h"
#include "tinyaot/load_time.h"

namespace tinyaot {

TINYAOT_LOAD_TIME Status validate_mul(const void* raw, const OperandView* inputs,
                                      uint32_t num_inputs, const OperandView* outputs,
                                      uint32_t num_outputs) {
  const auto& p = *static_cast<const MulParams*>(raw);
  if (num_inputs != 2 || num_outputs != 1) return Status::kBadParams;
  const Status status =
      validate_broadcast(p.shape, inputs[0].bytes, inputs[1].bytes, outputs[0].bytes);
  if (status != Status::kOk) return status;
  const auto is_offset = [](int32_t offset) { return offset >= -128 && offset <= 128; };
  // The product is below 2^16; a left shift up to 14 keeps the requantized
  // value below 2^30, so adding the output offset cannot overflow. A real
  // multiplier of 2^14 or more is no model's.
  if (!is_offset(p.input1_offset) || !is_offset(p.input2_offset) || p.output_offset < -128 ||
      p.output_offset > 127 || p.output_shift < -31 || p.output_shift > 14 ||
      !is_activation_range(p.act_min, p.act_max))
    return Status::kBadParams;
  return Status::kOk;
}

namespace {

Status run(const KernelArgs& args) {
  const auto& p = *static_cast<const MulParams*>(args.params);
  const auto* input1 = static_cast<const int8_t*>(args.inputs[0].data);
  const auto* input2 = static_cast<const int8_t*>(args.inputs[1].data);
  auto* output = static_cast<int8_t*>(args.outputs[0].data);
  with_any_rounding(args.rounding, [&](auto mode) {
    constexpr Rounding R = decltype(mode)::value;
    if constexpr (R == Rounding::kOnnx) {
      broadcast_walk(p.shape, input1, input2, output,
                     [&p](int8_t a, int8_t b) { return onnx_mul(a, b, p); });
      return;
    }
    broadcast_walk(p.shape, input1, input2, output, [&p](int8_t a, int8_t b) {
      const int32_t product = (a + p.input1_offset) * (b + p.input2_offset);
      return output_step<R>(product, 0, p.output_multiplier, p.output_shift, p.output_offset,
                            p.act_min, p.act_max);
    });
  });
  return Status::kOk;
}

}  // namespace

const KernelDescriptor kernel_mul_s8_ref = {
    "mul_s8_ref",
    "mul",
    2,
    sizeof(MulParams),
    2,
    2,
    1,
    IsaClass::kScalar,
    kMulSignature,
    run,
    validate_mul,
    nullptr,
    kElementwiseInPlaceInputs,
};

}  // namespace tinyaot
