// Reference MUL: TFLite Micro's int8 MulElementwise / BroadcastMul, one
// requantize of the product of the offset inputs; in rounding mode onnx,
// onnxruntime's QLinearMul float32 chain (mul_onnx.h).
#include "kernels/common/int16x8.h"
#include "kernels/common/output_step.h"
#include "kernels/common/quant.h"
#include "kernels/common/validate.h"
#include "kernels/elementwise/elementwise.h"
#include "kernels/elementwise/mul_onnx.h"
#include "tinyaot/load_time.h"

namespace tinyaot {

namespace {

// int8: offsets in [-128, 128]; int16: offsets 0. The product is below
// 2^16 (int8) or 2^30 (int16); a left shift up to 14 keeps an int8 one's
// requantized value below 2^30, so adding the output offset cannot
// overflow, and wraps an int16 one's as TFLite's int32 arithmetic does
// (wrapping_shift_left). A real multiplier of 2^14 or more is no model's.
TINYAOT_LOAD_TIME Status validate_mul_of(const MulParams& p, Activations a,
                                         const OperandView* inputs, uint32_t num_inputs,
                                         const OperandView* outputs, uint32_t num_outputs) {
  if (num_inputs != 2 || num_outputs != 1) return Status::kBadParams;
  const uint32_t width = static_cast<uint32_t>(activation_bytes(a));
  if (inputs[0].bytes % width != 0 || inputs[1].bytes % width != 0 || outputs[0].bytes % width != 0)
    return Status::kBadParams;
  const Status status = validate_broadcast(p.shape, inputs[0].bytes / width,
                                           inputs[1].bytes / width, outputs[0].bytes / width);
  if (status != Status::kOk) return status;
  const bool int16 = a == Activations::kInt16;
  const auto is_offset = [int16](int32_t offset) {
    return int16 ? offset == 0 : offset >= -128 && offset <= 128;
  };
  const bool output_fits =
      int16 ? p.output_offset == 0 && is_int16_activation_range(p.act_min, p.act_max)
            : p.output_offset >= -128 && p.output_offset <= 127 &&
                  is_activation_range(p.act_min, p.act_max);
  if (!is_offset(p.input1_offset) || !is_offset(p.input2_offset) || !output_fits ||
      p.output_shift < -31 || p.output_shift > 14)
    return Status::kBadParams;
  return Status::kOk;
}

TINYAOT_LOAD_TIME Status validate_mul_s16(const void* raw, const OperandView* inputs,
                                          uint32_t num_inputs, const OperandView* outputs,
                                          uint32_t num_outputs) {
  return validate_mul_of(*static_cast<const MulParams*>(raw), Activations::kInt16, inputs,
                         num_inputs, outputs, num_outputs);
}

// T: int8_t, or int16_t (TFLite Micro's int16 MulElementwise, the same
// arithmetic without offsets; no mode onnx).
template <typename T>
Status run(const KernelArgs& args) {
  const auto& p = *static_cast<const MulParams*>(args.params);
  const auto* input1 = static_cast<const T*>(args.inputs[0].data);
  const auto* input2 = static_cast<const T*>(args.inputs[1].data);
  auto* output = static_cast<T*>(args.outputs[0].data);
  if (sizeof(T) == 2 && args.rounding == Rounding::kOnnx) return Status::kBadParams;
  with_any_rounding(args.rounding, [&](auto mode) {
    constexpr Rounding R = decltype(mode)::value;
    if constexpr (R == Rounding::kOnnx) {
      if constexpr (sizeof(T) == 1)
        broadcast_walk(p.shape, input1, input2, output,
                       [&p](int8_t a, int8_t b) { return onnx_mul(a, b, p); });
      return;
    }
    broadcast_walk(p.shape, input1, input2, output, [&p](T a, T b) {
      const int32_t product = (a + p.input1_offset) * (b + p.input2_offset);
      if constexpr (sizeof(T) == 1) {
        return output_step<R>(product, 0, p.output_multiplier, p.output_shift, p.output_offset,
                              p.act_min, p.act_max);
      } else {
        return clamp_output_s16(requantize<R>(product, p.output_multiplier, p.output_shift),
                                p.act_min, p.act_max);
      }
    });
  });
  return Status::kOk;
}

}  // namespace

TINYAOT_LOAD_TIME Status validate_mul(const void* raw, const OperandView* inputs,
                                      uint32_t num_inputs, const OperandView* outputs,
                                      uint32_t num_outputs) {
  return validate_mul_of(*static_cast<const MulParams*>(raw), Activations::kInt8, inputs,
                         num_inputs, outputs, num_outputs);
}

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
    run<int8_t>,
    validate_mul,
    nullptr,
    kElementwiseInPlaceInputs,
};

const KernelDescriptor kernel_mul_s16_ref = {
    "mul_s16_ref",
    "mul_s16",
    2,
    sizeof(MulParams),
    2,
    2,
    1,
    IsaClass::kScalar,
    kMulS16Signature,
    run<int16_t>,
    validate_mul_s16,
    nullptr,
    kElementwiseInPlaceInputs,
};

}  // namespace tinyaot
