// Reference ADD and SUB: TFLite Micro's int8 AddFunc / SubFunc. Its
// MultiplyByQuantizedMultiplierSmallerThanOneExp is the plain requantize of
// the program's rounding mode (the shifts are all <= 0). In rounding mode
// onnx, onnxruntime's float32 chains instead (add_sub_onnx.h).
#include "kernels/common/int16x8.h"
#include "kernels/common/output_step.h"
#include "kernels/common/quant.h"
#include "kernels/common/validate.h"
#include "kernels/elementwise/add_sub_onnx.h"
#include "kernels/elementwise/elementwise.h"
#include "tinyaot/load_time.h"

namespace tinyaot {

namespace {

// int8: offsets in [-128, 128] and a left shift up to 20; int16: offsets 0
// and a left shift up to 15. Either keeps every intermediate within int32:
// (255 << 20), (32768 << 15) and the sum of two values no larger in
// magnitude.
TINYAOT_LOAD_TIME Status validate_add_sub_of(const AddSubParams& p, Activations a,
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
  const auto is_right_shift = [](int32_t shift) { return shift >= -31 && shift <= 0; };
  const bool output_fits =
      int16 ? p.output_offset == 0 && is_int16_activation_range(p.act_min, p.act_max)
            : p.output_offset >= -128 && p.output_offset <= 127 &&
                  is_activation_range(p.act_min, p.act_max);
  if (!is_offset(p.input1_offset) || !is_offset(p.input2_offset) || !output_fits ||
      p.left_shift < 0 || p.left_shift > (int16 ? 15 : 20) || !is_right_shift(p.input1_shift) ||
      !is_right_shift(p.input2_shift) || !is_right_shift(p.output_shift) ||
      p.input1_multiplier < 0 || p.input2_multiplier < 0 || p.output_multiplier < 0)
    return Status::kBadParams;
  return Status::kOk;
}

TINYAOT_LOAD_TIME Status validate_add_sub_s16(const void* raw, const OperandView* inputs,
                                              uint32_t num_inputs, const OperandView* outputs,
                                              uint32_t num_outputs) {
  return validate_add_sub_of(*static_cast<const AddSubParams*>(raw), Activations::kInt16, inputs,
                             num_inputs, outputs, num_outputs);
}

}  // namespace

TINYAOT_LOAD_TIME Status validate_add_sub(const void* raw, const OperandView* inputs,
                                          uint32_t num_inputs, const OperandView* outputs,
                                          uint32_t num_outputs) {
  return validate_add_sub_of(*static_cast<const AddSubParams*>(raw), Activations::kInt8, inputs,
                             num_inputs, outputs, num_outputs);
}

namespace {

template <Rounding R>
inline int32_t scale_input(int32_t x, int32_t offset, int32_t left_shift, int32_t multiplier,
                           int32_t shift) {
  return requantize<R>((x + offset) * (int32_t{1} << left_shift), multiplier, shift);
}

// T: int8_t, or int16_t (TFLite Micro's int16 AddElementwise, the same
// arithmetic with a left shift of 15 and no offsets; no mode onnx).
template <int kSign, typename T>
Status run(const KernelArgs& args) {
  const auto& p = *static_cast<const AddSubParams*>(args.params);
  const auto* input1 = static_cast<const T*>(args.inputs[0].data);
  const auto* input2 = static_cast<const T*>(args.inputs[1].data);
  auto* output = static_cast<T*>(args.outputs[0].data);
  if (sizeof(T) == 2 && args.rounding == Rounding::kOnnx) return Status::kBadParams;
  with_any_rounding(args.rounding, [&](auto mode) {
    constexpr Rounding R = decltype(mode)::value;
    if constexpr (R == Rounding::kOnnx) {
      if constexpr (sizeof(T) == 1)
        broadcast_walk(p.shape, input1, input2, output,
                       [&p](int8_t a, int8_t b) { return onnx_add_sub<kSign>(a, b, p); });
      return;
    }
    broadcast_walk(p.shape, input1, input2, output, [&p](T a, T b) {
      const int32_t scaled1 =
          scale_input<R>(a, p.input1_offset, p.left_shift, p.input1_multiplier, p.input1_shift);
      const int32_t scaled2 =
          scale_input<R>(b, p.input2_offset, p.left_shift, p.input2_multiplier, p.input2_shift);
      const int32_t raw = kSign > 0 ? scaled1 + scaled2 : scaled1 - scaled2;
      if constexpr (sizeof(T) == 1) {
        return output_step<R>(raw, 0, p.output_multiplier, p.output_shift, p.output_offset,
                              p.act_min, p.act_max);
      } else {
        return clamp_output_s16(requantize<R>(raw, p.output_multiplier, p.output_shift), p.act_min,
                                p.act_max);
      }
    });
  });
  return Status::kOk;
}

}  // namespace

const KernelDescriptor kernel_add_s8_ref = {
    "add_s8_ref",
    "add",
    2,
    sizeof(AddSubParams),
    2,
    2,
    1,
    IsaClass::kScalar,
    kAddSubSignature,
    run<+1, int8_t>,
    validate_add_sub,
    nullptr,
    kElementwiseInPlaceInputs,
};

const KernelDescriptor kernel_sub_s8_ref = {
    "sub_s8_ref",
    "sub",
    2,
    sizeof(AddSubParams),
    2,
    2,
    1,
    IsaClass::kScalar,
    kAddSubSignature,
    run<-1, int8_t>,
    validate_add_sub,
    nullptr,
    kElementwiseInPlaceInputs,
};

const KernelDescriptor kernel_add_s16_ref = {
    "add_s16_ref",
    "add_s16",
    2,
    sizeof(AddSubParams),
    2,
    2,
    1,
    IsaClass::kScalar,
    kAddSubS16Signature,
    run<+1, int16_t>,
    validate_add_sub_s16,
    nullptr,
    kElementwiseInPlaceInputs,
};

const KernelDescriptor kernel_sub_s16_ref = {
    "sub_s16_ref",
    "sub_s16",
    2,
    sizeof(AddSubParams),
    2,
    2,
    1,
    IsaClass::kScalar,
    kAddSubS16Signature,
    run<-1, int16_t>,
    validate_add_sub_s16,
    nullptr,
    kElementwiseInPlaceInputs,
};

}  // namespace tinyaot
