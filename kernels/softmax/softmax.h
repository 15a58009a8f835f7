// SOFTMAX, int8 in, int8 out (scale 1/256, zero point -128) or int16 out,
// over the last dimension, bit-exact with TFLite Micro's integer reference.
//
// TFLite rescales each difference x - max(row) (an integer in [-255, 0]) by
// beta * input_scale into Q5.26 and takes gemmlowp's exp of it. Those 256
// exponentials depend only on the compile-time constants, so the compiler
// computes them (in the program's rounding mode) into a table; a difference
// TFLite skips (below diff_min) gets 0, which yields exactly the skipped
// value (-128) and adds nothing to the sum. The program stores the table
// up to its last entry that can change an output (kSoftmaxNegligibleExp;
// kws: 96 of 256) and the kernel reads 0 past its end. The kernel then
// sums in Q12, takes the fixed-point reciprocal and scales each
// exponential, as TFLite does.
#pragma once

#include <stdint.h>

#include "tinyaot/kernel_abi.h"

namespace tinyaot {

// At most one table entry per difference max(row) - x in 0..255.
constexpr int32_t kSoftmaxExpTableSize = 256;

// Integer bits of the kernel's sum of exponentials (TFLite's
// kAccumulationIntegerBits).
constexpr int kSoftmaxSumIntegerBits = 12;

// An exponential (Q0.31) under this, half a step of that sum, adds 0 to it
// (each is rescaled to Q12 on its own, rounding to nearest) and gives the
// lowest output, as 0 does: its product with the reciprocal (Q0.31) is at
// most itself, then rounded at a right shift of 31 - 8 or more. The
// compiler stores the table only up to its last exponential at or above it.
constexpr int32_t kSoftmaxNegligibleExp = int32_t{1} << (kSoftmaxSumIntegerBits - 1);

struct SoftmaxParams {
  int32_t rows;   // product of all dimensions but the last
  int32_t depth;  // the last dimension
};

// Operands: input s8 [rows, depth], exp table int32 [1..256] (Q0.31, 0
// past its end) -> output s8 [rows, depth].
#define TINYAOT_SOFTMAX_SIGNATURE                                          \
  "input:s8[rows,depth], exp_table:i32[1..256] -> output:s8[rows,depth]; " \
  "params=SoftmaxParams{rows,depth}"
extern const KernelDescriptor kernel_softmax_s8_ref;
// The same with int16 output (scale 1/65536, zero point -32768), TFLite
// Micro's int8 -> int16 SOFTMAX: the exponentials and the sum as above,
// the probability rounded to 16 bits. The table's cut (kSoftmaxNegligibleExp)
// holds for it too: its output shift, 31 - 16 and more, still rounds a
// product under 2^11 to 0.
extern const KernelDescriptor kernel_softmax_s8_s16_ref;

// The longest row whose Q12 sum cannot wrap around to a positive value:
// each exponential adds at most 1.0 (2^(31 - 12)), so up to 2^(32 - 19) - 1
// values sum below 2^32; a sum at or above 2^31 reads negative and fails
// the row in every variant alike. A longer row can wrap to a small sum
// (8192 values at the maximum sum to exactly 2^32, read 0) whose
// reciprocal is negative, where the reference's rounding of negative
// products is its own.
#define TINYAOT_SOFTMAX_MVE_MAX_DEPTH 8191
constexpr int32_t kSoftmaxMveMaxDepth = TINYAOT_SOFTMAX_MVE_MAX_DEPTH;
static_assert(kSoftmaxMveMaxDepth == (int32_t{1} << (kSoftmaxSumIntegerBits + 1)) - 1,
              "2^32 / 2^(31 - kSoftmaxSumIntegerBits) - 1");
#define TINYAOT_SOFTMAX_TEXT_(x) #x
#define TINYAOT_SOFTMAX_TEXT(x) TINYAOT_SOFTMAX_TEXT_(x)  // the bound in a signature

TINYAOT_LOAD_TIME inline bool is_softmax_mve_case(const SoftmaxParams& p) {
  return p.depth <= kSoftmaxMveMaxDepth;
}

// MVE (softmax_s8_mve.cpp): the reference's arithmetic, the maximum 16
// values a step and the table read four values a step by gathers; rows of
// at most kSoftmaxMveMaxDepth values.
extern const KernelDescriptor kernel_softmax_s8_mve;

}  // namespace tinyaot
