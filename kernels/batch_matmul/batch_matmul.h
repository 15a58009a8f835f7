// BATCH_MATMUL, int8 per-tensor: out[b][i][j] = clamp(requant(sum_k
// (lhs[b][i][k] + lhs_offset) * (rhs[b][k][j] + rhs_offset)) + output_offset),
// batch dimensions broadcast as TFLite does (rank 2..5, padded to 3 batch
// dimensions at the front).
#pragma once

#include <stdint.h>

#include "kernels/common/int16x8.h"
#include "tinyaot/kernel_abi.h"

namespace tinyaot {

// How an operand's matrices are laid out in memory. The kernel multiplies
// depth-contiguous rows of both operands: LHS as [rows, depth], RHS as
// [cols, depth]. kDepthMajor operands ([depth, rows] / [depth, cols]) are
// transposed one matrix at a time into scratch; the compiler pre-transposes
// constant operands so that they never need it.
enum class MatrixLayout : uint8_t { kDepthMinor = 0, kDepthMajor = 1 };

struct BatchMatmulParams {
  int32_t lhs_batch[3];  // leading dimensions, 1 where absent or broadcast
  int32_t rhs_batch[3];
  int32_t rows;   // LHS rows = output rows
  int32_t depth;  // accumulation depth
  int32_t cols;   // RHS columns = output columns
  MatrixLayout lhs_layout;
  MatrixLayout rhs_layout;
  uint8_t reserved[2];  // zero
  int32_t lhs_offset;   // -LHS zero point
  int32_t rhs_offset;   // -RHS zero point
  int32_t output_offset;
  int32_t multiplier;  // lhs_scale * rhs_scale / output_scale, Q31
  int32_t shift;       // positive = left
  int32_t act_min;
  int32_t act_max;
};

// Room for one transposed LHS matrix and/or one transposed RHS matrix
// (0 when neither operand is depth-major). UINT32_MAX for parameters no
// valid program can hold.
uint32_t batch_matmul_ref_scratch_bytes(const BatchMatmulParams& params, Activations activations);

// The deepest int16 product: its sums stay within requantize_wide's bound
// (2^30 per product).
constexpr int32_t kBatchMatmulS16MaxDepth = 1 << 17;

// Every variant's checks of the params and of the LHS, RHS and output
// operands' sizes (inputs[0..1], outputs[0]) for int8 or int16 operands.
TINYAOT_LOAD_TIME Status validate_batch_matmul_operands(const BatchMatmulParams& params,
                                                        Activations activations,
                                                        const OperandView* inputs,
                                                        const OperandView* outputs);

// Operands: lhs s8 [lhs_batch..., rows, depth] (or [..., depth, rows]),
// rhs s8 [rhs_batch..., cols, depth] (or [..., depth, cols]) -> output s8
// [broadcast batch..., rows, cols].
extern const KernelDescriptor kernel_batch_matmul_s8_ref;

// The same with int16 operands and output (TFLite's 16x16 BATCH_MATMUL:
// zero points 0, int64 sums, TFLite's int64 rescale).
extern const KernelDescriptor kernel_batch_matmul_s16_ref;

// MVE cores: raw int8 products by VMLADAVA, four output columns per LHS-row
// load, depth-major operands read by gathers (no scratch); a constant RHS
// comes with its column terms (batch_matmul_terms.h) as a third operand.
extern const KernelDescriptor kernel_batch_matmul_s8_mve;

}  // namespace tinyaot
