// Reference MAXIMUM and MINIMUM: with one quantization shared by the inputs
// and the output (the compiler requires it), the larger or smaller raw
// int8 value is the answer, exactly as TFLite Micro computes it.
#include "kernels/elementwise/elementwise.h"
#include "tinyaot/load_time.h"

namespace tinyaot {
namespace {

TINYAOT_LOAD_TIME Status validate(const void* raw, const OperandView* inputs, uint32_t num_inputs,
                                  const OperandView* outputs, uint32_t num_outputs) {
  const auto& p = *static_cast<const MinMaxParams*>(raw);
  if (num_inputs != 2 || num_outputs != 1) return Status::kBadParams;
  return validate_broadcast(p.shape, inputs[0].bytes, inputs[1].bytes, outputs[0].bytes);
}

template <bool kMaximum>
Status run(const KernelArgs& args) {
  const auto& p = *static_cast<const MinMaxParams*>(args.params);
  broadcast_walk(p.shape, static_cast<const int8_t*>(args.inputs[0].data),
                 static_cast<const int8_t*>(args.inputs[1].data),
                 static_cast<int8_t*>(args.outputs[0].data),
                 [](int8_t a, int8_t b) { return kMaximum ? (a > b ? a : b) : (a < b ? a : b); });
  return Status::kOk;
}

constexpr const char* kSignature =
    "input1:s8[broadcast], input2:s8[broadcast] -> output:s8[dims]; "
    "params=MinMaxParams{shape{dims[6],strides1[6],strides2[6]}}";

}  // namespace

const KernelDescriptor kernel_maximum_s8_ref = {
    "maximum_s8_ref",
    "maximum",
    2,
    sizeof(MinMaxParams),
    2,
    2,
    1,
    IsaClass::kScalar,
    kSignature,
    run<true>,
    validate,
    nullptr,
    kElementwiseInPlaceInputs,
};

const KernelDescriptor kernel_minimum_s8_ref = {
    "minimum_s8_ref",
    "minimum",
    2,
    sizeof(MinMaxParams),
    2,
    2,
    1,
    IsaClass::kScalar,
    kSignature,
    run<false>,
    validate,
    nullptr,
    kElementwiseInPlaceInputs,
};

}  // namespace tinyaot
