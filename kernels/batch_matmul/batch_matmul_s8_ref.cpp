// Reference BATCH_MATMUL: TFLite Micro's integer semantics, computed one
// broadcast batch at a time. int8: both zero points subtracted, one
// multiplier, int32 accumulation. int16 (both operands and the output, zero
// points 0): int64 accumulation and TFLite's int64 rescale, as its
// BatchMatMul<int16_t, int64_t>.
#include "kernels/batch_matmul/batch_matmul.h"
#include "kernels/common/int16x8.h"
#include "kernels/common/output_step.h"
#include "kernels/common/quant.h"
#include "kernels/common/validate.h"
#include "tinyaot/load_time.h"

namespace tinyaot {
namespace {

bool is_layout(MatrixLayout layout) {
  return layout == MatrixLayout::kDepthMinor || layout == MatrixLayout::kDepthMajor;
}

// Matrix sizes; false on a bad dimension or overflow.
bool matrix_sizes(const BatchMatmulParams& p, int64_t* lhs, int64_t* rhs, int64_t* out) {
  if (p.rows < 1 || p.depth < 1 || p.cols < 1) return false;
  return checked_mul(p.rows, p.depth, lhs) && checked_mul(p.depth, p.cols, rhs) &&
         checked_mul(p.rows, p.cols, out);
}

int32_t output_batch(const BatchMatmulParams& p, int d) {
  return p.lhs_batch[d] == 1 ? p.rhs_batch[d] : p.lhs_batch[d];
}

}  // namespace

TINYAOT_LOAD_TIME Status validate_batch_matmul_operands(const BatchMatmulParams& p,
                                                        Activations activations,
                                                        const OperandView* inputs,
                                                        const OperandView* outputs) {
  int64_t lhs_matrix, rhs_matrix, out_matrix;
  if (!matrix_sizes(p, &lhs_matrix, &rhs_matrix, &out_matrix)) return Status::kBadParams;
  int32_t out_batch[3];
  for (int d = 0; d < 3; ++d) {
    if (p.lhs_batch[d] != p.rhs_batch[d] && p.lhs_batch[d] != 1 && p.rhs_batch[d] != 1)
      return Status::kBadParams;
    out_batch[d] = output_batch(p, d);
  }
  const int64_t lhs_batches = checked_elements(p.lhs_batch, 3);
  const int64_t rhs_batches = checked_elements(p.rhs_batch, 3);
  const int64_t out_batches = checked_elements(out_batch, 3);
  int64_t lhs_size, rhs_size, out_size;
  if (lhs_batches < 0 || rhs_batches < 0 || out_batches < 0 ||
      !checked_mul(lhs_batches, lhs_matrix * activation_bytes(activations), &lhs_size) ||
      !checked_mul(rhs_batches, rhs_matrix * activation_bytes(activations), &rhs_size) ||
      !checked_mul(out_batches, out_matrix * activation_bytes(activations), &out_size))
    return Status::kBadParams;
  if (inputs[0].bytes != lhs_size || inputs[1].bytes != rhs_size || outputs[0].bytes != out_size)
    return Status::kBadParams;
  if (!is_layout(p.lhs_layout) || !is_layout(p.rhs_layout) || p.reserved[0] != 0 ||
      p.reserved[1] != 0)
    return Status::kBadParams;
  if (activations == Activations::kInt16) {
    // requantize_wide's domain, and sums within its bound: 32768^2 * 2^17
    // is 2^47.
    if (p.lhs_offset != 0 || p.rhs_offset != 0 || p.output_offset != 0 || p.multiplier < 0 ||
        p.shift < -31 || p.shift > 7 || p.depth > kBatchMatmulS16MaxDepth ||
        !is_int16_activation_range(p.act_min, p.act_max))
      return Status::kBadParams;
    return Status::kOk;
  }
  if (p.lhs_offset < -127 || p.lhs_offset > 128 || p.rhs_offset < -127 || p.rhs_offset > 128 ||
      p.output_offset < -128 || p.output_offset > 127 || p.multiplier < 0 || !is_shift(p.shift) ||
      !is_activation_range(p.act_min, p.act_max))
    return Status::kBadParams;
  return Status::kOk;
}

namespace {

template <typename T>
constexpr Activations kActivationsOf = sizeof(T) == 2 ? Activations::kInt16 : Activations::kInt8;

template <typename T>
TINYAOT_LOAD_TIME Status validate(const void* raw, const OperandView* inputs, uint32_t num_inputs,
                                  const OperandView* outputs, uint32_t num_outputs) {
  if (num_inputs != 2 || num_outputs != 1) return Status::kBadParams;
  return validate_batch_matmul_operands(*static_cast<const BatchMatmulParams*>(raw),
                                        kActivationsOf<T>, inputs, outputs);
}

template <typename T>
uint32_t scratch_bytes(const void* raw) {
  return batch_matmul_ref_scratch_bytes(*static_cast<const BatchMatmulParams*>(raw),
                                        kActivationsOf<T>);
}

// [depth, n] -> [n, depth]: the kernel's depth-contiguous layout.
template <typename T>
void transpose_into(const T* source, int32_t depth, int32_t n, T* target) {
  for (int32_t i = 0; i < n; ++i)
    for (int32_t k = 0; k < depth; ++k) target[i * depth + k] = source[k * n + i];
}

// One output element from a depth-contiguous LHS row and RHS column.
template <Rounding R>
int8_t dot_output(const BatchMatmulParams& p, const int8_t* row, const int8_t* col) {
  int32_t acc = 0;
  for (int32_t k = 0; k < p.depth; ++k)
    acc = wrapping_add(acc, (row[k] + p.lhs_offset) * (col[k] + p.rhs_offset));
  return output_step<R>(acc, 0, p.multiplier, p.shift, p.output_offset, p.act_min, p.act_max);
}

// int16: no offsets (validate), the int64 rescale alike in both modes.
template <Rounding R>
int16_t dot_output(const BatchMatmulParams& p, const int16_t* row, const int16_t* col) {
  int64_t acc = 0;
  for (int32_t k = 0; k < p.depth; ++k) acc += row[k] * col[k];
  return clamp_output_s16(requantize_wide(acc, p.multiplier, p.shift), p.act_min, p.act_max);
}

// One output matrix from depth-contiguous LHS rows and RHS columns.
template <Rounding R, typename T>
void multiply_matrix(const BatchMatmulParams& p, const T* lhs_rows, const T* rhs_cols, T* out) {
  for (int32_t i = 0; i < p.rows; ++i)
    for (int32_t j = 0; j < p.cols; ++j)
      out[i * p.cols + j] = dot_output<R>(p, lhs_rows + i * p.depth, rhs_cols + j * p.depth);
}

template <typename T>
Status run(const KernelArgs& args) {
  const auto& p = *static_cast<const BatchMatmulParams*>(args.params);
  const uint32_t need = batch_matmul_ref_scratch_bytes(p, kActivationsOf<T>);
  if (args.scratch.bytes < need || (need != 0 && args.scratch.data == nullptr))
    return Status::kBadArgument;
  const auto* lhs = static_cast<const T*>(args.inputs[0].data);
  const auto* rhs = static_cast<const T*>(args.inputs[1].data);
  auto* output = static_cast<T*>(args.outputs[0].data);
  const int32_t lhs_matrix = p.rows * p.depth;
  const int32_t rhs_matrix = p.depth * p.cols;
  const int32_t out_matrix = p.rows * p.cols;
  const bool transpose_lhs = p.lhs_layout == MatrixLayout::kDepthMajor;
  const bool transpose_rhs = p.rhs_layout == MatrixLayout::kDepthMajor;
  T* const lhs_scratch = static_cast<T*>(args.scratch.data);
  T* const rhs_scratch = lhs_scratch + (transpose_lhs ? lhs_matrix : 0);

  // Element strides of each batch dimension; 0 where the operand broadcasts.
  int32_t lhs_stride[3], rhs_stride[3];
  int32_t lhs_step = lhs_matrix, rhs_step = rhs_matrix;
  for (int d = 2; d >= 0; --d) {
    lhs_stride[d] = p.lhs_batch[d] == 1 ? 0 : lhs_step;
    rhs_stride[d] = p.rhs_batch[d] == 1 ? 0 : rhs_step;
    lhs_step *= p.lhs_batch[d];
    rhs_step *= p.rhs_batch[d];
  }

  // A broadcast operand repeats across consecutive batches: transpose it
  // again only when the source matrix changes.
  const T* lhs_held = nullptr;
  const T* rhs_held = nullptr;
  T* out = output;
  with_any_rounding(args.rounding, [&](auto mode) {
    for (int32_t b0 = 0; b0 < output_batch(p, 0); ++b0) {
      for (int32_t b1 = 0; b1 < output_batch(p, 1); ++b1) {
        for (int32_t b2 = 0; b2 < output_batch(p, 2); ++b2) {
          const T* lhs_source = lhs + b0 * lhs_stride[0] + b1 * lhs_stride[1] + b2 * lhs_stride[2];
          const T* rhs_source = rhs + b0 * rhs_stride[0] + b1 * rhs_stride[1] + b2 * rhs_stride[2];
          const T* lhs_rows = lhs_source;
          const T* rhs_cols = rhs_source;
          if (transpose_lhs) {
            if (lhs_held != lhs_source) transpose_into(lhs_source, p.depth, p.rows, lhs_scratch);
            lhs_held = lhs_source;
            lhs_rows = lhs_scratch;
          }
          if (transpose_rhs) {
            if (rhs_held != rhs_source) transpose_into(rhs_source, p.depth, p.cols, rhs_scratch);
            rhs_held = rhs_source;
            rhs_cols = rhs_scratch;
          }
          multiply_matrix<decltype(mode)::value, T>(p, lhs_rows, rhs_cols, out);
          out += out_matrix;
        }
      }
    }
  });
  return Status::kOk;
}

}  // namespace

uint32_t batch_matmul_ref_scratch_bytes(const BatchMatmulParams& params, Activations activations) {
  int64_t lhs_matrix, rhs_matrix, out_matrix;
  if (!matrix_sizes(params, &lhs_matrix, &rhs_matrix, &out_matrix)) return UINT32_MAX;
  int64_t bytes = 0;
  if (params.lhs_layout == MatrixLayout::kDepthMajor) bytes += lhs_matrix;
  if (params.rhs_layout == MatrixLayout::kDepthMajor) bytes += rhs_matrix;
  bytes *= activation_bytes(activations);
  // Same bound as validate(): sizes stay within int32.
  return bytes <= INT32_MAX ? static_cast<uint32_t>(bytes) : UINT32_MAX;
}

const KernelDescriptor kernel_batch_matmul_s8_ref = {
    "batch_matmul_s8_ref",
    "batch_matmul",
    1,
    sizeof(BatchMatmulParams),
    2,
    2,
    1,
    IsaClass::kScalar,
    "lhs:s8[lhs_batch,rows,depth|depth,rows], rhs:s8[rhs_batch,cols,depth|depth,cols] "
    "-> output:s8[batch,rows,cols]; scratch:s8[rows*depth if lhs depth-major + "
    "depth*cols if rhs depth-major]; "
    "params=BatchMatmulParams{lhs_batch[3],rhs_batch[3],rows,depth,cols,lhs_layout,rhs_layout,"
    "reserved[2],lhs_offset,rhs_offset,output_offset,multiplier,shift,act_min,act_max}",
    run<int8_t>,
    validate<int8_t>,
    scratch_bytes<int8_t>,
};

const KernelDescriptor kernel_batch_matmul_s16_ref = {
    "batch_matmul_s16_ref",
    "batch_matmul_s16",  // another element type: not a variant of batch_matmul_s8_ref
    1,
    sizeof(BatchMatmulParams),
    2,
    2,
    1,
    IsaClass::kScalar,
    "lhs:s16[lhs_batch,rows,depth|depth,rows], rhs:s16[rhs_batch,cols,depth|depth,cols] "
    "-> output:s16[batch,rows,cols]; scratch:s16[rows*depth if lhs depth-major + "
    "depth*cols if rhs depth-major]; "
    "params=BatchMatmulParams{lhs_batch[3],rhs_batch[3],rows,depth,cols,lhs_layout,rhs_layout,"
    "reserved[2],lhs_offset=0,rhs_offset=0,output_offset=0,multiplier,shift,act_min,act_max}",
    run<int16_t>,
    validate<int16_t>,
    scratch_bytes<int16_t>,
};

}  // namespace tinyaot
