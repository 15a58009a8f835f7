// MEAN, int8 and int16: the average over a set of reduced dimensions, as TFLite
// Micro's reference kernel computes it: always the requantizing integer path
// (QuantizedMeanOrSum), also when input and output share their quantization
// (a plain truncating division differs from it in about half the outputs). The compiler merges
// neighbouring dimensions that are all reduced or all kept and drops dimensions of size 1, so the
// kernel sees a short shape with a mask of reduced dimensions. The output holds the kept dimensions
// in input order (keep_dims only inserts 1s, which does not change the layout).
#pragma once

#include <stdint.h>

#include "tinyaot/kernel_abi.h"
#include "tinyaot/load_time.h"

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

// The case of mean_s8_planes: the average of each channel over planes of
// at most 256 cells, the channels innermost ([cells, channels], or
// [batches, cells, channels]): a global average pool.
constexpr int32_t kMeanPlanesMaxCells = 256;
TINYAOT_LOAD_TIME inline bool is_mean_planes_case(const MeanParams& p) {
  return ((p.rank == 2 && p.reduced_mask == 1u) || (p.rank == 3 && p.reduced_mask == 2u)) &&
         p.count <= kMeanPlanesMaxCells;
}

// Operands: input s8 [dims...] -> output s8 [the kept dims].
extern const KernelDescriptor kernel_mean_s8_ref;
// The same arithmetic on int16 (zero points 0, no rounding mode onnx).
extern const KernelDescriptor kernel_mean_s16_ref;
// The reference's arithmetic over planes, channels summed as
// avg_pool2d_s8_sum16 and avg_pool2d_s8_mve sum them (mean_s8_planes.cpp).
extern const KernelDescriptor kernel_mean_s8_planes;
extern const KernelDescriptor kernel_mean_s8_planes_mve;

}  // namespace tinyaot
