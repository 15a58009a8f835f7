// Lowering of SVDF: TFLite Micro's PrepareSvdf checks and constants (its
// two effective scales, each formed in float, then widened), then the
// variant for the state's type. The state tensor becomes the operation's
// second output (the state contract: outputs after the real ones).
#include <cmath>

#include "kernels/common/lower_helpers.h"
#include "kernels/lowerings.h"
#include "kernels/svdf/svdf.h"

namespace tinyaot {
namespace {

constexpr size_t kInput = 0, kWeightsFeature = 1, kWeightsTime = 2, kBias = 3, kState = 4;

void require_per_tensor(const Tensor& tensor, const Operation& op, const char* what) {
  require(tensor.quant.scales.size() == 1 && tensor.quant.scale() > 0.0f &&
              std::isfinite(tensor.quant.scale()),
          op, std::string(what) + " must be quantized per tensor with a positive scale");
}

bool is_matrix(const Tensor& tensor) {
  return tensor.shape.size() == 2 && tensor.shape[0] >= 1 && tensor.shape[1] >= 1;
}

}  // namespace

LoweredOp lower_svdf(const Graph& graph, const Operation& op, const Target& target) {
  require(op.inputs.size() == 5 && op.outputs.size() == 1, op,
          "SVDF takes input, weights_feature, weights_time, bias and state, and has one output");
  const Tensor& input = input_tensor(graph, op, kInput);
  const Tensor& weights_feature = input_tensor(graph, op, kWeightsFeature);
  const Tensor& weights_time = input_tensor(graph, op, kWeightsTime);
  const Tensor& state = input_tensor(graph, op, kState);
  const Tensor& output = output_tensor(graph, op);
  const bool has_bias = has_input(op, kBias);

  require(input.dtype == DType::kInt8 && output.dtype == DType::kInt8, op,
          "only int8 input and output are supported (TFLite Micro's integer SVDF)");
  require(weights_feature.dtype == DType::kInt8, op, "weights_feature must be int8");
  require(weights_time.dtype == DType::kInt16 || weights_time.dtype == DType::kInt8, op,
          "weights_time must be int16 or int8");
  require(state.dtype == weights_time.dtype, op,
          "the state must have weights_time's type (TFLite Micro reads both as one type)");
  require(state.is_variable, op, "the state (input 4) must be a variable tensor");
  require(weights_feature.is_constant() && weights_time.is_constant(), op,
          "weights_feature and weights_time must be constant");
  require(is_matrix(input) && is_matrix(weights_feature) && is_matrix(weights_time) &&
              is_matrix(state) && is_matrix(output),
          op, "input, weights, state and output must be 2-D with positive dimensions");

  const int32_t batches = input.shape[0];
  const int32_t input_size = input.shape[1];
  const int32_t filters = weights_feature.shape[0];
  const int32_t memory = weights_time.shape[1];
  const int32_t rank = op.attrs.rank;
  require(rank >= 1 && filters % rank == 0, op,
          "rank must be positive and divide the number of filters");
  const int32_t units = filters / rank;
  require(weights_feature.shape[1] == input_size, op, "weights_feature must be [filters, input]");
  require(weights_time.shape[0] == filters, op, "weights_time must be [filters, memory]");
  require(
      int64_t{state.shape[0]} == batches && int64_t{state.shape[1]} == int64_t{memory} * filters,
      op, "the state must be [batches, memory * filters]");
  require(output.shape[0] == batches && output.shape[1] == units, op,
          "the output must be [batches, filters / rank]");

  for (const auto& [tensor, what] : {std::pair{&input, "the input"},
                                     {&weights_feature, "weights_feature"},
                                     {&weights_time, "weights_time"},
                                     {&state, "the state"},
                                     {&output, "the output"}})
    require_per_tensor(*tensor, op, what);
  require(weights_feature.quant.zero_point() == 0 && weights_time.quant.zero_point() == 0, op,
          "the weights must be symmetric (zero point 0)");

  // PrepareSvdf forms both products and quotients in float, then widens.
  const float feature_scale =
      input.quant.scale() * weights_feature.quant.scale() / state.quant.scale();
  const float output_scale =
      state.quant.scale() * weights_time.quant.scale() / output.quant.scale();
  const QuantizedMultiplier feature = quantize_multiplier(feature_scale, target.rounding);
  const QuantizedMultiplier rescale = quantize_multiplier(output_scale, target.rounding);

  SvdfParams params{};
  params.batches = batches;
  params.input_size = input_size;
  params.filters = filters;
  params.units = units;
  params.rank = rank;
  params.memory = memory;
  params.input_offset = -input.quant.zero_point();
  params.state_zero_point = state.quant.zero_point();
  params.output_offset = output.quant.zero_point();
  params.feature_multiplier = feature.multiplier;
  params.feature_shift = feature.shift;
  params.output_multiplier = rescale.multiplier;
  params.output_shift = rescale.shift;

  const KernelId kernel =
      state.dtype == DType::kInt16 ? KernelId::svdf_s8_state16_ref : KernelId::svdf_s8_state8_ref;
  LoweredOp lowered = make_lowered(kernel, params);
  lowered.inputs = {LoweredOperand::of_tensor(op.inputs[kInput]),
                    LoweredOperand::of_tensor(op.inputs[kWeightsFeature]),
                    LoweredOperand::of_tensor(op.inputs[kWeightsTime])};
  if (has_bias) {
    const Tensor& bias = input_tensor(graph, op, kBias);
    require(bias.dtype == DType::kInt32 && bias.is_constant() && bias.shape.size() == 1 &&
                bias.shape[0] == units,
            op, "the bias must be a constant int32 [filters / rank]");
    // TFLite Micro refuses a bias whose scale is not state * time weights.
    const double expected = static_cast<double>(state.quant.scale() * weights_time.quant.scale());
    require(std::abs(static_cast<double>(bias.quant.scale()) - expected) < 1e-5, op,
            "the bias scale must be the state's scale times weights_time's");
    lowered.inputs.push_back(LoweredOperand::of_tensor(op.inputs[kBias]));
  }
  lowered.outputs = {op.outputs[0], op.inputs[kState]};
  return lowered;
}

}  // namespace tinyaot
