// Lowering of BATCH_MATMUL: pads both shapes to 5-D, checks broadcasting,
// computes the one rescale, and decides each operand's layout. A constant
// operand the kernel would have to transpose is transposed here instead, so
// only dynamic depth-major operands cost scratch at run time (and none on
// an MVE core, whose variant reads them in place). Then it picks the
// variant; the MVE one also takes a constant RHS's column terms.
#include <algorithm>

#include "kernels/batch_matmul/batch_matmul.h"
#include "kernels/batch_matmul/batch_matmul_terms.h"
#include "kernels/common/lower_helpers.h"
#include "kernels/common/variant_choice.h"

namespace tinyaot {
namespace {

// Rank-2..5 shape padded with leading 1s to 5 dimensions.
std::vector<int32_t> extended5(const std::vector<int32_t>& shape) {
  std::vector<int32_t> out(5 - shape.size(), 1);
  out.insert(out.end(), shape.begin(), shape.end());
  return out;
}

// Every [depth, n] matrix of a constant tensor as [n, depth].
template <typename T>
std::vector<T> transpose_matrices(const std::vector<T>& data, int32_t depth, int32_t n) {
  std::vector<T> out(data.size());
  const size_t matrix = static_cast<size_t>(depth) * static_cast<size_t>(n);
  for (size_t base = 0; base < data.size(); base += matrix)
    for (size_t i = 0; i < static_cast<size_t>(n); ++i)
      for (size_t k = 0; k < static_cast<size_t>(depth); ++k)
        out[base + i * static_cast<size_t>(depth) + k] =
            data[base + k * static_cast<size_t>(n) + i];
  return out;
}

// The operand as the kernel reads it: the tensor itself, or for a constant
// depth-major one, its matrices transposed at compile time.
LoweredOperand operand_for(const Graph& graph, const Operation& op, size_t index, bool depth_major,
                           int32_t depth, int32_t n, MatrixLayout* layout) {
  const Tensor& tensor = input_tensor(graph, op, index);
  if (depth_major && tensor.is_constant()) {
    *layout = MatrixLayout::kDepthMinor;
    if (tensor.dtype == DType::kInt16)
      return LoweredOperand::of_values(transpose_matrices(constant_i16(tensor, op), depth, n));
    return LoweredOperand::of_values(transpose_matrices(constant_i8(tensor, op), depth, n));
  }
  *layout = depth_major ? MatrixLayout::kDepthMajor : MatrixLayout::kDepthMinor;
  return LoweredOperand::of_tensor(op.inputs[index]);
}

// Rough cycle models; only their ordering matters. The reference adds
// both offsets per MAC (about 5 instructions a MAC) and transposes each
// depth-major matrix it reads. The MVE variant: per 16 values and four
// outputs one vector of one operand, four of the other, four VMLADAVA and
// a VADDVA (about 3 instructions per 16 MACs an output; a depth-major
// operand's gathers one more), the output step four outputs a vector.
uint64_t outputs_of(const BatchMatmulParams& p) {
  uint64_t batches = 1;
  for (int d = 0; d < 3; ++d) batches *= uint64_t(std::max(p.lhs_batch[d], p.rhs_batch[d]));
  return batches * uint64_t(p.rows) * uint64_t(p.cols);
}

uint64_t reference_cost(const BatchMatmulParams& p) {
  return outputs_of(p) * (5 * uint64_t(p.depth) + 12) +
         uint64_t(batch_matmul_ref_scratch_bytes(p, Activations::kInt8)) * 4;
}

uint64_t mve_cost(const BatchMatmulParams& p) {
  const uint64_t blocks = (uint64_t(p.depth) + 15) / 16;
  const bool gathers =
      p.lhs_layout == MatrixLayout::kDepthMajor || p.rhs_layout == MatrixLayout::kDepthMajor;
  const uint64_t per_block = gathers ? 4 : 3;
  return outputs_of(p) * (blocks * per_block + 8);
}

const VariantCandidate<BatchMatmulParams> kVariants[] = {
    {KernelId::batch_matmul_s8_ref, nullptr, reference_cost},
    {KernelId::batch_matmul_s8_mve, batch_matmul_mve_applies, mve_cost},
};

}  // namespace

LoweredOp lower_batch_matmul(const Graph& graph, const Operation& op, const Target& target) {
  const Tensor& lhs = input_tensor(graph, op, 0);
  const Tensor& rhs = input_tensor(graph, op, 1);
  const Tensor& output = output_tensor(graph, op);
  const bool int16 = lhs.dtype == DType::kInt16;
  require(
      (lhs.dtype == DType::kInt8 || int16) && rhs.dtype == lhs.dtype && output.dtype == lhs.dtype,
      op, "LHS, RHS and output must be all int8 or all int16");
  const Activations activations = int16 ? Activations::kInt16 : Activations::kInt8;
  require(!int16 || target.rounding != Rounding::kOnnx, op,
          "rounding mode onnx has no int16 operators; compile with --rounding tflm");
  const size_t lhs_rank = lhs.shape.size();
  const size_t rhs_rank = rhs.shape.size();
  require(lhs_rank >= 2 && lhs_rank <= 5 && rhs_rank >= 2 && rhs_rank <= 5, op,
          "operands must have rank 2 to 5");
  for (const Tensor* t : {&lhs, &rhs, &output})
    require(std::all_of(t->shape.begin(), t->shape.end(), [](int32_t d) { return d > 0; }), op,
            "every dimension must be positive");
  require(lhs.quant.scales.size() == 1 && rhs.quant.scales.size() == 1 &&
              output.quant.scales.size() == 1,
          op, "operands must be quantized per tensor");

  const bool adj_x = op.attrs.adj_x;
  const bool adj_y = op.attrs.adj_y;
  const std::vector<int32_t> l = extended5(lhs.shape);
  const std::vector<int32_t> r = extended5(rhs.shape);
  const int32_t rows = adj_x ? l[4] : l[3];
  const int32_t depth = adj_x ? l[3] : l[4];
  const int32_t rhs_depth = adj_y ? r[4] : r[3];
  const int32_t cols = adj_y ? r[3] : r[4];
  require(depth == rhs_depth, op, "LHS and RHS accumulation depths differ");

  // Output: broadcast batch dimensions at the larger rank, then rows, cols.
  std::vector<int32_t> expected(5);
  for (size_t d = 0; d < 3; ++d) {
    require(l[d] == r[d] || l[d] == 1 || r[d] == 1, op, "batch dimensions do not broadcast");
    expected[d] = std::max(l[d], r[d]);
  }
  expected[3] = rows;
  expected[4] = cols;
  const size_t out_rank = std::max(lhs_rank, rhs_rank);
  expected.erase(expected.begin(), expected.begin() + static_cast<std::ptrdiff_t>(5 - out_rank));
  require(output.shape == expected, op, "output shape differs from the broadcast product shape");

  BatchMatmulParams params{};
  for (size_t d = 0; d < 3; ++d) {
    params.lhs_batch[d] = l[d];
    params.rhs_batch[d] = r[d];
  }
  params.rows = rows;
  params.depth = depth;
  params.cols = cols;
  params.lhs_offset = -lhs.quant.zero_point();
  params.rhs_offset = -rhs.quant.zero_point();
  params.output_offset = output.quant.zero_point();
  if (target.rounding == Rounding::kOnnx) {
    // QLinearMatMul's float32 multiplier (onnx_requantize.h).
    const std::optional<int32_t> bits = onnx_multiplier_bits(
        onnx_weighted_multiplier(lhs.quant.scale(), rhs.quant.scale(), output.quant.scale()));
    require(bits.has_value(), op, "lhs*rhs/output scale is not a finite float32");
    params.multiplier = *bits;
    params.shift = -1;
  } else {
    // TFLite multiplies the two scales in float before widening to double.
    const double real = static_cast<double>(lhs.quant.scale() * rhs.quant.scale()) /
                        static_cast<double>(output.quant.scale());
    const QuantizedMultiplier q = quantize_multiplier(real, target.rounding);
    params.multiplier = q.multiplier;
    params.shift = q.shift;
  }
  require(params.shift >= -31 && params.shift <= (int16 ? 7 : 30), op,
          "rescale out of the representable range");
  require(!int16 || depth <= kBatchMatmulS16MaxDepth, op,
          "int16 accumulation depth " + std::to_string(depth) + " is over " +
              std::to_string(kBatchMatmulS16MaxDepth));
  params.act_min = op.act_min;
  params.act_max = op.act_max;

  // The kernel reads LHS as [rows, depth] and RHS as [cols, depth].
  LoweredOperand lhs_operand = operand_for(graph, op, 0, adj_x, depth, rows, &params.lhs_layout);
  LoweredOperand rhs_operand = operand_for(graph, op, 1, !adj_y, depth, cols, &params.rhs_layout);
  require(batch_matmul_ref_scratch_bytes(params, activations) != UINT32_MAX, op,
          "operands too large for the kernel's scratch");

  // int16 has its reference alone.
  const KernelId kernel =
      int16 ? KernelId::batch_matmul_s16_ref : choose_variant(kVariants, params, target);
  LoweredOp lowered = make_lowered(kernel, params);
  // The MVE variant takes a constant RHS's column terms from the program.
  const bool stores_terms =
      batch_matmul_variant_takes_terms(find_kernel(static_cast<uint32_t>(kernel))) &&
      rhs.is_constant();
  std::vector<int32_t> terms;
  if (stores_terms) {
    const std::vector<int8_t> values =
        rhs_operand.tensor >= 0
            ? constant_i8(rhs, op)
            : std::vector<int8_t>(rhs_operand.constant.begin(), rhs_operand.constant.end());
    terms.resize(static_cast<size_t>(batch_matmul_column_term_count(params)));
    batch_matmul_column_terms(params, values.data(), terms.data());
  }
  lowered.inputs = {std::move(lhs_operand), std::move(rhs_operand)};
  if (stores_terms) lowered.inputs.push_back(LoweredOperand::of_values(terms));
  lowered.outputs = {op.outputs[0]};
  return lowered;
}

}  // namespace tinyaot
