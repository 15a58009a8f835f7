// What every FULLY_CONNECTED variant shares (freestanding, header-only):
// the operand checks of its validate, one definition so that no variant
// accepts what another refuses. Each output ends with the shared
// output_step (kernels/common/output_step.h).
#pragma once

#include <stdint.h>

#include "kernels/common/int16x8.h"
#include "kernels/common/quant.h"
#include "kernels/common/validate.h"
#include "kernels/fully_connected/fully_connected.h"
#include "tinyaot/load_time.h"

namespace tinyaot {

TINYAOT_LOAD_TIME inline Status validate_fully_connected_activations(
    const void* raw, const OperandView* inputs, uint32_t num_inputs, const OperandView* outputs,
    uint32_t num_outputs, Activations a) {
  const auto& p = *static_cast<const FullyConnectedParams*>(raw);
  if (num_inputs < 3 || num_outputs != 1) return Status::kBadParams;
  // Zeros for GCC -Og alone, which does not see checked_mul set them
  // (-Wmaybe-uninitialized).
  int64_t in_size = 0, filter_size = 0, out_size = 0;
  if (p.batches < 1 || p.input_depth < 1 || p.output_depth < 1) return Status::kBadParams;
  if (!checked_mul(p.batches, p.input_depth, &in_size) ||
      !checked_mul(p.output_depth, p.input_depth, &filter_size) ||
      !checked_mul(p.batches, p.output_depth, &out_size))
    return Status::kBadParams;
  const int64_t width = activation_bytes(a);
  if (inputs[0].bytes != in_size * width || inputs[1].bytes != filter_size ||
      !is_channel_quant_operand(inputs[2], p.output_depth) || outputs[0].bytes != out_size * width)
    return Status::kBadParams;
  if (!is_weighted_activation_setup(p, a, inputs, num_inputs, p.output_depth))
    return Status::kBadParams;
  return Status::kOk;
}

TINYAOT_LOAD_TIME inline Status validate_fully_connected_operands(const void* raw,
                                                                  const OperandView* inputs,
                                                                  uint32_t num_inputs,
                                                                  const OperandView* outputs,
                                                                  uint32_t num_outputs) {
  return validate_fully_connected_activations(raw, inputs, num_inputs, outputs, num_outputs,
                                              Activations::kInt8);
}

// The row-blocked variants (fully_connected_blocks.h) also load a block's
// weights as aligned words: a 4-byte aligned filter (the program's
// constants are 16-byte aligned).
TINYAOT_LOAD_TIME inline Status validate_blocked_fully_connected_operands(
    const void* raw, const OperandView* inputs, uint32_t num_inputs, const OperandView* outputs,
    uint32_t num_outputs) {
  const Status status =
      validate_fully_connected_operands(raw, inputs, num_inputs, outputs, num_outputs);
  if (status != Status::kOk) return status;
  // Their output step takes precomputed rescales only (has_fast_rescale).
  const auto& p = *static_cast<const FullyConnectedParams*>(raw);
  if (!is_fast_channel_quant_operand(inputs[2], p.output_depth)) return Status::kBadParams;
  return is_aligned_for<uint32_t>(inputs[1].constant) ? Status::kOk : Status::kMisaligned;
}

}  // namespace tinyaot
