// SOFTMAX with int16 input and output (scale 1/32768, zero point 0), TFLite
// Micro's SoftmaxInt16: each difference x - max(row) rescaled so that
// [-65535, 0] spans [-10, 0], its exponential read from a 513-entry table
// with linear interpolation, the sum's reciprocal from a second table of
// 1 / (1 + x) over [0, 1]. The compiler fills both tables
// (softmax_int16_tables, host only) as TFLite Micro's Prepare does.
#pragma once

#include <stdint.h>

#include "tinyaot/kernel_abi.h"

namespace tinyaot {

// Entries of each table: 512 steps and the end point.
constexpr int32_t kSoftmaxInt16TableSize = 513;

// The longest row whose sum of exponentials (each at most 32767) stays
// within int32, as TFLite's int32 sum needs.
constexpr int32_t kSoftmaxInt16MaxDepth = 65536;

struct SoftmaxInt16Params {
  int32_t rows;   // product of all dimensions but the last
  int32_t depth;  // the last dimension
  // input_scale * beta / (10 / 65535) as a multiplier and shift.
  int32_t input_multiplier;
  int32_t input_shift;
};

// TFLite's generic_int16_table_lookup: 512 segments over int16's range,
// the segment's base plus its slope times the low 7 bits, rounded.
inline int16_t int16_table_lookup(int16_t value, const int16_t* table) {
  const int32_t index = 256 + (value >> 7);
  const int32_t offset = value & 0x7f;
  const int32_t base = table[index];
  const auto slope = static_cast<int16_t>(table[index + 1] - table[index]);
  return static_cast<int16_t>(base + ((slope * offset + 64) >> 7));
}

// Operands: input s16 [rows, depth], exp_table i16 [513], reciprocal_table
// i16 [513] -> output s16 [rows, depth].
extern const KernelDescriptor kernel_softmax_s16_ref;

}  // namespace tinyaot
