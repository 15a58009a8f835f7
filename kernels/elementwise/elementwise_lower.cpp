// Lowering of ADD, SUB, MUL, MAXIMUM and MINIMUM: plans the broadcast walk
// and computes the requantization constants exactly as TFLite Micro's
// Prepare does (CalculateOpDataAdd / Sub / Mul), including where it
// computes in float rather than double.
#include "kernels/elementwise/elementwise_lower.h"

#include <algorithm>

#include "kernels/common/lower_helpers.h"
#include "kernels/common/variant_choice.h"
#include "kernels/elementwise/add_sub_cases.h"
#include "kernels/elementwise/elementwise.h"
#include "kernels/elementwise/mul_cases.h"
#include "kernels/lowerings.h"

namespace tinyaot {

namespace {

std::vector<int32_t> padded(const std::vector<int32_t>& shape, size_t rank) {
  std::vector<int32_t> out(rank - shape.size(), 1);
  out.insert(out.end(), shape.begin(), shape.end());
  return out;
}

struct Axis {
  int32_t extent;
  int32_t stride1;
  int32_t stride2;
};

// Row-major strides of `shape`, 0 along the axes where it is broadcast.
std::vector<int32_t> broadcast_strides(const std::vector<int32_t>& shape,
                                       const std::vector<int32_t>& out) {
  std::vector<int32_t> strides(shape.size(), 0);
  int64_t step = 1;
  for (size_t d = shape.size(); d-- > 0;) {
    strides[d] = (shape[d] == 1 && out[d] != 1) ? 0 : static_cast<int32_t>(step);
    step *= shape[d];
  }
  return strides;
}

}  // namespace

std::optional<std::vector<int32_t>> broadcast_shapes(const std::vector<int32_t>& shape1,
                                                     const std::vector<int32_t>& shape2) {
  const size_t rank = std::max(shape1.size(), shape2.size());
  if (rank > static_cast<size_t>(kBroadcastRank)) return std::nullopt;
  const std::vector<int32_t> a = padded(shape1, rank);
  const std::vector<int32_t> b = padded(shape2, rank);
  std::vector<int32_t> out(rank);
  int64_t elements = 1;
  for (size_t d = 0; d < rank; ++d) {
    if (a[d] < 1 || b[d] < 1) return std::nullopt;
    if (a[d] != b[d] && a[d] != 1 && b[d] != 1) return std::nullopt;
    out[d] = std::max(a[d], b[d]);
    elements *= out[d];
    if (elements > INT32_MAX) return std::nullopt;
  }
  return out;
}

std::optional<BroadcastShape> plan_broadcast(const std::vector<int32_t>& shape1,
                                             const std::vector<int32_t>& shape2) {
  const std::optional<std::vector<int32_t>> out = broadcast_shapes(shape1, shape2);
  if (!out) return std::nullopt;
  const size_t rank = out->size();
  const std::vector<int32_t> strides1 = broadcast_strides(padded(shape1, rank), *out);
  const std::vector<int32_t> strides2 = broadcast_strides(padded(shape2, rank), *out);

  // Unit axes contribute nothing; an outer axis folds into the next inner
  // one when both inputs step over it as one contiguous run.
  std::vector<Axis> axes;
  for (size_t d = 0; d < rank; ++d) {
    if ((*out)[d] == 1) continue;
    const Axis axis{(*out)[d], strides1[d], strides2[d]};
    if (!axes.empty()) {
      Axis& outer = axes.back();
      if (outer.stride1 == axis.stride1 * axis.extent &&
          outer.stride2 == axis.stride2 * axis.extent) {
        outer = {outer.extent * axis.extent, axis.stride1, axis.stride2};
        continue;
      }
    }
    axes.push_back(axis);
  }

  BroadcastShape plan{};
  const size_t first = kBroadcastRank - axes.size();
  for (size_t d = 0; d < static_cast<size_t>(kBroadcastRank); ++d) {
    const Axis axis = d < first ? Axis{1, 0, 0} : axes[d - first];
    plan.dims[d] = axis.extent;
    plan.strides1[d] = axis.stride1;
    plan.strides2[d] = axis.stride2;
  }
  return plan;
}

namespace {

// `dtype` is int8, or int16 for the operators with int16 variants (the
// importer has checked int16 zero points are 0).
void require_per_tensor(const Tensor& tensor, DType dtype, const Operation& op, const char* role) {
  require(tensor.dtype == dtype, op,
          std::string(role) + " must be " + (dtype == DType::kInt16 ? "int16" : "int8"));
  require(tensor.quant.scales.size() == 1 && tensor.quant.zero_points.size() <= 1, op,
          std::string(role) + " must be quantized per tensor");
  require(tensor.quant.scale() > 0.0f, op, std::string(role) + " scale must be positive");
  const int32_t zero_point = tensor.quant.zero_point();
  require(dtype == DType::kInt16 ? zero_point == 0 : zero_point >= -128 && zero_point <= 127, op,
          std::string(role) + " zero point must lie in int8, or be 0 for int16");
}

struct BinaryOperands {
  const Tensor& input1;
  const Tensor& input2;
  const Tensor& output;
  BroadcastShape shape;
  bool int16;
};

// int16 operands only where `int16_allowed` (the operators with int16
// variants); all three share the type.
BinaryOperands binary_operands(const Graph& graph, const Operation& op,
                               bool int16_allowed = false) {
  require(op.inputs.size() == 2 && op.outputs.size() == 1, op, "needs two inputs and one output");
  const Tensor& input1 = input_tensor(graph, op, 0);
  const Tensor& input2 = input_tensor(graph, op, 1);
  const Tensor& output = output_tensor(graph, op);
  const DType dtype = int16_allowed && output.dtype == DType::kInt16 ? DType::kInt16 : DType::kInt8;
  require_per_tensor(input1, dtype, op, "input 1");
  require_per_tensor(input2, dtype, op, "input 2");
  require_per_tensor(output, dtype, op, "the output");
  const std::optional<std::vector<int32_t>> shape = broadcast_shapes(input1.shape, input2.shape);
  require(shape.has_value(), op,
          "input shapes do not broadcast (or exceed rank " + std::to_string(kBroadcastRank) + ")");
  const size_t rank = std::max(shape->size(), output.shape.size());
  require(padded(*shape, rank) == padded(output.shape, rank), op,
          "output shape differs from the broadcast of the input shapes");
  return {input1, input2, output, *plan_broadcast(input1.shape, input2.shape),
          dtype == DType::kInt16};
}

// TFLite's QuantizeMultiplierSmallerThanOneExp: a multiplier in (0, 1).
QuantizedMultiplier multiplier_below_one(double real, Rounding rounding, const Operation& op,
                                         const char* what) {
  require(real > 0.0 && real < 1.0, op, std::string(what) + " must lie in (0, 1)");
  const QuantizedMultiplier q = quantize_multiplier(real, rounding);
  require(q.shift <= 0, op, std::string(what) + " must lie in (0, 1)");
  return q;
}

uint64_t elements(const AddSubParams& p) {
  uint64_t n = 1;
  for (int32_t dim : p.shape.dims) n *= uint64_t(dim);
  return n;
}

// Instructions per element measured on resnet's ADDs: the broadcast walk
// with quant.h's general requantization, about 69 on M4 and M3 (194 on M0);
// the flat loop 16 on M4, 20 on M3 (72 on M0).
uint64_t reference_cost(const AddSubParams& p) { return 69 * elements(p); }
uint64_t flat_cost(const AddSubParams& p) { return 20 * elements(p); }
// MVE: about 17 instructions per four elements, plus a row's tail.
uint64_t mve_cost(const AddSubParams& p) {
  return 5 * elements(p) + 20 * (elements(p) / uint64_t(p.shape.dims[kBroadcastRank - 1]));
}

const VariantCandidate<AddSubParams> kAddVariants[] = {
    {KernelId::add_s8_ref, nullptr, reference_cost},
    {KernelId::add_s8_flat, is_add_sub_flat_case, flat_cost},
    {KernelId::add_s8_mve, is_add_sub_mve_case, mve_cost},
};

const VariantCandidate<AddSubParams> kSubVariants[] = {
    {KernelId::sub_s8_ref, nullptr, reference_cost},
    {KernelId::sub_s8_flat, is_add_sub_flat_case, flat_cost},
    {KernelId::sub_s8_mve, is_add_sub_mve_case, mve_cost},
};

// Rounding mode onnx: the references' broadcast walk or the flat loop of
// the float32 chains (add_sub_onnx.h).
const VariantCandidate<AddSubParams> kAddOnnxVariants[] = {
    {KernelId::add_s8_ref, nullptr, reference_cost},
    {KernelId::add_s8_flat, is_add_sub_onnx_flat_case, flat_cost},
};

const VariantCandidate<AddSubParams> kSubOnnxVariants[] = {
    {KernelId::sub_s8_ref, nullptr, reference_cost},
    {KernelId::sub_s8_flat, is_add_sub_onnx_flat_case, flat_cost},
};

uint64_t elements(const MulParams& p) {
  uint64_t n = 1;
  for (int32_t dim : p.shape.dims) n *= uint64_t(dim);
  return n;
}

// The same walk; the reference's general requantization against one
// SMMLAR (SMLAL, or quant.h's halves on M0) with the offset folded in.
uint64_t mul_reference_cost(const MulParams& p) { return 40 * elements(p); }
uint64_t mul_fast_cost(const MulParams& p) { return 20 * elements(p); }
// MVE: about 14 instructions per four elements, plus a row's tail.
uint64_t mul_mve_cost(const MulParams& p) {
  return 4 * elements(p) + 20 * (elements(p) / uint64_t(p.shape.dims[kBroadcastRank - 1]));
}

const VariantCandidate<MulParams> kMulVariants[] = {
    {KernelId::mul_s8_ref, nullptr, mul_reference_cost},
    {KernelId::mul_s8_fast, is_mul_fast_case, mul_fast_cost},
    {KernelId::mul_s8_mve, is_mul_mve_case, mul_mve_cost},
};

LoweredOp lower_add_sub(const Graph& graph, const Operation& op, const Target& target,
                        bool subtract) {
  const BinaryOperands operands = binary_operands(graph, op, true);
  require(!operands.int16 || target.rounding != Rounding::kOnnx, op,
          "rounding mode onnx has no int16 operators; compile with --rounding tflm");
  const float scale1 = operands.input1.quant.scale();
  const float scale2 = operands.input2.quant.scale();
  const float output_scale = operands.output.quant.scale();
  AddSubParams params{};
  params.shape = operands.shape;
  params.input1_offset = -operands.input1.quant.zero_point();
  params.input2_offset = -operands.input2.quant.zero_point();
  params.output_offset = operands.output.quant.zero_point();
  params.act_min = op.act_min;
  params.act_max = op.act_max;
  if (target.rounding == Rounding::kOnnx) {
    // The float32 chains (add_sub_onnx.h) take the scales themselves,
    // their bits in the multiplier fields (no shifts).
    params.input1_multiplier = *onnx_multiplier_bits(scale1);
    params.input2_multiplier = *onnx_multiplier_bits(scale2);
    params.output_multiplier = *onnx_multiplier_bits(output_scale);
    // The flat variants' estimate, or none when the scale ratios are too
    // far apart for it to pay (add_sub_onnx_fast.h).
    params.onnx_fast = onnx_add_sub_fast_constants(scale1, scale2, output_scale, subtract ? -1 : 1);
    const KernelId kernel = subtract ? choose_variant(kSubOnnxVariants, params, target)
                                     : choose_variant(kAddOnnxVariants, params, target);
    LoweredOp lowered = make_lowered(kernel, params);
    lowered.inputs = {LoweredOperand::of_tensor(op.inputs[0]),
                      LoweredOperand::of_tensor(op.inputs[1])};
    lowered.outputs = {op.outputs[0]};
    return lowered;
  }
  // TFLite Micro's headroom: 20 bits for int8, 15 for int16.
  params.left_shift = operands.int16 ? 15 : 20;
  double real1, real2, real_output;
  if (subtract) {
    // TFLite Micro's SUB computes these ratios in float.
    const float twice_max_input_scale = 2 * std::max(scale1, scale2);
    real1 = static_cast<double>(scale1 / twice_max_input_scale);
    real2 = static_cast<double>(scale2 / twice_max_input_scale);
    real_output =
        static_cast<double>(twice_max_input_scale / ((1 << params.left_shift) * output_scale));
  } else {
    const double twice_max_input_scale = 2 * static_cast<double>(std::max(scale1, scale2));
    real1 = static_cast<double>(scale1) / twice_max_input_scale;
    real2 = static_cast<double>(scale2) / twice_max_input_scale;
    real_output =
        twice_max_input_scale / ((1 << params.left_shift) * static_cast<double>(output_scale));
  }
  const QuantizedMultiplier q1 =
      multiplier_below_one(real1, target.rounding, op, "input 1 rescale");
  const QuantizedMultiplier q2 =
      multiplier_below_one(real2, target.rounding, op, "input 2 rescale");
  const QuantizedMultiplier qo =
      multiplier_below_one(real_output, target.rounding, op, "output rescale");
  params.input1_multiplier = q1.multiplier;
  params.input1_shift = q1.shift;
  params.input2_multiplier = q2.multiplier;
  params.input2_shift = q2.shift;
  params.output_multiplier = qo.multiplier;
  params.output_shift = qo.shift;

  const KernelId kernel = operands.int16
                              ? (subtract ? KernelId::sub_s16_ref : KernelId::add_s16_ref)
                          : subtract ? choose_variant(kSubVariants, params, target)
                                     : choose_variant(kAddVariants, params, target);
  LoweredOp lowered = make_lowered(kernel, params);
  lowered.inputs = {LoweredOperand::of_tensor(op.inputs[0]),
                    LoweredOperand::of_tensor(op.inputs[1])};
  lowered.outputs = {op.outputs[0]};
  return lowered;
}

LoweredOp lower_min_max(const Graph& graph, const Operation& op, bool maximum) {
  // TFLite Micro compares and copies the raw int8 values whatever the
  // quantization (converters give all three the same one).
  const BinaryOperands operands = binary_operands(graph, op);
  MinMaxParams params{};
  params.shape = operands.shape;
  LoweredOp lowered =
      make_lowered(maximum ? KernelId::maximum_s8_ref : KernelId::minimum_s8_ref, params);
  lowered.inputs = {LoweredOperand::of_tensor(op.inputs[0]),
                    LoweredOperand::of_tensor(op.inputs[1])};
  lowered.outputs = {op.outputs[0]};
  return lowered;
}

}  // namespace

LoweredOp lower_add(const Graph& graph, const Operation& op, const Target& target) {
  return lower_add_sub(graph, op, target, false);
}

LoweredOp lower_sub(const Graph& graph, const Operation& op, const Target& target) {
  return lower_add_sub(graph, op, target, true);
}

LoweredOp lower_mul(const Graph& graph, const Operation& op, const Target& target) {
  const BinaryOperands operands = binary_operands(graph, op, true);
  require(!operands.int16 || target.rounding != Rounding::kOnnx, op,
          "rounding mode onnx has no int16 operators; compile with --rounding tflm");
  if (target.rounding == Rounding::kOnnx) {
    // QLinearMul's float32 chain (mul_onnx.h) takes the three scales
    // themselves; the reference runs it.
    MulParams params{};
    params.shape = operands.shape;
    params.input1_offset = -operands.input1.quant.zero_point();
    params.input2_offset = -operands.input2.quant.zero_point();
    params.output_offset = operands.output.quant.zero_point();
    params.output_multiplier = *onnx_multiplier_bits(operands.output.quant.scale());
    params.act_min = op.act_min;
    params.act_max = op.act_max;
    params.input1_scale_bits = *onnx_multiplier_bits(operands.input1.quant.scale());
    params.input2_scale_bits = *onnx_multiplier_bits(operands.input2.quant.scale());
    LoweredOp lowered = make_lowered(KernelId::mul_s8_ref, params);
    lowered.inputs = {LoweredOperand::of_tensor(op.inputs[0]),
                      LoweredOperand::of_tensor(op.inputs[1])};
    lowered.outputs = {op.outputs[0]};
    return lowered;
  }
  const double real = static_cast<double>(operands.input1.quant.scale()) *
                      static_cast<double>(operands.input2.quant.scale()) /
                      static_cast<double>(operands.output.quant.scale());
  const QuantizedMultiplier q = quantize_multiplier(real, target.rounding);
  require(q.shift <= 14, op, "output rescale (input1 * input2 / output scale) is too large");
  MulParams params{};
  params.shape = operands.shape;
  params.input1_offset = -operands.input1.quant.zero_point();
  params.input2_offset = -operands.input2.quant.zero_point();
  params.output_offset = operands.output.quant.zero_point();
  params.output_multiplier = q.multiplier;
  params.output_shift = q.shift;
  params.act_min = op.act_min;
  params.act_max = op.act_max;
  LoweredOp lowered = make_lowered(
      operands.int16 ? KernelId::mul_s16_ref : choose_variant(kMulVariants, params, target),
      params);
  lowered.inputs = {LoweredOperand::of_tensor(op.inputs[0]),
                    LoweredOperand::of_tensor(op.inputs[1])};
  lowered.outputs = {op.outputs[0]};
  return lowered;
}

LoweredOp lower_maximum(const Graph& graph, const Operation& op, const Target&) {
  return lower_min_max(graph, op, true);
}

LoweredOp lower_minimum(const Graph& graph, const Operation& op, const Target&) {
  return lower_min_max(graph, op, false);
}

}  // namespace tinyaot
