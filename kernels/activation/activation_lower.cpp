// Lowering of the unary int8 operators to one table lookup: TFLite Micro's
// Prepare computes the parameters, activation_math.h's reference function
// fills the 256 entries, and the operation's output clamp (if a pass set
// one) is applied to the table.
#include <algorithm>
#include <cmath>
#include <optional>

#include "kernels/activation/activation.h"
#include "kernels/activation/activation_prepare.h"
#include "kernels/common/lower_helpers.h"
#include "kernels/lowerings.h"

namespace tinyaot {
namespace activation {

namespace {

int16_t downscale_to_int16_multiplier(int32_t multiplier) {
  // TFLite's DownScaleInt32ToInt16Multiplier: round to the upper 16 bits,
  // saturating where rounding would carry out of int16.
  constexpr int32_t kRoundingOffset = 1 << 15;
  if (multiplier >= INT32_MAX - kRoundingOffset) return INT16_MAX;
  return static_cast<int16_t>((multiplier + kRoundingOffset) >> 16);
}

}  // namespace

SigmoidParams prepare_sigmoid(float input_scale, int32_t input_zero_point) {
  // Input rescaled to Q4.27; a frexp of its own (not QuantizeMultiplier),
  // as TFLite Micro's LOGISTIC and TANH Prepare do.
  const double input_real_multiplier =
      static_cast<double>(input_scale) * static_cast<double>(1 << (31 - kSigmoidInputIntegerBits));
  SigmoidParams params{};
  params.input_zero_point = input_zero_point;
  int left_shift = 0;
  const double q = std::frexp(input_real_multiplier, &left_shift);
  params.input_left_shift = left_shift;
  params.input_multiplier = static_cast<int32_t>(
      std::min<double>(std::round(q * static_cast<double>(int64_t{1} << 31)), INT32_MAX));
  // CalculateInputRadius: the largest |input| whose rescaled value fits.
  const double max_input_rescaled =
      1.0 * ((1 << kSigmoidInputIntegerBits) - 1) *
      static_cast<double>(int64_t{1} << (31 - kSigmoidInputIntegerBits)) /
      std::ldexp(1.0, left_shift);
  params.input_range_radius =
      static_cast<int32_t>(std::min<double>(std::floor(max_input_rescaled), INT32_MAX));
  return params;
}

Sigmoid16Scale prepare_sigmoid16(float input_scale, bool tanh) {
  // TFLite Micro's kInputIntegerBits: the table spans inputs in [-8, 8)
  // scaled by 3/4, one step being 1 / (3 * 4096).
  constexpr int32_t kInputIntegerBits = 3;
  const ScaleLog2 log2 = checked_log2(input_scale);
  const int32_t power_of_two_shift = (15 - kInputIntegerBits) + log2.rounded;
  const int32_t largest_power_of_two_shift = tanh ? 1 : 0;
  if (log2.power_of_two && power_of_two_shift >= 0 &&
      power_of_two_shift <= largest_power_of_two_shift)
    return resolve_sigmoid16_scale(0, power_of_two_shift);
  double multiplier = static_cast<double>(input_scale) * 4096.0 * 3.0;
  int32_t right_shift = 0;
  while (multiplier <= 32767.0 / 2.0 && right_shift <= 30) {
    ++right_shift;
    multiplier *= 2.0;
  }
  // Truncated as TFLite Micro's static_cast; 0 marks what it cannot take
  // (where its own multiplier 0 would mean a power of two).
  if (!(multiplier >= 1.0 && multiplier <= 32767.0)) return {0, 0};
  return {static_cast<int32_t>(multiplier), right_shift};
}

RequantizeParams prepare_relu(float input_scale, int32_t input_zero_point, float output_scale,
                              int32_t output_zero_point, Rounding rounding) {
  // TFLite Micro's CalculateReluOpData divides the scales in float, then
  // widens (QUANTIZE's requantization divides in double).
  const QuantizedMultiplier q =
      quantize_multiplier(static_cast<double>(input_scale / output_scale), rounding);
  RequantizeParams params{input_zero_point, output_zero_point, q.multiplier, q.shift, -128, 127};
  // The output's real 0 (zero point + round(0 / scale)); no upper bound.
  params.act_min = std::max<int32_t>(-128, output_zero_point);
  params.act_max = 127;
  return params;
}

RequantizeParams prepare_requantize(float input_scale, int32_t input_zero_point, float output_scale,
                                    int32_t output_zero_point, Rounding rounding) {
  const QuantizedMultiplier q = quantize_multiplier(
      static_cast<double>(input_scale) / static_cast<double>(output_scale), rounding);
  return {input_zero_point, output_zero_point, q.multiplier, q.shift, -128, 127};
}

Relu6Params prepare_relu6(float input_scale, int32_t input_zero_point) {
  // FloatToQuantizedType<int8_t>(6.0f, scale, zero_point).
  const float six_steps = std::round(6.0f / input_scale);
  const double six = static_cast<double>(six_steps) + input_zero_point;
  return {input_zero_point, static_cast<int32_t>(std::clamp(six, -128.0, 127.0))};
}

LeakyReluParams prepare_leaky_relu(float input_scale, int32_t input_zero_point, float alpha,
                                   float output_scale, int32_t output_zero_point,
                                   Rounding rounding) {
  // Both ratios are computed in float, then widened.
  const QuantizedMultiplier alpha_q =
      quantize_multiplier(static_cast<double>(input_scale * alpha / output_scale), rounding);
  const QuantizedMultiplier identity_q =
      quantize_multiplier(static_cast<double>(input_scale / output_scale), rounding);
  return {input_zero_point, output_zero_point,  identity_q.multiplier,
          identity_q.shift, alpha_q.multiplier, alpha_q.shift};
}

HardSwishParams prepare_hard_swish(float input_scale, int32_t input_zero_point, float output_scale,
                                   int32_t output_zero_point, Rounding rounding) {
  const float hires_input_scale = (1.0f / 128.0f) * input_scale;
  const float reluish_scale = 3.0f / 32768.0f;
  const QuantizedMultiplier output_q =
      quantize_multiplier(static_cast<double>(hires_input_scale / output_scale), rounding);
  const QuantizedMultiplier reluish_q =
      quantize_multiplier(static_cast<double>(hires_input_scale / reluish_scale), rounding);
  HardSwishParams params{};
  params.input_zero_point = input_zero_point;
  params.output_zero_point = output_zero_point;
  params.output_multiplier_fixedpoint_int16 = downscale_to_int16_multiplier(output_q.multiplier);
  params.output_multiplier_exponent = output_q.shift;
  params.reluish_multiplier_fixedpoint_int16 = downscale_to_int16_multiplier(reluish_q.multiplier);
  params.reluish_multiplier_exponent = reluish_q.shift;
  return params;
}

}  // namespace activation

namespace {

using activation::build_table;

struct UnaryOperands {
  const Tensor& input;
  const Tensor& output;
};

UnaryOperands unary_operands(const Graph& graph, const Operation& op) {
  require(op.outputs.size() == 1, op, "needs one output");
  const Tensor& input = input_tensor(graph, op, 0);
  const Tensor& output = output_tensor(graph, op);
  for (const Tensor* tensor : {&input, &output}) {
    const char* role = tensor == &input ? "the input" : "the output";
    require(tensor->dtype == DType::kInt8, op, std::string(role) + " must be int8");
    require(tensor->quant.scales.size() == 1 && tensor->quant.scale() > 0.0f, op,
            std::string(role) + " must be quantized per tensor with a positive scale");
    require(tensor->quant.zero_point() >= -128 && tensor->quant.zero_point() <= 127, op,
            std::string(role) + " zero point must lie in int8");
  }
  require(input.num_elements() == output.num_elements() && input.num_elements() >= 1 &&
              input.num_elements() <= INT32_MAX,
          op, "input and output must have the same, non-zero number of elements");
  return {input, output};
}

LoweredOp lower_lut(const Operation& op, const UnaryOperands& operands,
                    const std::array<int8_t, 256>& table) {
  LutParams params{};
  params.size = static_cast<int32_t>(operands.input.num_elements());
  LoweredOp lowered = make_lowered(KernelId::lut_s8_ref, params);
  lowered.inputs = {LoweredOperand::of_tensor(op.inputs[0]),
                    LoweredOperand::of_values(std::vector<int8_t>(table.begin(), table.end()))};
  lowered.outputs = {op.outputs[0]};
  return lowered;
}

template <typename F>
LoweredOp lower_with(const Operation& op, const UnaryOperands& operands, F f) {
  return lower_lut(op, operands, build_table(f, op.act_min, op.act_max));
}

activation::SigmoidParams sigmoid_params(const Operation& op, const Tensor& input) {
  const activation::SigmoidParams params =
      activation::prepare_sigmoid(input.quant.scale(), input.quant.zero_point());
  // Left shifts beyond 30 are outside what single rounding supports, and a
  // multiplier that rounds up to 2^31 does not fit int32.
  require(params.input_left_shift >= 0 && params.input_left_shift <= 30 &&
              params.input_multiplier < INT32_MAX,
          op, "input scale is outside the range TFLite's int8 kernel supports");
  return params;
}

// TFLite's MultiplyByQuantizedMultiplier takes left shifts up to 30.
void require_shift(const Operation& op, int32_t shift) {
  require(shift <= 30, op, "output scale is too small for the input scale");
}

}  // namespace

namespace {

// int16 LOGISTIC and TANH (logistic_s16_ref, tanh_s16_ref) as TFLite
// Micro's Prepare checks and parameterizes them; nullopt for int8.
std::optional<LoweredOp> lower_sigmoid_s16(const Graph& graph, const Operation& op,
                                           const Target& target, bool tanh) {
  if (!is_int16x8(graph, op, target)) return std::nullopt;
  const Tensor& input = input_tensor(graph, op, 0);
  const Tensor& output = output_tensor(graph, op);
  require(input.num_elements() == output.num_elements() && input.num_elements() >= 1 &&
              input.num_elements() <= INT32_MAX / 2,
          op, "input and output must have the same, non-zero number of elements");
  const ScaleLog2 output_log2 = checked_log2(output.quant.scale());
  require(output_log2.power_of_two && output_log2.rounded == -15, op,
          "int16 output must be quantized with scale 2^-15");
  const Sigmoid16Scale scale = activation::prepare_sigmoid16(input.quant.scale(), tanh);
  require(scale.multiplier > 0, op,
          "int16 input scale is outside the range TFLite Micro's kernel computes in int32");
  Sigmoid16Params params{};
  params.size = static_cast<int32_t>(input.num_elements());
  params.multiplier = scale.multiplier;
  params.right_shift = scale.right_shift;
  return lower_single_input(tanh ? KernelId::tanh_s16_ref : KernelId::logistic_s16_ref, params, op);
}

}  // namespace

LoweredOp lower_logistic(const Graph& graph, const Operation& op, const Target& target) {
  if (auto lowered = lower_sigmoid_s16(graph, op, target, false)) return *lowered;
  const UnaryOperands operands = unary_operands(graph, op);
  require(
      operands.output.quant.scale() == 1.0f / 256.0f && operands.output.quant.zero_point() == -128,
      op, "int8 output must be quantized with scale 1/256 and zero point -128");
  const activation::SigmoidParams params = sigmoid_params(op, operands.input);
  const Rounding rounding = target.rounding;
  return lower_with(op, operands,
                    [&](int8_t x) { return activation::logistic_s8(x, params, rounding); });
}

LoweredOp lower_tanh(const Graph& graph, const Operation& op, const Target& target) {
  if (auto lowered = lower_sigmoid_s16(graph, op, target, true)) return *lowered;
  const UnaryOperands operands = unary_operands(graph, op);
  require(operands.output.quant.scale() == 1.0f / 128.0f && operands.output.quant.zero_point() == 0,
          op, "int8 output must be quantized with scale 1/128 and zero point 0");
  const activation::SigmoidParams params = sigmoid_params(op, operands.input);
  const Rounding rounding = target.rounding;
  return lower_with(op, operands,
                    [&](int8_t x) { return activation::tanh_s8(x, params, rounding); });
}

namespace {

// int16 RELU and RELU6 (requantize_s16_ref), as TFLite Micro's
// CalculateReluOpData<int16_t> and Relu6 prepare them; nullopt for int8.
std::optional<LoweredOp> lower_relu_s16(const Graph& graph, const Operation& op,
                                        const Target& target, bool relu6) {
  const Tensor& input = input_tensor(graph, op, 0);
  const Tensor& output = output_tensor(graph, op);
  if (input.dtype != DType::kInt16 && output.dtype != DType::kInt16) return std::nullopt;
  require(input.dtype == output.dtype, op, "input and output must be both int8 or both int16");
  require(target.rounding != Rounding::kOnnx, op,
          "rounding mode onnx has no int16 operators; compile with --rounding tflm");
  require(input.num_elements() == output.num_elements() && input.num_elements() >= 1 &&
              input.num_elements() <= INT32_MAX / 2,
          op, "input and output must have the same, non-zero number of elements");
  RequantizeS16Params params{};
  params.size = static_cast<int32_t>(input.num_elements());
  params.act_max = 32767;
  if (relu6) {
    // Relu6Quantized clamps the raw values to [0, six] in the input's
    // quantization: the identity rescale.
    require(input.quant.scale() == output.quant.scale(), op,
            "RELU6 needs the same input and output scale");
    params.multiplier = 1 << 30;
    params.shift = 1;
    const float six = std::round(6.0f / input.quant.scale());
    params.act_max = static_cast<int32_t>(std::min(six, 32767.0f));
  } else {
    const QuantizedMultiplier q = quantize_multiplier(
        static_cast<double>(input.quant.scale() / output.quant.scale()), target.rounding);
    require(q.shift <= 14, op, "the input scale is too large for the output scale");
    params.multiplier = q.multiplier;
    params.shift = q.shift;
  }
  return lower_single_input(KernelId::requantize_s16_ref, params, op);
}

}  // namespace

LoweredOp lower_relu(const Graph& graph, const Operation& op, const Target& target) {
  if (auto lowered = lower_relu_s16(graph, op, target, false)) return *lowered;
  const UnaryOperands operands = unary_operands(graph, op);
  const activation::RequantizeParams params = activation::prepare_relu(
      operands.input.quant.scale(), operands.input.quant.zero_point(),
      operands.output.quant.scale(), operands.output.quant.zero_point(), target.rounding);
  require_shift(op, params.shift);
  const Rounding rounding = target.rounding;
  return lower_with(op, operands,
                    [&](int8_t x) { return activation::requantize_s8(x, params, rounding); });
}

LoweredOp lower_relu6(const Graph& graph, const Operation& op, const Target& target) {
  if (auto lowered = lower_relu_s16(graph, op, target, true)) return *lowered;
  const UnaryOperands operands = unary_operands(graph, op);
  const activation::Relu6Params params =
      activation::prepare_relu6(operands.input.quant.scale(), operands.input.quant.zero_point());
  return lower_with(op, operands, [&](int8_t x) { return activation::relu6_s8(x, params); });
}

namespace {

// int16 LEAKY_RELU (leaky_relu_s16_ref) with TFLite Micro's
// CalculateOpDataLeakyRelu, the int8 one's Prepare; nullopt for int8.
std::optional<LoweredOp> lower_leaky_relu_s16(const Graph& graph, const Operation& op,
                                              const Target& target) {
  if (!is_int16x8(graph, op, target)) return std::nullopt;
  const Tensor& input = input_tensor(graph, op, 0);
  const Tensor& output = output_tensor(graph, op);
  require(input.num_elements() == output.num_elements() && input.num_elements() >= 1 &&
              input.num_elements() <= INT32_MAX / 2,
          op, "input and output must have the same, non-zero number of elements");
  const activation::LeakyReluParams prepared = activation::prepare_leaky_relu(
      input.quant.scale(), 0, op.attrs.alpha, output.quant.scale(), 0, target.rounding);
  require(prepared.shift_identity <= 14 && prepared.shift_alpha <= 14, op,
          "the input scale (times alpha) is too large for the output scale");
  LeakyReluS16Params params{};
  params.size = static_cast<int32_t>(input.num_elements());
  params.multiplier_identity = prepared.multiplier_identity;
  params.shift_identity = prepared.shift_identity;
  params.multiplier_alpha = prepared.multiplier_alpha;
  params.shift_alpha = prepared.shift_alpha;
  return lower_single_input(KernelId::leaky_relu_s16_ref, params, op);
}

}  // namespace

LoweredOp lower_leaky_relu(const Graph& graph, const Operation& op, const Target& target) {
  if (auto lowered = lower_leaky_relu_s16(graph, op, target)) return *lowered;
  const UnaryOperands operands = unary_operands(graph, op);
  const activation::LeakyReluParams params = activation::prepare_leaky_relu(
      operands.input.quant.scale(), operands.input.quant.zero_point(), op.attrs.alpha,
      operands.output.quant.scale(), operands.output.quant.zero_point(), target.rounding);
  require_shift(op, params.shift_identity);
  require_shift(op, params.shift_alpha);
  const Rounding rounding = target.rounding;
  return lower_with(op, operands,
                    [&](int8_t x) { return activation::leaky_relu_s8(x, params, rounding); });
}

LoweredOp lower_hard_swish(const Graph& graph, const Operation& op, const Target& target) {
  const UnaryOperands operands = unary_operands(graph, op);
  const activation::HardSwishParams params = activation::prepare_hard_swish(
      operands.input.quant.scale(), operands.input.quant.zero_point(),
      operands.output.quant.scale(), operands.output.quant.zero_point(), target.rounding);
  require(params.output_multiplier_exponent <= 0, op,
          "output scale must be at least the input scale / 128");
  require(params.reluish_multiplier_exponent <= 31, op, "input scale is too large");
  return lower_with(op, operands, [&](int8_t x) { return activation::hard_swish_s8(x, params); });
}

namespace {

// The real function of a LOOKUP_TABLE, in float as ONNX defines its
// operators on float tensors.
float unary_real(const Attributes& a, float x) {
  switch (a.unary) {
    case UnaryFunction::kIdentity:
      return x;
    case UnaryFunction::kRelu:
      return std::max(x, 0.0f);
    case UnaryFunction::kClip:
      return std::min(std::max(x, a.clip_min), a.clip_max);
    case UnaryFunction::kLeakyRelu:
      return x < 0.0f ? a.alpha * x : x;
    case UnaryFunction::kSigmoid:
      return 1.0f / (1.0f + std::exp(-x));
    case UnaryFunction::kHardSigmoid:
      return std::max(0.0f, std::min(1.0f, a.alpha * x + a.beta));
    case UnaryFunction::kHardSwish:
      return x * std::max(0.0f, std::min(1.0f, x / 6.0f + 0.5f));
    case UnaryFunction::kTanh:
      return std::tanh(x);
  }
  return x;
}

}  // namespace

// Dequantize, apply the real function, quantize as ONNX's QuantizeLinear
// does (divide by the scale, round half to even, add the zero point,
// saturate): the arithmetic of onnxruntime's QLinear lookup tables, in
// every rounding mode, since no TFLite kernel defines these operators.
LoweredOp lower_lookup_table(const Graph& graph, const Operation& op, const Target&) {
  const UnaryOperands operands = unary_operands(graph, op);
  const float input_scale = operands.input.quant.scale();
  const int32_t input_zero_point = operands.input.quant.zero_point();
  const float output_scale = operands.output.quant.scale();
  const int32_t output_zero_point = operands.output.quant.zero_point();
  return lower_with(op, operands, [&](int8_t x) {
    const float real = static_cast<float>(x - input_zero_point) * input_scale;
    const float y = std::nearbyint(unary_real(op.attrs, real) / output_scale) +
                    static_cast<float>(output_zero_point);
    // Saturated before the conversion, which is undefined outside int32.
    if (std::isnan(y)) return output_zero_point;
    return static_cast<int32_t>(std::clamp(y, -128.0f, 127.0f));
  });
}

LoweredOp lower_requantize(const Graph& graph, const Operation& op, const Target& target) {
  const UnaryOperands operands = unary_operands(graph, op);
  const activation::RequantizeParams params = activation::prepare_requantize(
      operands.input.quant.scale(), operands.input.quant.zero_point(),
      operands.output.quant.scale(), operands.output.quant.zero_point(), target.rounding);
  require_shift(op, params.shift);
  const Rounding rounding = target.rounding;
  return lower_with(op, operands,
                    [&](int8_t x) { return activation::requantize_s8(x, params, rounding); });
}

}  // namespace tinyaot
