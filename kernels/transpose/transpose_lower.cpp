// Lowering of TRANSPOSE: output axis k walks input axis perm[k], so the
// box has the output's dims and the input's strides in permuted order.
#include "kernels/common/lower_helpers.h"
#include "kernels/copy/strided_box_lower.h"
#include "kernels/transpose/transpose.h"

namespace tinyaot {

LoweredOp lower_transpose(const Graph& graph, const Operation& op, const Target& /*target*/) {
  const Tensor& input = input_tensor(graph, op, 0);
  const Tensor& output = output_tensor(graph, op);
  const int32_t element_bytes = moved_element_bytes(graph, op);
  const size_t rank = input.shape.size();
  require(rank >= 1 && rank <= kMaxRank, op,
          "rank " + std::to_string(rank) + " is outside 1.." + std::to_string(kMaxRank));
  const std::vector<int32_t> perm = constant_i32(input_tensor(graph, op, 1), op);
  require(perm.size() == rank, op,
          "perm has " + std::to_string(perm.size()) + " entries for a rank " +
              std::to_string(rank) + " input");
  std::vector<bool> seen(rank, false);
  for (int32_t axis : perm) {
    require(axis >= 0 && static_cast<size_t>(axis) < rank && !seen[static_cast<size_t>(axis)], op,
            "perm is not a permutation of 0.." + std::to_string(rank - 1));
    seen[static_cast<size_t>(axis)] = true;
  }
  for (int32_t dim : input.shape) require(dim >= 1, op, "input has an empty dimension");
  require(input.bytes() <= INT32_MAX, op, "input too large for 32-bit indices");

  const std::vector<int64_t> strides = dense_strides(input.shape);
  std::vector<int32_t> dims(rank);
  std::vector<int64_t> steps(rank);
  for (size_t k = 0; k < rank; ++k) {
    dims[k] = input.shape[static_cast<size_t>(perm[k])];
    steps[k] = strides[static_cast<size_t>(perm[k])];
  }
  require(dims == output.shape, op, "output shape is not the permuted input shape");

  TransposeParams params{};
  params.source = make_strided_box(dims, steps, 0, element_bytes);
  params.input_elements = static_cast<int32_t>(input.bytes());
  return lower_single_input(KernelId::transpose_s8_ref, params, op);
}

}  // namespace tinyaot
