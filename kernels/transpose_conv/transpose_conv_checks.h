// The checks every TRANSPOSE_CONV variant's validate makes (freestanding,
// header-only): sizes that fit int32 without wrapping, and parameters
// within the ranges the kernels assume.
#pragma once

#include <stdint.h>

#include "kernels/common/validate.h"
#include "kernels/transpose_conv/transpose_conv.h"

namespace tinyaot {

// Elements of the input, the model's weights and the output: -1 where a
// dimension is not positive or a product overflows.
struct TransposeConvSizes {
  int64_t input, filter, output;
};

inline TransposeConvSizes transpose_conv_sizes(const TransposeConvParams& p) {
  const int32_t input_dims[] = {p.batches, p.input_h, p.input_w, p.input_depth};
  const int32_t filter_dims[] = {p.output_depth, p.filter_h, p.filter_w, p.input_depth};
  const int32_t output_dims[] = {p.batches, p.output_h, p.output_w, p.output_depth};
  return {checked_elements(input_dims, 4), checked_elements(filter_dims, 4),
          checked_elements(output_dims, 4)};
}

// Strides, leading padding, zero points and the activation range.
inline bool is_transpose_conv_params(const TransposeConvParams& p) {
  return p.stride_h >= 1 && p.stride_w >= 1 && p.pad_top >= 0 && p.pad_left >= 0 &&
         p.input_offset >= -127 && p.input_offset <= 128 && p.output_offset >= -128 &&
         p.output_offset <= 127 && is_activation_range(p.act_min, p.act_max);
}

}  // namespace tinyaot
