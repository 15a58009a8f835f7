// Lowering of STRIDED_SLICE: every index rule is applied here, at compile
// time, so the kernel only walks a box of (start, count, step) per axis.
#include "kernels/common/lower_helpers.h"
#include "kernels/copy/strided_box_lower.h"
#include "kernels/strided_slice/slice_axis_lower.h"
#include "kernels/strided_slice/strided_slice.h"

namespace tinyaot {
namespace {

int64_t clamp_i64(int64_t v, int64_t lo, int64_t hi) { return v < lo ? lo : (v > hi ? hi : v); }

std::string shape_text(const std::vector<int32_t>& shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i) text += (i ? "," : "") + std::to_string(shape[i]);
  return text + "]";
}

}  // namespace

SliceAxis resolve_slice_axis(const SliceAxisSpec& spec, int32_t axis_size) {
  const int64_t size = axis_size;
  const bool forward = spec.stride > 0;
  int64_t start = spec.begin;
  if (start < 0) start += size;
  start = forward ? clamp_i64(start, 0, size) : clamp_i64(start, -1, size - 1);
  if (spec.begin_masked) start = forward ? 0 : size - 1;

  int64_t stop;
  if (spec.shrink) {
    // TFLite visits nothing when begin was clamped to the end.
    stop = start >= size ? start : start + 1;
  } else {
    stop = spec.end;
    if (stop < 0) stop += size;
    stop = forward ? clamp_i64(stop, 0, size) : clamp_i64(stop, -1, size - 1);
    if (spec.end_masked) stop = forward ? size : -1;
  }
  const int64_t stride = spec.stride;
  int64_t count = 0;
  if (forward && stop > start) count = (stop - start + stride - 1) / stride;
  if (!forward && start > stop) count = (start - stop - stride - 1) / -stride;
  return {start, count};
}

LoweredOp lower_strided_slice(const Graph& graph, const Operation& op, const Target& /*target*/) {
  const Tensor& input = input_tensor(graph, op, 0);
  const Tensor& output = output_tensor(graph, op);
  const int32_t element_bytes = moved_element_bytes(graph, op);
  const Attributes& a = op.attrs;
  require(a.ellipsis_mask == 0, op,
          "ellipsis_mask is not supported (it is " + std::to_string(a.ellipsis_mask) + ")");
  require(a.new_axis_mask == 0, op,
          "new_axis_mask is not supported (it is " + std::to_string(a.new_axis_mask) + ")");
  // TFLite counts `end` from `begin` when `offset` is set; TFLite Micro
  // ignores the option. Refused rather than matching one of the two.
  require(!a.offset, op, "the offset option is not supported (TFLite and TFLite Micro disagree)");
  const size_t rank = input.shape.size();
  require(rank >= 1 && rank <= kMaxRank, op,
          "rank " + std::to_string(rank) + " is outside 1.." + std::to_string(kMaxRank));
  for (int32_t dim : input.shape) require(dim >= 1, op, "input has an empty dimension");
  require(input.bytes() <= INT32_MAX, op, "input too large for 32-bit indices");

  const std::vector<int32_t> begin = constant_i32(input_tensor(graph, op, 1), op);
  const std::vector<int32_t> end = constant_i32(input_tensor(graph, op, 2), op);
  const std::vector<int32_t> strides = constant_i32(input_tensor(graph, op, 3), op);
  require(begin.size() == rank && end.size() == rank && strides.size() == rank, op,
          "begin, end and strides need one entry per input axis (" + std::to_string(rank) + ")");

  const std::vector<int64_t> input_strides = dense_strides(input.shape);
  std::vector<int32_t> dims(rank), kept_shape;
  std::vector<int64_t> steps(rank);
  int64_t offset = 0;
  for (size_t d = 0; d < rank; ++d) {
    const uint32_t bit = 1u << d;
    SliceAxisSpec spec;
    spec.begin = begin[d];
    spec.end = end[d];
    spec.stride = strides[d];
    spec.begin_masked = (static_cast<uint32_t>(a.begin_mask) & bit) != 0;
    spec.end_masked = (static_cast<uint32_t>(a.end_mask) & bit) != 0;
    spec.shrink = (static_cast<uint32_t>(a.shrink_axis_mask) & bit) != 0;
    require(spec.stride != 0, op, "stride of axis " + std::to_string(d) + " is 0");
    const SliceAxis axis = resolve_slice_axis(spec, input.shape[d]);
    require(axis.count > 0, op, "the slice along axis " + std::to_string(d) + " is empty");
    dims[d] = static_cast<int32_t>(axis.count);
    steps[d] = input_strides[d] * spec.stride;
    offset += axis.start * input_strides[d];
    if (!spec.shrink) kept_shape.push_back(dims[d]);
  }
  require(kept_shape == output.shape, op,
          "output shape " + shape_text(output.shape) + " differs from the slice's " +
              shape_text(kept_shape));

  StridedSliceParams params{};
  params.source = make_strided_box(dims, steps, offset, element_bytes);
  params.input_elements = static_cast<int32_t>(input.bytes());
  return lower_single_input(KernelId::strided_slice_s8_ref, params, op);
}

}  // namespace tinyaot
