// Kernel validate calls in the unit tests, shaped as the loader makes them:
// operands of given sizes, in the arena (contents unknown before the run)
// except the inputs the test gives contents, as a program's constants.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "kernels/common/quant.h"
#include "tinyaot/kernel_abi.h"

namespace tinyaot::test {

// `constants`: nullptr, or one pointer per input (nullptr for an operand in
// the arena).
inline Status validate_sizes(const KernelDescriptor& kernel, const void* params,
                             const uint32_t* in_bytes, uint32_t num_inputs,
                             const uint32_t* out_bytes, uint32_t num_outputs,
                             const void* const* constants = nullptr) {
  std::vector<OperandView> inputs(num_inputs), outputs(num_outputs);
  for (uint32_t i = 0; i < num_inputs; ++i)
    inputs[i] = {constants ? constants[i] : nullptr, in_bytes[i]};
  for (uint32_t i = 0; i < num_outputs; ++i) outputs[i] = {nullptr, out_bytes[i]};
  return kernel.validate(params, inputs.data(), num_inputs, outputs.data(), num_outputs);
}

// Per-channel constants that rescale by 1/4 (2^30 * 2^-1 / 2^31), no bias,
// a precomputed rescale (which the fast variants require): for tests about
// shapes, not arithmetic.
inline std::vector<ChannelQuant> unit_channel_quants(int64_t channels) {
  return std::vector<ChannelQuant>(static_cast<std::size_t>(channels > 0 ? channels : 0),
                                   make_channel_quant(0, 1 << 30, -1));
}

// validate_sizes with input `quant_input` a constant of unit ChannelQuants
// filling the bytes it claims: for tests of a weighted kernel's shape
// checks, which need well-formed per-channel constants to get that far.
inline Status validate_sizes_with_unit_quants(const KernelDescriptor& kernel, const void* params,
                                              const uint32_t* in_bytes, uint32_t num_inputs,
                                              const uint32_t* out_bytes, uint32_t num_outputs,
                                              uint32_t quant_input = 2) {
  const bool has_quant = quant_input < num_inputs;
  const std::vector<ChannelQuant> quant =
      unit_channel_quants(has_quant ? in_bytes[quant_input] / sizeof(ChannelQuant) + 1 : 0);
  std::vector<const void*> constants(num_inputs + 1, nullptr);
  if (has_quant) constants[quant_input] = quant.data();
  return validate_sizes(kernel, params, in_bytes, num_inputs, out_bytes, num_outputs,
                        constants.data());
}

}  // namespace tinyaot::test
