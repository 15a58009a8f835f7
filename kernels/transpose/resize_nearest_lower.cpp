// Lowering of RESIZE_NEAREST_NEIGHBOR by whole factors (TFLite's default
// options, align_corners and half_pixel_centers false: output row y reads
// input row y / factor) onto the transpose kernel's gather: the box walks
// each input row `factor` times with a step of 0, so an upsampling costs a
// copy and no index table.
#include "kernels/common/lower_helpers.h"
#include "kernels/copy/strided_box_lower.h"
#include "kernels/transpose/transpose.h"

namespace tinyaot {

LoweredOp lower_resize_nearest_neighbor(const Graph& graph, const Operation& op, const Target&) {
  const Tensor& input = input_tensor(graph, op, 0);
  const Tensor& output = output_tensor(graph, op);
  require(input.dtype == DType::kInt8 && output.dtype == DType::kInt8, op,
          "only int8 input and output are supported");
  require(input.shape.size() == 4 && output.shape.size() == 4, op,
          "input and output must be 4-D (NHWC)");
  require(input.quant.scales == output.quant.scales &&
              input.quant.zero_point() == output.quant.zero_point(),
          op, "input and output quantization must be equal");
  for (int32_t dim : input.shape) require(dim >= 1, op, "input has an empty dimension");
  require(input.num_elements() <= INT32_MAX && output.num_elements() <= INT32_MAX, op,
          "too large for 32-bit indices");
  require(output.shape[0] == input.shape[0] && output.shape[3] == input.shape[3], op,
          "output batches and channels must equal the input's");
  const int32_t factor_h = output.shape[1] / input.shape[1];
  const int32_t factor_w = output.shape[2] / input.shape[2];
  require(factor_h >= 1 && factor_w >= 1 && factor_h * input.shape[1] == output.shape[1] &&
              factor_w * input.shape[2] == output.shape[2],
          op, "output height and width must be whole multiples of the input's");
  const std::vector<int64_t> strides = dense_strides(input.shape);
  const std::vector<int32_t> dims = {input.shape[0], input.shape[1], factor_h,
                                     input.shape[2], factor_w,       input.shape[3]};
  const std::vector<int64_t> steps = {strides[0], strides[1], 0, strides[2], 0, strides[3]};
  TransposeParams params{};
  params.source = make_strided_box(dims, steps, 0);
  params.input_elements = static_cast<int32_t>(input.num_elements());
  return lower_single_input(KernelId::transpose_s8_ref, params, op);
}

}  // namespace tinyaot
