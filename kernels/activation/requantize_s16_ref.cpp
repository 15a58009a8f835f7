// Reference int16 RELU and RELU6: TFLite Micro's ReluQuantized<int16_t>,
// out = clamp(requantize(in)) (zero points 0); RELU6, which clamps the raw
// values, takes the identity multiplier (2^30 with a left shift of 1 gives
// back every int32 exactly, in both rounding modes).
#include "kernels/activation/activation.h"
#include "kernels/common/int16x8.h"

namespace tinyaot {
namespace {

TINYAOT_LOAD_TIME Status validate(const void* raw, const OperandView* inputs, uint32_t num_inputs,
                                  const OperandView* outputs, uint32_t num_outputs) {
  const auto& p = *static_cast<const RequantizeS16Params*>(raw);
  if (num_inputs != 1 || num_outputs != 1 || p.size < 1) return Status::kBadParams;
  const int64_t bytes = int64_t{p.size} * 2;
  if (inputs[0].bytes != bytes || outputs[0].bytes != bytes) return Status::kBadParams;
  // A left shift up to 14 keeps an int16 within int32 (as MUL's).
  if (p.multiplier < 0 || p.shift < -31 || p.shift > 14 ||
      !is_int16_activation_range(p.act_min, p.act_max))
    return Status::kBadParams;
  return Status::kOk;
}

Status run(const KernelArgs& args) {
  const auto& p = *static_cast<const RequantizeS16Params*>(args.params);
  const auto* input = static_cast<const int16_t*>(args.inputs[0].data);
  auto* output = static_cast<int16_t*>(args.outputs[0].data);
  if (args.rounding == Rounding::kOnnx) return Status::kBadParams;
  with_any_rounding(args.rounding, [&](auto mode) {
    constexpr Rounding R = decltype(mode)::value;
    for (int32_t i = 0; i < p.size; ++i)
      output[i] =
          clamp_output_s16(requantize<R>(input[i], p.multiplier, p.shift), p.act_min, p.act_max);
  });
  return Status::kOk;
}

}  // namespace

const KernelDescriptor kernel_requantize_s16_ref = {
    "requantize_s16_ref",
    "requantize_s16",
    1,
    sizeof(RequantizeS16Params),
    1,
    1,
    1,
    IsaClass::kScalar,
    "input:s16[size] -> output:s16[size]; "
    "params=RequantizeS16Params{size,multiplier,shift,act_min,act_max}",
    run,
    validate,
    nullptr,
    operand_bit(0),  // element i is read before it is written
};

}  // namespace tinyaot
