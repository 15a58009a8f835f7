// Lowering of CONCATENATION. TFLite Micro copies int8 bytes unchanged even
// when the quantizations differ, and TFLite rejects that case; so both
// agree only when every input shares the output's scale and zero point,
// which is what we require rather than pick one of the two behaviours.

#include "kernels/common/lower_helpers.h"
#include "kernels/concatenation/concatenation.h"

namespace tinyaot {

LoweredOp lower_concatenation(const Graph& graph, const Operation& op, const Target& /*target*/) {
  const Tensor& output = output_tensor(graph, op);
  require(output.dtype == DType::kInt8 || output.dtype == DType::kInt16, op,
          "only int8 and int16 are supported");
  const int64_t element_bytes = output.dtype == DType::kInt16 ? 2 : 1;
  const size_t count = op.inputs.size();
  require(count >= 1 && count <= kConcatenationMaxInputs, op,
          std::to_string(count) + " inputs; 1.." + std::to_string(kConcatenationMaxInputs) +
              " are supported");
  const int32_t rank = static_cast<int32_t>(output.shape.size());
  require(rank >= 1 && rank <= static_cast<int32_t>(kMaxRank), op,
          "rank " + std::to_string(rank) + " is outside 1.." + std::to_string(kMaxRank));
  const int32_t axis = op.attrs.axis < 0 ? op.attrs.axis + rank : op.attrs.axis;
  require(axis >= 0 && axis < rank, op,
          "axis " + std::to_string(op.attrs.axis) + " is out of range for rank " +
              std::to_string(rank));
  const int32_t type_max = element_bytes == 2 ? 32767 : 127;
  require(op.attrs.activation == Activation::kNone && op.act_min <= -type_max - 1 &&
              op.act_max >= type_max,
          op, "a fused activation is not supported (TFLite Micro rejects it too)");
  for (int32_t dim : output.shape) require(dim >= 1, op, "output has an empty dimension");
  require(output.bytes() <= INT32_MAX, op, "output too large");

  int64_t outer = 1, inner = 1;
  for (int32_t d = 0; d < axis; ++d) outer *= output.shape[static_cast<size_t>(d)];
  for (int32_t d = axis + 1; d < rank; ++d) inner *= output.shape[static_cast<size_t>(d)];

  ConcatenationParams params{};
  params.num_inputs = static_cast<int32_t>(count);
  params.outer = static_cast<int32_t>(outer);
  int64_t axis_total = 0;
  for (size_t i = 0; i < count; ++i) {
    const Tensor& input = input_tensor(graph, op, i);
    const std::string which = "input " + std::to_string(i);
    require(input.dtype == output.dtype, op, which + " has another type than the output");
    require(input.shape.size() == output.shape.size(), op, which + " has another rank");
    for (int32_t d = 0; d < rank; ++d) {
      const size_t k = static_cast<size_t>(d);
      require(d == axis || input.shape[k] == output.shape[k], op,
              which + " differs from the output on axis " + std::to_string(d));
    }
    const int32_t along = input.shape[static_cast<size_t>(axis)];
    require(along >= 1 && along <= output.shape[static_cast<size_t>(axis)], op,
            which + " has " + std::to_string(along) + " entries along the axis");
    axis_total += along;
    params.row_bytes[i] = static_cast<int32_t>(along * inner * element_bytes);
  }
  require(axis_total == output.shape[static_cast<size_t>(axis)], op,
          "the inputs' sizes along the axis add up to " + std::to_string(axis_total) +
              ", the output has " + std::to_string(output.shape[static_cast<size_t>(axis)]));

  LoweredOp lowered = make_lowered(KernelId::concatenation_s8_ref, params);
  for (int32_t id : op.inputs) lowered.inputs.push_back(LoweredOperand::of_tensor(id));
  lowered.outputs = {op.outputs[0]};
  if (outer == 1) {
    // One row: each input is one contiguous slice of the output.
    uint32_t at = 0;
    for (size_t i = 0; i < count; ++i) {
      lowered.input_slices.push_back(at);
      at += static_cast<uint32_t>(params.row_bytes[i]);
    }
  }
  return lowered;
}

}  // namespace tinyaot
