// Lowering of UNIDIRECTIONAL_SEQUENCE_LSTM: checks that the operator is the
// LSTM TFLite Micro's kernel runs (its LstmTensors::ValidateTensorStatus
// and ValidateTensorSize), refuses its variants by name, and computes what
// TFLite Micro's Prepare computes (PrepareGateParametersInteger,
// CreateLstmCellStateInfo) as the kernel's parameters and constants.
#include <cmath>

#include "kernels/common/kernel_sums.h"
#include "kernels/common/lower_helpers.h"
#include "kernels/common/sigmoid_s16.h"
#include "kernels/common/variant_choice.h"
#include "kernels/lstm/lstm.h"
#include "kernels/lstm/lstm_variants.h"

namespace tinyaot {
namespace {

// TFLite's input indices of the operator (lstm_shared.h).
constexpr size_t kInput = 0;
constexpr size_t kInputWeights[kLstmGateCount] = {2, 1, 3, 4};  // forget, input, cell, output
constexpr size_t kRecurrentWeights[kLstmGateCount] = {6, 5, 7, 8};
constexpr size_t kPeepholeWeights[] = {9, 10, 11};
constexpr size_t kGateBias[kLstmGateCount] = {13, 12, 14, 15};
constexpr size_t kProjection[] = {16, 17};
constexpr size_t kHiddenState = 18;
constexpr size_t kCellState = 19;
constexpr size_t kLayerNorm[] = {20, 21, 22, 23};
constexpr size_t kInputCount = 24;

// The gates' FC outputs are int16 at 2^-12 (Q3.12), their activations'
// outputs int16 at 2^-15 (Q0.15): TFLite Micro's fixed choices.
constexpr float kGateInputScale = 0.000244140625f;
constexpr double kGateOutputScale = 0.000030517578125;

template <size_t N>
bool any_present(const Operation& op, const size_t (&indices)[N]) {
  for (size_t i : indices)
    if (has_input(op, i)) return true;
  return false;
}

void refuse_variants(const Operation& op) {
  require(op.inputs.size() == kInputCount, op,
          "has " + std::to_string(op.inputs.size()) +
              " inputs; TFLite Micro's kernel takes exactly 24 (absent ones as -1)");
  require(has_input(op, kInputWeights[kLstmInputGate]) &&
              has_input(op, kRecurrentWeights[kLstmInputGate]) &&
              has_input(op, kGateBias[kLstmInputGate]),
          op,
          "CIFG (coupled input and forget gate: no input gate weights or bias) is not "
          "supported: TFLite Micro's kernel requires the input gate");
  require(!any_present(op, kPeepholeWeights), op,
          "peephole connections (cell-to-gate weights, inputs 9-11) are not supported: "
          "TFLite Micro's kernel refuses them");
  require(!any_present(op, kProjection), op,
          "a projection (inputs 16-17) is not supported: TFLite Micro's kernel refuses it");
  require(!any_present(op, kLayerNorm), op,
          "layer normalization (inputs 20-23) is not supported: TFLite Micro's kernel refuses "
          "it");
}

void require_dtype(const Tensor& tensor, DType dtype, const Operation& op, const char* what,
                   const char* type_name) {
  require(tensor.dtype == dtype, op,
          std::string(what) + " '" + tensor.name + "' must be " + type_name);
}

// A gate's weights: int8, one scale, zero point 0 (TFLite Micro's LSTM
// takes one multiplier per FC), shape [units, depth].
void check_weights(const Tensor& weights, int32_t units, int32_t depth, const Operation& op) {
  require_dtype(weights, DType::kInt8, op, "weights", "int8");
  require(weights.is_constant(), op, "weights '" + weights.name + "' must be constant");
  require(weights.shape.size() == 2 && weights.shape[0] == units && weights.shape[1] == depth, op,
          "weights '" + weights.name + "' must have shape [" + std::to_string(units) + ", " +
              std::to_string(depth) + "]");
  require(weights.quant.scales.size() == 1, op,
          "weights '" + weights.name + "' must be quantized per tensor");
  require(weights.quant.zero_point() == 0, op,
          "weights '" + weights.name + "' must be symmetric (zero point 0)");
}

LstmRescale rescale_of(const ChannelQuant& q) { return {q.multiplier, q.shift}; }

LstmRescale product_rescale(double scale_a, double scale_b, double output_scale, Rounding rounding,
                            const Operation& op) {
  const QuantizedMultiplier q = quantize_multiplier(scale_a * scale_b / output_scale, rounding);
  require(q.shift <= 30, op, "a gate product's scale ratio is too large to requantize");
  return {q.multiplier, q.multiplier == 0 ? -1 : q.shift};
}

// Rough instructions per inference; only their ordering matters. Per
// time step and batch row, four gates of units x (input_depth + units)
// MACs and per unit of a gate its two requantizations and activation.
// Measured on trained_lstm_int8 (QEMU, GCC -O2): the reference 7.5
// instructions a MAC (M4); the DSP and MVE variants the dot products of
// the fully connected variants of their cores.
uint64_t lstm_cost(const UnidirectionalLstmParams& p, uint64_t mac_eighths, uint64_t per_unit) {
  const uint64_t gate_units =
      uint64_t(p.time_steps) * uint64_t(p.batches) * kLstmGateCount * uint64_t(p.units);
  return gate_units * ((uint64_t(p.input_depth) + uint64_t(p.units)) * mac_eighths / 8 + per_unit);
}

uint64_t reference_cost(const UnidirectionalLstmParams& p) { return lstm_cost(p, 48, 40); }
uint64_t dsp_cost(const UnidirectionalLstmParams& p) { return lstm_cost(p, 12, 50); }
uint64_t mve_cost(const UnidirectionalLstmParams& p) { return lstm_cost(p, 5, 50); }

constexpr VariantCandidate<UnidirectionalLstmParams> kVariants[] = {
    {KernelId::unidirectional_lstm_s8_ref, nullptr, reference_cost},
    {KernelId::unidirectional_lstm_s8_dsp, nullptr, dsp_cost},
    {KernelId::unidirectional_lstm_s8_mve, nullptr, mve_cost},
};

}  // namespace

LoweredOp lower_unidirectional_lstm(const Graph& graph, const Operation& op, const Target& target) {
  refuse_variants(op);
  const Tensor& input = input_tensor(graph, op, kInput);
  const Tensor& output = output_tensor(graph, op);
  const Tensor& hidden = input_tensor(graph, op, kHiddenState);
  const Tensor& cell = input_tensor(graph, op, kCellState);
  require(input.dtype != DType::kInt16, op,
          "int16 activations (the 16x8 LSTM) are not supported yet; int8 activations are");
  require_dtype(input, DType::kInt8, op, "input", "int8");
  require_dtype(output, DType::kInt8, op, "output", "int8 like its input");
  require_dtype(hidden, DType::kInt8, op, "hidden state", "int8 like its input");
  require_dtype(cell, DType::kInt16, op, "cell state", "int16");
  require(hidden.is_variable && cell.is_variable, op,
          "the hidden and cell states (inputs 18 and 19) must be variable tensors");
  require(input.shape.size() == 3, op, "input must be 3-D");
  require(output.shape.size() == 3, op, "output must be 3-D");

  UnidirectionalLstmParams params{};
  params.time_major = op.attrs.time_major ? 1 : 0;
  params.time_steps = op.attrs.time_major ? input.shape[0] : input.shape[1];
  params.batches = op.attrs.time_major ? input.shape[1] : input.shape[0];
  params.input_depth = input.shape[2];
  const Tensor& forget_weights = input_tensor(graph, op, kInputWeights[kLstmForgetGate]);
  require(forget_weights.shape.size() == 2, op, "weights must be 2-D");
  const int32_t units = forget_weights.shape[0];
  params.units = units;
  require(
      output.shape[0] == input.shape[0] && output.shape[1] == input.shape[1] &&
          output.shape[2] == units,
      op,
      "output must have the input's first two dimensions and " + std::to_string(units) + " units");
  const int64_t state_elements = int64_t{params.batches} * units;
  require(hidden.num_elements() == state_elements && cell.num_elements() == state_elements, op,
          "each state must hold batches x units = " + std::to_string(state_elements) + " elements");
  require(cell.quant.scale() > 0.0f && cell.quant.zero_point() == 0, op,
          "the cell state must be quantized symmetrically with a positive scale");
  require(input.quant.scale() > 0.0f && hidden.quant.scale() > 0.0f, op,
          "the input and hidden state need positive scales");

  const int32_t input_offset = -input.quant.zero_point();
  const int32_t hidden_offset = -hidden.quant.zero_point();
  std::vector<int8_t> input_weights, recurrent_weights;
  std::vector<int32_t> input_bias, recurrent_bias;
  for (int32_t g = 0; g < kLstmGateCount; ++g) {
    const Tensor& w_in = input_tensor(graph, op, kInputWeights[g]);
    const Tensor& w_rec = input_tensor(graph, op, kRecurrentWeights[g]);
    const Tensor& bias = input_tensor(graph, op, kGateBias[g]);
    check_weights(w_in, units, params.input_depth, op);
    check_weights(w_rec, units, units, op);
    require_dtype(bias, DType::kInt32, op, "gate bias", "int32");
    const std::vector<int32_t> bias_values = constant_i32(bias, op);
    require(static_cast<int32_t>(bias_values.size()) == units, op,
            "gate bias '" + bias.name + "' must have " + std::to_string(units) + " values");
    const std::vector<int8_t> w_in_values = constant_i8(w_in, op);
    const std::vector<int8_t> w_rec_values = constant_i8(w_rec, op);

    // TFLite Micro's CreateGateParams: each FC as its per-tensor fully
    // connected layer (CalculateOpDataFullyConnected) to int16 at 2^-12.
    std::vector<ChannelQuant> in_quant =
        channel_quant(input.quant.scale(), w_in.quant, kGateInputScale, bias_values, units,
                      target.rounding, ScaleProduct::kFloatWhenPerTensor);
    std::vector<ChannelQuant> rec_quant =
        channel_quant(hidden.quant.scale(), w_rec.quant, kGateInputScale, {}, units,
                      target.rounding, ScaleProduct::kFloatWhenPerTensor);
    fold_input_offset(in_quant.data(), units, w_in_values.data(), params.input_depth, input_offset);
    fold_input_offset(rec_quant.data(), units, w_rec_values.data(), units, hidden_offset);
    params.gates[g] = {rescale_of(in_quant[0]), rescale_of(rec_quant[0])};
    for (int32_t u = 0; u < units; ++u) {
      input_bias.push_back(in_quant[static_cast<size_t>(u)].bias);
      recurrent_bias.push_back(rec_quant[static_cast<size_t>(u)].bias);
    }
    input_weights.insert(input_weights.end(), w_in_values.begin(), w_in_values.end());
    recurrent_weights.insert(recurrent_weights.end(), w_rec_values.begin(), w_rec_values.end());
  }
  std::vector<int32_t> folded_bias = input_bias;
  folded_bias.insert(folded_bias.end(), recurrent_bias.begin(), recurrent_bias.end());

  // TFLite Micro's CreateInterGateMulParams: float scales widened to double.
  const double cell_scale = cell.quant.scale();
  params.forget_times_cell =
      product_rescale(kGateOutputScale, cell_scale, cell_scale, target.rounding, op);
  params.input_times_cell =
      product_rescale(kGateOutputScale, kGateOutputScale, cell_scale, target.rounding, op);
  params.hidden = product_rescale(kGateOutputScale, kGateOutputScale, hidden.quant.scale(),
                                  target.rounding, op);
  params.hidden_zero_point = hidden.quant.zero_point();

  // TFLite Micro's Tanh of the cell state: an input left shift of
  // 15 + log2(cell scale) - 3, or a multiplier 3 and a right shift when
  // negative. TFLite Micro takes CheckedLog2's rounded power whether or
  // not the scale is a power of two.
  const int32_t tanh_left_shift = 15 + checked_log2(cell.quant.scale()).rounded - 3;
  require(tanh_left_shift <= 14, op,
          "the cell state's scale is too large for the int16 tanh (at most 2^-1)");
  const Sigmoid16Scale tanh_scale = tanh_left_shift < 0
                                        ? resolve_sigmoid16_scale(3, -tanh_left_shift)
                                        : resolve_sigmoid16_scale(0, tanh_left_shift);
  require(tanh_scale.right_shift <= 30, op, "the cell state's scale is too small");
  params.cell_tanh_multiplier = tanh_scale.multiplier;
  params.cell_tanh_right_shift = tanh_scale.right_shift;

  // TFLite Micro's CreateLstmCellStateInfo: clips when the float clip is
  // positive, at the clip over the scale truncated to int16.
  require(op.attrs.cell_clip >= 0.0f, op, "cell_clip must not be negative");
  params.clip_cell = op.attrs.cell_clip > 0.0f ? 1 : 0;
  const double clip = static_cast<double>(op.attrs.cell_clip) / cell_scale;
  params.cell_clip = static_cast<int16_t>(std::min(std::max(clip, -32768.0), 32767.0));
  require(params.cell_clip >= 0, op, "cell_clip must not be negative");

  // No LSTM variant has mode onnx (an ONNX model has no such operator):
  // the reference, as the family's only answer there.
  const KernelId kernel = target.rounding == Rounding::kOnnx
                              ? KernelId::unidirectional_lstm_s8_ref
                              : choose_variant(kVariants, params, target);
  const LstmWeightLayout layout = lstm_weight_layout(find_kernel(static_cast<uint32_t>(kernel)));
  std::vector<int8_t> input_ordered(
      static_cast<size_t>(kLstmGateCount * lstm_gate_stride(layout, units, params.input_depth)));
  std::vector<int8_t> recurrent_ordered(
      static_cast<size_t>(kLstmGateCount * lstm_gate_stride(layout, units, units)));
  order_lstm_weights(layout, units, params.input_depth, input_weights.data(), input_ordered.data());
  order_lstm_weights(layout, units, units, recurrent_weights.data(), recurrent_ordered.data());
  LoweredOp lowered = make_lowered(kernel, params);
  lowered.inputs = {
      LoweredOperand::of_tensor(op.inputs[kInput]), LoweredOperand::of_values(input_ordered),
      LoweredOperand::of_values(recurrent_ordered), LoweredOperand::of_values(folded_bias)};
  // The states after the output: the kernel reads and then writes them
  // (the compiler keeps them alive across inferences).
  lowered.outputs = {op.outputs[0], op.inputs[kHiddenState], op.inputs[kCellState]};
  return lowered;
}

}  // namespace tinyaot
