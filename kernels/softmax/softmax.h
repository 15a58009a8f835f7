// SOFTMAX, int8 in, int8 out (scale 1/256, zero point -128), over the last
// dimension, bit-exact with TFLite Micro's integer reference.
//
// TFLite rescales each difference x - max(row) (an integer in [-255, 0]) by
// beta * input_scale into Q5.26 and takes gemmlowp's exp of it. Those 256
// exponentials depend only on the compile-time constants, so the compiler
// computes them (in the program's rounding mode) into a table; a difference
// TFLite skips (below diff_min) gets 0, which yields exactly the skipped
// value (-128) and adds nothing to the sum. The kernel then sums in Q12,
// takes the fixed-point reciprocal and scales each exponential, as TFLite
// does.
#pragma once

#include <stdint.h>

#include "tinyaot/kernel_abi.h"

namespace tinyaot {

// One table entry per difference max(row) - x in 0..255.
constexpr int32_t kSoftmaxExpTableSize = 256;

struct SoftmaxParams {
  int32_t rows;   // product of all dimensions but the last
  int32_t depth;  // the last dimension
};

// Operands: input s8 [rows, depth], exp table int32 [256] (Q0.31)
// -> output s8 [rows, depth].
extern const KernelDescriptor kernel_softmax_s8_ref;

}  // namespace tinyaot
