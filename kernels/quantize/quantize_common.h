// Parameter checks shared by the two float conversion kernels.
#pragma once

#include "kernels/common/validate.h"
#include "kernels/quantize/quantize.h"
#include "tinyaot/load_time.h"

namespace tinyaot {

TINYAOT_LOAD_TIME inline Status validate_quantize_params(const QuantizeParams& p,
                                                         uint32_t float_bytes,
                                                         uint32_t int8_bytes) {
  // Written so that a NaN scale fails too.
  const bool scale_ok = p.scale > 0.0f && p.scale <= 3.402823466e38f;
  if (p.size < 1 || !scale_ok || p.zero_point < -128 || p.zero_point > 127)
    return Status::kBadParams;
  const auto size = static_cast<uint64_t>(p.size);
  if (float_bytes != size * sizeof(float) || int8_bytes != size) return Status::kBadParams;
  return Status::kOk;
}

}  // namespace tinyaot
