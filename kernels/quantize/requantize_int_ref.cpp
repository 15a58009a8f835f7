// Reference integer QUANTIZE (requantize_int.h): one loop per pair of
// element types, chosen once per call.
#include "kernels/common/output_step.h"
#include "kernels/common/quant.h"
#include "kernels/common/validate.h"
#include "kernels/quantize/requantize_int.h"
#include "tinyaot/load_time.h"

namespace tinyaot {
namespace {

TINYAOT_LOAD_TIME bool is_element_size(int32_t bytes) {
  return bytes == 1 || bytes == 2 || bytes == 4;
}

// The range of the signed type `bytes` wide.
TINYAOT_LOAD_TIME int32_t type_min(int32_t bytes) {
  return bytes == 1 ? INT8_MIN : (bytes == 2 ? INT16_MIN : INT32_MIN);
}
TINYAOT_LOAD_TIME int32_t type_max(int32_t bytes) {
  return bytes == 1 ? INT8_MAX : (bytes == 2 ? INT16_MAX : INT32_MAX);
}

TINYAOT_LOAD_TIME Status validate(const void* raw, const OperandView* inputs, uint32_t num_inputs,
                                  const OperandView* outputs, uint32_t num_outputs) {
  const auto& p = *static_cast<const RequantizeIntParams*>(raw);
  if (num_inputs != 1 || num_outputs != 1) return Status::kBadParams;
  if (p.size < 1 || !is_element_size(p.input_bytes) || !is_element_size(p.output_bytes))
    return Status::kBadParams;
  const auto size = static_cast<uint64_t>(p.size);
  if (inputs[0].bytes != size * static_cast<uint64_t>(p.input_bytes) ||
      outputs[0].bytes != size * static_cast<uint64_t>(p.output_bytes))
    return Status::kBadParams;
  // input - zero point must not overflow int32: an int32 input's zero point
  // is 0 (TFLite's int32 tensors are symmetric).
  const bool input_zero_point_ok = p.input_bytes == 4
                                       ? p.input_zero_point == 0
                                       : p.input_zero_point >= type_min(p.input_bytes) &&
                                             p.input_zero_point <= type_max(p.input_bytes);
  if (!input_zero_point_ok || p.output_zero_point < type_min(p.output_bytes) ||
      p.output_zero_point > type_max(p.output_bytes) || p.multiplier < 0 || !is_shift(p.shift))
    return Status::kBadParams;
  return Status::kOk;
}

template <typename In, typename Out, Rounding R>
TINYAOT_MODE_LOOP void requantize_all(const RequantizeIntParams& p, const In* input, Out* output) {
  constexpr int64_t kMin = sizeof(Out) == 1 ? INT8_MIN : (sizeof(Out) == 2 ? INT16_MIN : INT32_MIN);
  constexpr int64_t kMax = sizeof(Out) == 1 ? INT8_MAX : (sizeof(Out) == 2 ? INT16_MAX : INT32_MAX);
  for (int32_t i = 0; i < p.size; ++i) {
    // In int64: an int32 output's zero point may carry the sum past int32,
    // where TFLite's int32 addition is undefined; the clamp keeps it.
    const int64_t value =
        int64_t{requantize<R>(input[i] - p.input_zero_point, p.multiplier, p.shift)} +
        p.output_zero_point;
    output[i] = static_cast<Out>(value < kMin ? kMin : (value > kMax ? kMax : value));
  }
}

template <typename In, Rounding R>
void requantize_from(const RequantizeIntParams& p, const In* input, void* output) {
  if (p.output_bytes == 1)
    requantize_all<In, int8_t, R>(p, input, static_cast<int8_t*>(output));
  else if (p.output_bytes == 2)
    requantize_all<In, int16_t, R>(p, input, static_cast<int16_t*>(output));
  else
    requantize_all<In, int32_t, R>(p, input, static_cast<int32_t*>(output));
}

Status run(const KernelArgs& args) {
  const auto& p = *static_cast<const RequantizeIntParams*>(args.params);
  const void* input = args.inputs[0].data;
  void* output = args.outputs[0].data;
  with_rounding(args.rounding, [&](auto mode) {
    constexpr Rounding R = decltype(mode)::value;
    if (p.input_bytes == 1)
      requantize_from<int8_t, R>(p, static_cast<const int8_t*>(input), output);
    else if (p.input_bytes == 2)
      requantize_from<int16_t, R>(p, static_cast<const int16_t*>(input), output);
    else
      requantize_from<int32_t, R>(p, static_cast<const int32_t*>(input), output);
  });
  return Status::kOk;
}

}  // namespace

const KernelDescriptor kernel_requantize_int_ref = {
    "requantize_int_ref",
    "requantize_int",
    1,
    sizeof(RequantizeIntParams),
    1,
    1,
    1,
    IsaClass::kScalar,
    "input:i8|i16|i32[size] -> output:i8|i16|i32[size]; params=RequantizeIntParams{size,"
    "input_bytes,output_bytes,input_zero_point,output_zero_point,multiplier,shift}",
    run,
    validate,
    nullptr,
};

}  // namespace tinyaot
