// The check every MEAN variant's validate runs (freestanding): a shape of
// at most kMeanMaxRank dimensions, the reduced ones' product the count, the
// operands' sizes, the zero points and a multiplier and shift in range.
#pragma once

#include <stdint.h>

#include "kernels/common/validate.h"
#include "kernels/mean/mean.h"
#include "tinyaot/load_time.h"

namespace tinyaot {

// `Element` is int8_t (zero points in int8) or int16_t (zero points 0, as
// TFLite requires of int16 activations).
template <typename Element>
TINYAOT_LOAD_TIME inline Status validate_mean_of(const void* raw, const OperandView* inputs,
                                                 uint32_t num_inputs, const OperandView* outputs,
                                                 uint32_t num_outputs) {
  const auto& p = *static_cast<const MeanParams*>(raw);
  if (num_inputs != 1 || num_outputs != 1) return Status::kBadParams;
  if (p.rank < 1 || p.rank > kMeanMaxRank) return Status::kBadParams;
  if ((p.reduced_mask >> p.rank) != 0) return Status::kBadParams;
  const int64_t total = checked_elements(p.dims, static_cast<uint32_t>(p.rank));
  if (total < 0) return Status::kBadParams;
  int64_t reduced = 1;
  for (int32_t i = 0; i < p.rank; ++i) {
    if ((p.reduced_mask >> i) & 1u) reduced *= p.dims[i];
  }
  constexpr int64_t kBytes = sizeof(Element);
  if (p.count != reduced || inputs[0].bytes != total * kBytes ||
      outputs[0].bytes != total / reduced * kBytes)
    return Status::kBadParams;
  constexpr int32_t kZeroPointMin = kBytes == 1 ? -128 : 0;
  constexpr int32_t kZeroPointMax = kBytes == 1 ? 127 : 0;
  if (p.input_zero_point < kZeroPointMin || p.input_zero_point > kZeroPointMax ||
      p.output_zero_point < kZeroPointMin || p.output_zero_point > kZeroPointMax ||
      p.multiplier < 0 || !is_shift(p.shift))
    return Status::kBadParams;
  return Status::kOk;
}

TINYAOT_LOAD_TIME inline Status validate_mean(const void* raw, const OperandView* inputs,
                                              uint32_t num_inputs, const OperandView* outputs,
                                              uint32_t num_outputs) {
  return validate_mean_of<int8_t>(raw, inputs, num_inputs, outputs, num_outputs);
}

}  // namespace tinyaot
