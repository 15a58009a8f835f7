// What every FULLY_CONNECTED variant shares (freestanding, header-only):
// the operand checks of its validate, one definition so that no variant
// accepts what another refuses, and the step that ends each output.
#pragma once

#include <stdint.h>

#include "kernels/common/quant.h"
#include "kernels/common/validate.h"
#include "kernels/fully_connected/fully_connected.h"

namespace tinyaot {

inline Status validate_fully_connected_operands(const void* raw, const uint32_t* in_bytes,
                                                uint32_t num_inputs, const uint32_t* out_bytes,
                                                uint32_t num_outputs) {
  const auto& p = *static_cast<const FullyConnectedParams*>(raw);
  if (num_inputs != 3 || num_outputs != 1) return Status::kBadParams;
  int64_t in_size, filter_size, out_size;
  if (p.batches < 1 || p.input_depth < 1 || p.output_depth < 1) return Status::kBadParams;
  if (!checked_mul(p.batches, p.input_depth, &in_size) ||
      !checked_mul(p.output_depth, p.input_depth, &filter_size) ||
      !checked_mul(p.batches, p.output_depth, &out_size))
    return Status::kBadParams;
  if (in_bytes[0] != in_size || in_bytes[1] != filter_size ||
      in_bytes[2] != uint64_t(p.output_depth) * sizeof(ChannelQuant) || out_bytes[0] != out_size)
    return Status::kBadParams;
  if (p.input_offset < -127 || p.input_offset > 128 || p.output_offset < -128 ||
      p.output_offset > 127 || !is_activation_range(p.act_min, p.act_max))
    return Status::kBadParams;
  return Status::kOk;
}

// Bias (possibly with the input offset's share folded in), requantization,
// output offset, clamp.
inline int8_t finish_fully_connected_output(const FullyConnectedParams& p, const ChannelQuant& q,
                                            uint32_t acc, Rounding rounding) {
  const int32_t total = wrapping_add(static_cast<int32_t>(acc), q.bias);
  const int32_t scaled =
      wrapping_add(requantize(total, q.multiplier, q.shift, rounding), p.output_offset);
  return static_cast<int8_t>(clamp_i32(scaled, p.act_min, p.act_max));
}

}  // namespace tinyaot
