// The offsets' share of a BATCH_MATMUL output, split so that a kernel can
// multiply raw int8 operands (freestanding, header-only; the MVE variant,
// the lowering that stores its constants and the sweep that checks it all
// use these).
//
// sum_k (l_k + lo) * (r_k + ro) = sum_k l_k * r_k + ro * sum_k l_k + lo * sum_k (r_k + ro),
// all modulo 2^32 like the int32 accumulator. The last term depends on the
// RHS column alone (its "column term"): for a constant RHS the compiler
// stores it per column, for an activation the kernel sums the column once
// per call and matrix. The middle one is the LHS row's (its "row term").
#pragma once

#include <stdint.h>

#include "kernels/batch_matmul/batch_matmul.h"
#include "kernels/common/quant.h"
#include "tinyaot/load_time.h"

namespace tinyaot {

// lo * sum_k (col[k * step] + ro) for one RHS column of `depth` values,
// `step` apart.
inline int32_t batch_matmul_column_term(const int8_t* col, int32_t depth, int32_t step,
                                        int32_t lhs_offset, int32_t rhs_offset) {
  uint32_t sum = 0;
  for (int32_t k = 0; k < depth; ++k) sum += static_cast<uint32_t>(col[k * step] + rhs_offset);
  return static_cast<int32_t>(sum * static_cast<uint32_t>(lhs_offset));
}

// The column terms of every column of every RHS matrix, [rhs batches][cols],
// for an RHS held depth-minor ([cols, depth] per matrix): what the MVE
// variant takes as its third operand for a constant RHS.
inline int64_t batch_matmul_column_term_count(const BatchMatmulParams& p) {
  return int64_t{p.rhs_batch[0]} * p.rhs_batch[1] * p.rhs_batch[2] * p.cols;
}

inline void batch_matmul_column_terms(const BatchMatmulParams& p, const int8_t* rhs,
                                      int32_t* terms) {
  const int64_t count = batch_matmul_column_term_count(p);
  for (int64_t c = 0; c < count; ++c)
    terms[c] = batch_matmul_column_term(rhs + c * p.depth, p.depth, 1, p.lhs_offset, p.rhs_offset);
}

// Whether `kernel` takes a constant RHS's column terms as its third
// operand (the lowering stores them, the sweep computes them so).
inline bool batch_matmul_variant_takes_terms(const KernelDescriptor* kernel) {
  return kernel == &kernel_batch_matmul_s8_mve;
}

// The largest element step of a depth-major operand the MVE variant reads
// with 16-bit gather offsets (15 steps in one gather): 65535 / 15.
constexpr int32_t kBatchMatmulMaxGatherStep = 4369;

// The MVE variant's case: a rescale the vector output step takes (a right
// shift and a multiplier >= 0, has_fast_rescale), depth-major operands
// within the gathers' reach. Backs the variant's validate and the
// lowering's choice alike.
TINYAOT_LOAD_TIME inline bool batch_matmul_mve_applies(const BatchMatmulParams& p) {
  if (!has_fast_rescale(make_channel_quant(0, p.multiplier, p.shift))) return false;
  if (p.lhs_layout == MatrixLayout::kDepthMajor && p.rows > kBatchMatmulMaxGatherStep) return false;
  return p.rhs_layout != MatrixLayout::kDepthMajor || p.cols <= kBatchMatmulMaxGatherStep;
}

}  // namespace tinyaot
