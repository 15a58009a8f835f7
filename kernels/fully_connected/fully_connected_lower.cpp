// Lowering of FULLY_CONNECTED: flattens the input to [batches, depth] and
// precomputes per-unit bias, multiplier and shift, then picks the cheapest
// variant the target's ISA class has.
#include "kernels/common/kernel_sums.h"
#include "kernels/common/lower_helpers.h"
#include "kernels/common/variant_choice.h"
#include "kernels/fully_connected/fully_connected.h"
#include "kernels/fully_connected/fully_connected_blocks.h"

namespace tinyaot {
namespace {

// Rough cycle models; only their ordering matters. The reference loads
// both operands and adds the input offset per MAC: measured on ad01
// (QEMU), 7.5 instructions a MAC on M3, 10 on M0.
uint64_t reference_cost(const FullyConnectedParams& p) {
  const uint64_t outputs = uint64_t(p.batches) * uint64_t(p.output_depth);
  return outputs * (5 * uint64_t(p.input_depth) + 12);
}

// Per 16 inputs and four units one input load, four weight loads and four
// VMLADAVA (2.5 instructions per 16 MACs a unit); the output step four
// units a vector.
uint64_t mve_cost(const FullyConnectedParams& p) {
  const uint64_t outputs = uint64_t(p.batches) * uint64_t(p.output_depth);
  return outputs * ((uint64_t(p.input_depth) + 15) / 16 * 5 / 2 + 8);
}

// Four units per input load: per 16 MACs one input word widened (3), four
// weight words loaded (1-2), widened (8) and multiplied by SMLAD (8).
// Measured on ad01 (M4, QEMU): 1.5 instructions a MAC with the output step.
uint64_t dsp_cost(const FullyConnectedParams& p) {
  const uint64_t outputs = uint64_t(p.batches) * uint64_t(p.output_depth);
  return outputs * ((3 * uint64_t(p.input_depth) + 1) / 2 + 12);
}

// Four units per input load, a MAC a weight load and MLA (M3) or LDRB,
// MULS, ADD (M0); the inputs summed once per row for the offset binary.
// Measured on ad01 (QEMU): 2.5 (M3) and 3.75 (M0) instructions a MAC in
// the loop, the reference 7.5 and 10.
uint64_t blocked_cost(const FullyConnectedParams& p) {
  const uint64_t outputs = uint64_t(p.batches) * uint64_t(p.output_depth);
  return outputs * (3 * uint64_t(p.input_depth) + 12) +
         uint64_t(p.batches) * uint64_t(p.input_depth);
}

// int16x8: the reference loads and multiplies a MAC in about 5
// instructions; per four depths the DSP variant regroups two input words
// (4, shared by a block of units) and per unit loads, widens and
// multiplies one weight word (5); the MVE variant eight depths per input
// load, weight load and VMLALDAVA (about 3 a unit). The output step about
// 20 either way.
uint64_t s16_reference_cost(const FullyConnectedParams& p) {
  const uint64_t outputs = uint64_t(p.batches) * uint64_t(p.output_depth);
  return outputs * (5 * uint64_t(p.input_depth) + 20);
}

uint64_t s16_dsp_cost(const FullyConnectedParams& p) {
  const uint64_t outputs = uint64_t(p.batches) * uint64_t(p.output_depth);
  return outputs * ((uint64_t(p.input_depth) + 3) / 4 * 6 + 20);
}

uint64_t s16_mve_cost(const FullyConnectedParams& p) {
  const uint64_t outputs = uint64_t(p.batches) * uint64_t(p.output_depth);
  return outputs * ((uint64_t(p.input_depth) + 7) / 8 * 3 + 20);
}

const VariantCandidate<FullyConnectedParams> kS16Variants[] = {
    {KernelId::fully_connected_s16_ref, nullptr, s16_reference_cost},
    {KernelId::fully_connected_s16_dsp, nullptr, s16_dsp_cost},
    {KernelId::fully_connected_s16_mve, nullptr, s16_mve_cost},
};

const VariantCandidate<FullyConnectedParams> kVariants[] = {
    {KernelId::fully_connected_s8_ref, nullptr, reference_cost},
    {KernelId::fully_connected_s8_blocked, nullptr, blocked_cost},
    {KernelId::fully_connected_s8_dsp, nullptr, dsp_cost},
    {KernelId::fully_connected_s8_mve, nullptr, mve_cost},
};

}  // namespace

LoweredOp lower_fully_connected(const Graph& graph, const Operation& op, const Target& target) {
  const Tensor& input = input_tensor(graph, op, 0);
  const Tensor& filter = input_tensor(graph, op, 1);
  const Tensor& output = output_tensor(graph, op);
  require(filter.is_constant(), op, "weights must be constant");
  require(filter.shape.size() == 2, op, "weights must be 2-D [units, depth]");
  const int32_t units = filter.shape[0];
  const int32_t depth = filter.shape[1];
  require(depth > 0 && input.num_elements() % depth == 0, op,
          "input size is not a multiple of the weights' depth");
  const bool int16 = is_int16x8(graph, op, target);
  std::vector<int32_t> bias;
  if (has_input(op, 2) && !int16) {
    bias = constant_i32(input_tensor(graph, op, 2), op);
    require(static_cast<int32_t>(bias.size()) == units, op, "bias size differs from units");
  }
  require(
      filter.quant.scales.size() == 1 || static_cast<int32_t>(filter.quant.scales.size()) == units,
      op, "weights need one scale or one per unit");
  // TFLite Micro's per-tensor path would subtract a weight zero point; its
  // converter never writes one, and no variant here takes it.
  for (int64_t zero_point : filter.quant.zero_points)
    require(zero_point == 0, op, "weights must be symmetric (zero point 0)");

  const int64_t batches = input.num_elements() / depth;
  require(output.num_elements() == batches * units, op,
          "output has " + std::to_string(output.num_elements()) + " elements; " +
              std::to_string(batches) + " rows x " + std::to_string(units) + " units make " +
              std::to_string(batches * units));

  FullyConnectedParams params{};
  params.batches = static_cast<int32_t>(input.num_elements() / depth);
  params.input_depth = depth;
  params.output_depth = units;
  params.input_offset = -input.quant.zero_point();
  params.output_offset = output.quant.zero_point();
  params.act_min = op.act_min;
  params.act_max = op.act_max;

  if (int16)
    return lower_int16x8_weighted(choose_variant(kS16Variants, params, target), params, graph, op,
                                  target, units, ScaleProduct::kFloatWhenPerTensor);

  std::vector<ChannelQuant> quant =
      channel_quant(input.quant.scale(), filter.quant, output.quant.scale(), bias, units,
                    target.rounding, ScaleProduct::kFloatWhenPerTensor);
  const KernelId kernel = choose_weighted_variant(kVariants, params, target, quant);
  const KernelDescriptor* descriptor = find_kernel(static_cast<uint32_t>(kernel));
  const bool folds = fully_connected_variant_folds_input_offset(descriptor);
  const bool blocks = fully_connected_variant_orders_weights(descriptor);
  const std::vector<int8_t> weights =
      folds || blocks ? constant_i8(filter, op) : std::vector<int8_t>{};
  if (folds) fold_input_offset(quant.data(), units, weights.data(), depth, params.input_offset);
  LoweredOperand weights_operand = LoweredOperand::of_tensor(op.inputs[1]);
  if (blocks) {
    std::vector<int8_t> ordered(weights.size());
    order_fully_connected_weights(descriptor, units, depth, weights.data(), ordered.data());
    weights_operand = LoweredOperand::of_values(ordered);
  }
  LoweredOp lowered = make_lowered(kernel, params);
  lowered.inputs = {LoweredOperand::of_tensor(op.inputs[0]), weights_operand,
                    LoweredOperand::of_values(quant)};
  lowered.outputs = {op.outputs[0]};
  return lowered;
}

}  // namespace tinyaot
