// Lowering of PAD and PADV2 (TFLite Micro semantics): PAD fills with the
// output zero point; PADV2 with its int8 constant_values, which must share
// the output's quantization (TFLM requires it: the value is used as is).
// Input and output bytes are copied unchanged, as TFLM does.
#include "kernels/common/lower_helpers.h"
#include "kernels/copy/strided_box_lower.h"
#include "kernels/pad/pad.h"

namespace tinyaot {

LoweredOp lower_pad(const Graph& graph, const Operation& op, const Target& /*target*/) {
  const Tensor& input = input_tensor(graph, op, 0);
  const Tensor& output = output_tensor(graph, op);
  const int32_t element_bytes = moved_element_bytes(graph, op);
  const size_t rank = input.shape.size();
  require(rank >= 1 && rank <= kMaxRank, op,
          "rank " + std::to_string(rank) + " is outside 1.." + std::to_string(kMaxRank));
  for (int32_t dim : input.shape) require(dim >= 1, op, "input has an empty dimension");
  require(output.bytes() <= INT32_MAX, op, "output too large for 32-bit indices");

  const std::vector<int32_t> paddings = constant_i32(input_tensor(graph, op, 1), op);
  require(paddings.size() == 2 * rank, op,
          "paddings must be [" + std::to_string(rank) + ", 2] int32, it has " +
              std::to_string(paddings.size()) + " values");
  std::vector<int32_t> padded(rank);
  for (size_t d = 0; d < rank; ++d) {
    const int32_t before = paddings[2 * d], after = paddings[2 * d + 1];
    require(before >= 0 && after >= 0, op, "negative padding on axis " + std::to_string(d));
    const int64_t size = int64_t{input.shape[d]} + before + after;
    require(size <= INT32_MAX, op, "padded axis too large");
    padded[d] = static_cast<int32_t>(size);
  }
  require(padded == output.shape, op, "output shape is not the padded input shape");

  int32_t pad_value = output.quant.zero_point();
  if (op.type == OpType::kPadV2 && has_input(op, 2)) {
    const Tensor& constant = input_tensor(graph, op, 2);
    require(constant.dtype == output.dtype, op, "constant_values must have the output's type");
    require(constant.quant.zero_point() == output.quant.zero_point() &&
                constant.quant.scale() == output.quant.scale(),
            op, "constant_values must have the output's scale and zero point");
    require(constant.num_elements() == 1 && constant.is_constant() &&
                static_cast<int64_t>(constant.data->size()) == element_bytes,
            op, "constant_values must hold exactly one value");
    // Little-endian, as the program's constants.
    const std::vector<uint8_t>& bytes = *constant.data;
    pad_value = element_bytes == 2 ? static_cast<int16_t>(bytes[0] | bytes[1] << 8)
                                   : static_cast<int8_t>(bytes[0]);
  }

  const std::vector<int64_t> out_strides = dense_strides(output.shape);
  std::vector<int64_t> steps(rank);
  int64_t offset = 0;
  for (size_t d = 0; d < rank; ++d) {
    steps[d] = out_strides[d];
    offset += int64_t{paddings[2 * d]} * out_strides[d];
  }
  PadParams params{};
  params.destination = make_strided_box(input.shape, steps, offset, element_bytes);
  params.output_elements = static_cast<int32_t>(output.bytes());
  params.pad_value = pad_value;
  return lower_single_input(element_bytes == 2 ? KernelId::pad_s16_ref : KernelId::pad_s8_ref,
                            params, op);
}

}  // namespace tinyaot
