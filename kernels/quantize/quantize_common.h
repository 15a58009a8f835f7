// Parameter checks shared by the float conversion kernels.
#pragma once

#include "kernels/common/validate.h"
#include "kernels/quantize/quantize.h"
#include "tinyaot/load_time.h"

namespace tinyaot {

// `element_bytes`: the integer side's, 1 (int8) or 2 (int16).
TINYAOT_LOAD_TIME inline Status validate_quantize_params(const QuantizeParams& p,
                                                         uint32_t float_bytes,
                                                         uint32_t integer_bytes,
                                                         uint32_t element_bytes = 1) {
  // Written so that a NaN scale fails too.
  const bool scale_ok = p.scale > 0.0f && p.scale <= 3.402823466e38f;
  const int32_t zero_point_min = element_bytes == 1 ? INT8_MIN : INT16_MIN;
  const int32_t zero_point_max = element_bytes == 1 ? INT8_MAX : INT16_MAX;
  if (p.size < 1 || !scale_ok || p.zero_point < zero_point_min || p.zero_point > zero_point_max)
    return Status::kBadParams;
  const auto size = static_cast<uint64_t>(p.size);
  if (float_bytes != size * sizeof(float) || integer_bytes != size * element_bytes)
    return Status::kBadParams;
  return Status::kOk;
}

}  // namespace tinyaot
