// Reference int16 LEAKY_RELU: TFLite Micro's QuantizeLeakyRelu<int16_t>
// (zero points 0): a non-negative input requantized by the identity
// multiplier, a negative one by the multiplier that includes alpha, the
// result saturated to int16.
#include "kernels/activation/activation.h"
#include "kernels/common/int16x8.h"

namespace tinyaot {
namespace {

// A left shift up to 14 keeps an int16 within int32 (as requantize_s16's).
constexpr bool is_int16_rescale(int32_t multiplier, int32_t shift) {
  return multiplier >= 0 && shift >= -31 && shift <= 14;
}

TINYAOT_LOAD_TIME Status validate(const void* raw, const OperandView* inputs, uint32_t num_inputs,
                                  const OperandView* outputs, uint32_t num_outputs) {
  const auto& p = *static_cast<const LeakyReluS16Params*>(raw);
  if (num_inputs != 1 || num_outputs != 1 || p.size < 1) return Status::kBadParams;
  const int64_t bytes = int64_t{p.size} * 2;
  if (inputs[0].bytes != bytes || outputs[0].bytes != bytes) return Status::kBadParams;
  if (!is_int16_rescale(p.multiplier_identity, p.shift_identity) ||
      !is_int16_rescale(p.multiplier_alpha, p.shift_alpha))
    return Status::kBadParams;
  return Status::kOk;
}

Status run(const KernelArgs& args) {
  const auto& p = *static_cast<const LeakyReluS16Params*>(args.params);
  const auto* input = static_cast<const int16_t*>(args.inputs[0].data);
  auto* output = static_cast<int16_t*>(args.outputs[0].data);
  if (args.rounding == Rounding::kOnnx) return Status::kBadParams;
  with_any_rounding(args.rounding, [&](auto mode) {
    constexpr Rounding R = decltype(mode)::value;
    for (int32_t i = 0; i < p.size; ++i) {
      const int32_t x = input[i];
      const int32_t scaled = x >= 0 ? requantize<R>(x, p.multiplier_identity, p.shift_identity)
                                    : requantize<R>(x, p.multiplier_alpha, p.shift_alpha);
      output[i] = clamp_output_s16(scaled, INT16_MIN, INT16_MAX);
    }
  });
  return Status::kOk;
}

}  // namespace

const KernelDescriptor kernel_leaky_relu_s16_ref = {
    "leaky_relu_s16_ref",
    "leaky_relu_s16",
    1,
    sizeof(LeakyReluS16Params),
    1,
    1,
    1,
    IsaClass::kScalar,
    "input:s16[size] -> output:s16[size]; params=LeakyReluS16Params{size,multiplier_identity,"
    "shift_identity,multiplier_alpha,shift_alpha}",
    run,
    validate,
    nullptr,
    operand_bit(0),  // element i is read before it is written
};

}  // namespace tinyaot
