// Reference int16 LOGISTIC and TANH: TFLite Micro's reference_integer_ops
// Logistic and Tanh for int16 (zero points 0, output scale 2^-15), the
// table interpolation of kernels/common/sigmoid_s16.h after its input
// scaling, whose pair the compiler resolves from TFLite Micro's Prepare.
#include "kernels/activation/activation.h"
#include "kernels/common/sigmoid_s16.h"

namespace tinyaot {
namespace {

TINYAOT_LOAD_TIME Status validate(const void* raw, const OperandView* inputs, uint32_t num_inputs,
                                  const OperandView* outputs, uint32_t num_outputs) {
  const auto& p = *static_cast<const Sigmoid16Params*>(raw);
  if (num_inputs != 1 || num_outputs != 1 || p.size < 1) return Status::kBadParams;
  const int64_t bytes = int64_t{p.size} * 2;
  if (inputs[0].bytes != bytes || outputs[0].bytes != bytes) return Status::kBadParams;
  // Any int16 times a multiplier up to 2^15 - 1, plus the rounding term of
  // a shift up to 31, stays within int32.
  if (p.multiplier < 0 || p.multiplier > INT16_MAX || p.right_shift < 0 || p.right_shift > 31)
    return Status::kBadParams;
  return Status::kOk;
}

template <int16_t (*Function)(int16_t, const Sigmoid16Scale&)>
Status run(const KernelArgs& args) {
  const auto& p = *static_cast<const Sigmoid16Params*>(args.params);
  const auto* input = static_cast<const int16_t*>(args.inputs[0].data);
  auto* output = static_cast<int16_t*>(args.outputs[0].data);
  const Sigmoid16Scale scale{p.multiplier, p.right_shift};
  for (int32_t i = 0; i < p.size; ++i) output[i] = Function(input[i], scale);
  return Status::kOk;
}

}  // namespace

const KernelDescriptor kernel_logistic_s16_ref = {
    "logistic_s16_ref",
    "logistic_s16",
    1,
    sizeof(Sigmoid16Params),
    1,
    1,
    1,
    IsaClass::kScalar,
    "input:s16[size] -> output:s16[size]; params=Sigmoid16Params{size,multiplier,right_shift}",
    run<sigmoid16>,
    validate,
    nullptr,
    operand_bit(0),  // element i is read before it is written
};

const KernelDescriptor kernel_tanh_s16_ref = {
    "tanh_s16_ref",
    "tanh_s16",
    1,
    sizeof(Sigmoid16Params),
    1,
    1,
    1,
    IsaClass::kScalar,
    "input:s16[size] -> output:s16[size]; params=Sigmoid16Params{size,multiplier,right_shift}",
    run<tanh16>,
    validate,
    nullptr,
    operand_bit(0),  // element i is read before it is written
};

}  // namespace tinyaot
