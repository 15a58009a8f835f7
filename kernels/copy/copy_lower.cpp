// Lowering of RESHAPE, SQUEEZE and EXPAND_DIMS to a byte copy: only used
// when the alias pass could not make the output a view of the input. The
// shape / axis operand only decided the output shape, which the importer
// already recorded, so the kernel takes the data operand alone.
#include "kernels/common/lower_helpers.h"
#include "kernels/copy/copy.h"

namespace tinyaot {

LoweredOp lower_reshape(const Graph& graph, const Operation& op, const Target& /*target*/) {
  const Tensor& input = input_tensor(graph, op, 0);
  const Tensor& output = output_tensor(graph, op);
  require(input.dtype == output.dtype, op, "input and output types differ");
  require(input.num_elements() == output.num_elements(), op,
          "input has " + std::to_string(input.num_elements()) + " elements, output " +
              std::to_string(output.num_elements()));
  require(output.bytes() >= 1 && output.bytes() <= INT32_MAX, op,
          "tensor size out of range: " + std::to_string(output.bytes()) + " bytes");
  CopyParams params{};
  params.bytes = static_cast<int32_t>(output.bytes());
  return lower_single_input(KernelId::copy_s8, params, op);
}

}  // namespace tinyaot
