// Folding the input offset into the bias (freestanding, header-only).
//
// sum_k (x_k + input_offset) * w_k = sum_k x_k * w_k + input_offset * sum_k w_k,
// and the second term depends on the weights only: the compiler adds it to
// each row's bias once, so a variant multiplies raw int8 inputs (what
// MVE's 8-bit multiply-accumulate takes) and stays bit-exact. Both sides are
// taken modulo 2^32, as the int32 accumulator wraps on the hardware.
#pragma once

#include <stdint.h>

#include "kernels/common/quant.h"

namespace tinyaot {

// Sum of one row of int8 weights, wrapping like the accumulator.
inline int32_t kernel_sum(const int8_t* weights, int32_t depth) {
  uint32_t sum = 0;
  for (int32_t k = 0; k < depth; ++k) sum += static_cast<uint32_t>(int32_t{weights[k]});
  return static_cast<int32_t>(sum);
}

// quant[r].bias += input_offset * sum(weights[r][0..depth)) for each of
// `rows` rows of `depth` weights.
inline void fold_input_offset(ChannelQuant* quant, int32_t rows, const int8_t* weights,
                              int32_t depth, int32_t input_offset) {
  for (int32_t r = 0; r < rows; ++r, weights += depth) {
    const uint32_t term =
        static_cast<uint32_t>(input_offset) * static_cast<uint32_t>(kernel_sum(weights, depth));
    quant[r].bias = static_cast<int32_t>(static_cast<uint32_t>(quant[r].bias) + term);
  }
}

}  // namespace tinyaot
