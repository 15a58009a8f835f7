// QUANTIZE float32 -> int8, bit-exact with quantize_f32_s8_ref in every
// rounding mode. Without a float32 FPU (M0, M3, M23, soft-float builds)
// each element from its bits by quantize_estimate.h's integer estimate,
// the reference's float chain only for the elements near a tie, NaN,
// infinities and subnormals; with one, the reference's chain itself (one
// VDIV an element).
#include <string.h>

#include "kernels/common/fpu.h"
#include "kernels/common/output_step.h"
#include "kernels/quantize/quantize_common.h"
#include "kernels/quantize/quantize_estimate.h"
#include "kernels/quantize/quantize_float.h"
#include "tinyaot/load_time.h"

namespace tinyaot {
namespace {

TINYAOT_LOAD_TIME Status validate(const void* raw, const OperandView* inputs, uint32_t num_inputs,
                                  const OperandView* outputs, uint32_t num_outputs) {
  if (num_inputs != 1 || num_outputs != 1) return Status::kBadParams;
  return validate_quantize_params(*static_cast<const QuantizeParams*>(raw), inputs[0].bytes,
                                  outputs[0].bytes);
}

template <Rounding R>
TINYAOT_MODE_LOOP void quantize(const QuantizeParams& p, const float* input, int8_t* output) {
#if defined(TINYAOT_FPU_F32)
  for (int32_t i = 0; i < p.size; ++i) output[i] = quantize_one<R>(input[i], p.scale, p.zero_point);
#else
  const QuantizeEstimate estimate(p.scale);
  for (int32_t i = 0; i < p.size; ++i) {
    uint32_t bits;  // aligned (an f32 operand, KernelSignature): an LDR, not a memcpy call
    memcpy(&bits, __builtin_assume_aligned(input + i, 4), sizeof bits);
    const int32_t steps = estimate.steps(bits);
    if (steps == QuantizeEstimate::kUndecided) {
      output[i] = quantize_one<R>(input[i], p.scale, p.zero_point);
      continue;
    }
    const int32_t value = steps + p.zero_point;
    output[i] = static_cast<int8_t>(value < -128 ? -128 : (value > 127 ? 127 : value));
  }
#endif
}

Status run(const KernelArgs& args) {
  const auto& p = *static_cast<const QuantizeParams*>(args.params);
  const auto* input = static_cast<const float*>(args.inputs[0].data);
  auto* output = static_cast<int8_t*>(args.outputs[0].data);
  with_any_rounding(args.rounding,
                    [&](auto mode) { quantize<decltype(mode)::value>(p, input, output); });
  return Status::kOk;
}

}  // namespace

const KernelDescriptor kernel_quantize_f32_s8_estimate = {
    "quantize_f32_s8_estimate",
    "quantize",
    2,
    sizeof(QuantizeParams),
    1,
    1,
    1,
    IsaClass::kScalar,
    "input:f32[size] -> output:s8[size]; params=QuantizeParams{size,scale,zero_point}",
    run,
    validate,
    nullptr,
    operand_bit(0),  // element i written after input elements 0..i are read
};

}  // namespace tinyaot
