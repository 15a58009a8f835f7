// MEAN, int8: the average over a set of reduced dimensions, as TFLite
// Micro's reference kernel computes it: always the requantizing integer path
// (QuantizedMeanOrSum), also when input and output share their quantization
// (a plain truncating division differs from it in about half the outputs). The compiler merges
// neighbouring dimensions that are all reduced or all kept and drops dimensions of size 1, so the
// kernel sees a short shape with a mask of reduced dimensions. The output holds the kept dimensions
// in input order (keep_dims only inserts 1s, which does not change the layout).
#pragma once

#include <stdint.h>

#include "tinyaot/kernel_abi.h"

namespace tinyaot {

constexpr int32_t kMeanMaxRank = 6;

struct MeanParams {
  int32_t rank;  // 1..kMeanMaxRank
  int32_t dims[kMeanMaxRank];
  uint32_t reduced_mask;  // bit i set: dims[i] is averaged over
  int32_t count;          // cells per output: the product of the reduced dims
  // (sum - count * input_zero_point) rescaled by a multiplier that folds in
  // 1 / count, plus the output zero point.
  int32_t input_zero_point;
  int32_t output_zero_point;
  int32_t multiplier;  // Q31, 1/count folded in as TFLite Micro folds it
  int32_t shift;
};

// Operands: input s8 [dims...] -> output s8 [the kept dims].
extern const KernelDescriptor kernel_mean_s8_ref;

}  // namespace tinyaot
