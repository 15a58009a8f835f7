// Helpers for kernels' validate functions: overflow-safe size arithmetic,
// so that a corrupt parameter struct cannot wrap a size check around.
#pragma once

#include <stdint.h>

#include "kernels/common/quant.h"
#include "tinyaot/kernel_abi.h"
#include "tinyaot/status.h"

namespace tinyaot {

// a * b into *out; false on overflow past 2^31 - 1 (sizes stay signed-safe).
inline bool checked_mul(int64_t a, int64_t b, int64_t* out) {
  if (a < 0 || b < 0) return false;
  const int64_t limit = INT32_MAX;
  if (a != 0 && b > limit / a) return false;
  *out = a * b;
  return true;
}

// Product of `count` dimensions, each >= 1; -1 on overflow or a bad dim.
inline int64_t checked_elements(const int32_t* dims, uint32_t count) {
  int64_t total = 1;
  for (uint32_t i = 0; i < count; ++i) {
    if (dims[i] < 1 || !checked_mul(total, dims[i], &total)) return -1;
  }
  return total;
}

inline bool is_activation_range(int32_t lo, int32_t hi) {
  return lo >= -128 && hi <= 127 && lo <= hi;
}

template <typename T>
inline bool is_aligned_for(const void* pointer) {
  return reinterpret_cast<uintptr_t>(pointer) % alignof(T) == 0;
}

inline bool is_shift(int32_t shift) { return shift >= -31 && shift <= 30; }

// The per-channel constants of a weighted operator: `count` entries held
// as a constant of the program, so that their values are checked here, at
// load time, and the kernel trusts them at every call. A corrupt shift
// would make the requantization shift by 32 or more; TFLite requires a
// non-negative multiplier.
TINYAOT_LOAD_TIME inline bool is_channel_quant_operand(const OperandView& operand, int64_t count) {
  if (operand.constant == nullptr || count < 0 ||
      operand.bytes != static_cast<uint64_t>(count) * sizeof(ChannelQuant))
    return false;
  if (!is_aligned_for<ChannelQuant>(operand.constant)) return false;
  const auto* quant = static_cast<const ChannelQuant*>(operand.constant);
  for (int64_t i = 0; i < count; ++i) {
    const ChannelQuant& q = quant[i];
    if (!is_shift(q.shift) || q.multiplier < 0) return false;
  }
  return true;
}

// The same for the fast variants: every channel takes the usual case's
// rescale (has_fast_rescale), so that their output step needs no general path.
TINYAOT_LOAD_TIME inline bool is_fast_channel_quant_operand(const OperandView& operand,
                                                            int64_t count) {
  return is_channel_quant_operand(operand, count) &&
         every_channel_has_fast_rescale(static_cast<const ChannelQuant*>(operand.constant), count);
}

}  // namespace tinyaot
