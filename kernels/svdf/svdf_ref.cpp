// Reference SVDF: TFLite Micro's EvalIntegerSvdfReference for int16 and
// int8 state, one template for both. TFLite Micro keeps every filter's
// sum in scratch before it reduces them per unit; with wrapping int32 sums
// the order of the additions does not matter, so each unit sums its
// filters straight away and the kernel needs no scratch.
#include "kernels/common/output_step.h"
#include "kernels/common/quant.h"
#include "kernels/common/validate.h"
#include "kernels/svdf/svdf.h"
#include "tinyaot/load_time.h"

namespace tinyaot {
namespace {

template <typename T>
constexpr int32_t kStateMin = sizeof(T) == 2 ? INT16_MIN : INT8_MIN;
template <typename T>
constexpr int32_t kStateMax = sizeof(T) == 2 ? INT16_MAX : INT8_MAX;

TINYAOT_LOAD_TIME bool is_rescale(int32_t multiplier, int32_t shift) {
  return multiplier >= 0 && is_shift(shift);
}

template <typename T>
TINYAOT_LOAD_TIME Status validate(const void* raw, const OperandView* inputs, uint32_t num_inputs,
                                  const OperandView* outputs, uint32_t num_outputs) {
  const auto& p = *static_cast<const SvdfParams*>(raw);
  if ((num_inputs != 3 && num_inputs != 4) || num_outputs != 2) return Status::kBadParams;
  if (p.batches < 1 || p.input_size < 1 || p.units < 1 || p.rank < 1 || p.memory < 1)
    return Status::kBadParams;
  int64_t filters, input_bytes, feature_bytes, time_elements, state_elements, output_bytes;
  if (!checked_mul(p.units, p.rank, &filters) || filters != p.filters ||
      !checked_mul(p.batches, p.input_size, &input_bytes) ||
      !checked_mul(p.filters, p.input_size, &feature_bytes) ||
      !checked_mul(p.filters, p.memory, &time_elements) ||
      !checked_mul(p.batches, time_elements, &state_elements) ||
      !checked_mul(state_elements, sizeof(T), &state_elements) ||
      !checked_mul(p.batches, p.units, &output_bytes))
    return Status::kBadParams;
  state_elements /= static_cast<int64_t>(sizeof(T));
  if (inputs[0].bytes != input_bytes || inputs[1].bytes != feature_bytes ||
      inputs[2].bytes != static_cast<uint64_t>(time_elements) * sizeof(T) ||
      (num_inputs == 4 && inputs[3].bytes != static_cast<uint64_t>(p.units) * sizeof(int32_t)) ||
      outputs[0].bytes != output_bytes ||
      outputs[1].bytes != static_cast<uint64_t>(state_elements) * sizeof(T))
    return Status::kBadParams;
  if (p.input_offset < -127 || p.input_offset > 128 || p.output_offset < -128 ||
      p.output_offset > 127 || p.state_zero_point < kStateMin<T> ||
      p.state_zero_point > kStateMax<T> || !is_rescale(p.feature_multiplier, p.feature_shift) ||
      !is_rescale(p.output_multiplier, p.output_shift))
    return Status::kBadParams;
  return Status::kOk;
}

template <typename T, Rounding R>
TINYAOT_MODE_LOOP void svdf(const SvdfParams& p, const int8_t* input, const int8_t* weights_feature,
                            const T* weights_time, const int32_t* bias, int8_t* output, T* state) {
  // Every value moves one step towards the start; each filter's last step
  // is then overwritten by its newest value below.
  const int32_t state_size = p.batches * p.filters * p.memory;
  for (int32_t i = 0; i + 1 < state_size; ++i) state[i] = state[i + 1];

  for (int32_t b = 0; b < p.batches; ++b) {
    const int8_t* row = input + b * p.input_size;
    T* batch_state = state + b * p.filters * p.memory;
    for (int32_t f = 0; f < p.filters; ++f) {
      const int8_t* weights = weights_feature + f * p.input_size;
      int32_t acc = 0;
      for (int32_t i = 0; i < p.input_size; ++i)
        acc = wrapping_add(acc, weights[i] * (row[i] + p.input_offset));
      // The zero point joins before the clamp, as TFLite Micro adds it.
      const int32_t value =
          requantize<R>(acc, p.feature_multiplier, p.feature_shift) + p.state_zero_point;
      batch_state[f * p.memory + p.memory - 1] =
          static_cast<T>(clamp_i32(value, kStateMin<T>, kStateMax<T>));
    }

    for (int32_t u = 0; u < p.units; ++u) {
      int32_t acc = bias != nullptr ? bias[u] : 0;
      for (int32_t f = u * p.rank; f < (u + 1) * p.rank; ++f) {
        const T* weights = weights_time + f * p.memory;
        const T* memory = batch_state + f * p.memory;
        for (int32_t m = 0; m < p.memory; ++m)
          acc = wrapping_add(acc, weights[m] * (memory[m] - p.state_zero_point));
      }
      output[b * p.units + u] =
          saturate_i8(requantize<R>(acc, p.output_multiplier, p.output_shift) + p.output_offset);
    }
  }
}

template <typename T>
Status run(const KernelArgs& args) {
  const auto& p = *static_cast<const SvdfParams*>(args.params);
  const auto* bias =
      args.num_inputs == 4 ? static_cast<const int32_t*>(args.inputs[3].data) : nullptr;
  with_rounding(args.rounding, [&](auto mode) {
    svdf<T, decltype(mode)::value>(
        p, static_cast<const int8_t*>(args.inputs[0].data),
        static_cast<const int8_t*>(args.inputs[1].data), static_cast<const T*>(args.inputs[2].data),
        bias, static_cast<int8_t*>(args.outputs[0].data), static_cast<T*>(args.outputs[1].data));
  });
  return Status::kOk;
}

}  // namespace

const KernelDescriptor kernel_svdf_s8_state16_ref = {
    "svdf_s8_state16_ref",
    "svdf_state16",  // not a variant of the int8-state kernel: its own family
    1,
    sizeof(SvdfParams),
    3,
    4,
    2,
    IsaClass::kScalar,
    TINYAOT_SVDF_SIGNATURE("s16"),
    run<int16_t>,
    validate<int16_t>,
    nullptr,
};

const KernelDescriptor kernel_svdf_s8_state8_ref = {
    "svdf_s8_state8_ref",
    "svdf_state8",
    1,
    sizeof(SvdfParams),
    3,
    4,
    2,
    IsaClass::kScalar,
    TINYAOT_SVDF_SIGNATURE("s8"),
    run<int8_t>,
    validate<int8_t>,
    nullptr,
};

}  // namespace tinyaot
