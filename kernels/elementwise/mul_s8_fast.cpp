// MUL for any broadcast, bit-exact with mul_s8_ref: the same walk, but the
// product's requantization in the form of add_sub_flat_math.h (the product
// doubled is below 2^18, so gemmlowp's doubling high multiply is one
// SMMLAR on DSP cores, one SMLAL on M3, quant.h's halves on M0), the output
// offset inside the accumulator, every constant a local of the loop.
#include "kernels/common/output_step.h"
#include "kernels/common/quant.h"
#include "kernels/elementwise/add_sub_flat_math.h"
#include "kernels/elementwise/elementwise.h"
#include "kernels/elementwise/mul_cases.h"
#include "tinyaot/load_time.h"

namespace tinyaot {
namespace {

using add_sub_flat::kHasLongMultiply;

struct MulConstants {
  int32_t offset1, offset2, multiplier, base, shift, output_offset, act_min, act_max;
};

template <Rounding R>
TINYAOT_MODE_LOOP void mul_loop(const BroadcastShape& shape, const int8_t* input1,
                                const int8_t* input2, int8_t* output, MulConstants k) {
  broadcast_walk(shape, input1, input2, output, [k](int8_t a, int8_t b) {
    int32_t value;
    if constexpr (kHasLongMultiply) {
      // k.offset2 is doubled: (a + o1) * (2b + 2 o2) = 2 * product.
      const int32_t product2 = (a + k.offset1) * (b * 2 + k.offset2);
      value = add_sub_flat::scale_long<R>(product2, k.multiplier, k.base, k.shift);
    } else {
      const int32_t product = (a + k.offset1) * (b + k.offset2);
      value = requantize_detail::right_shift_by_halves<R>(product, k.multiplier, -k.shift) +
              k.output_offset;
    }
    value = value < k.act_min ? k.act_min : value;
    value = value > k.act_max ? k.act_max : value;
    return static_cast<int8_t>(value);
  });
}

TINYAOT_LOAD_TIME Status validate(const void* raw, const OperandView* inputs, uint32_t num_inputs,
                                  const OperandView* outputs, uint32_t num_outputs) {
  const Status status = validate_mul(raw, inputs, num_inputs, outputs, num_outputs);
  if (status != Status::kOk) return status;
  return is_mul_fast_case(*static_cast<const MulParams*>(raw)) ? Status::kOk : Status::kBadParams;
}

Status run(const KernelArgs& args) {
  const auto& p = *static_cast<const MulParams*>(args.params);
  MulConstants k;
  k.offset1 = p.input1_offset;
  k.offset2 = kHasLongMultiply ? 2 * p.input2_offset : p.input2_offset;
  k.multiplier = p.output_multiplier;
  k.shift = -p.output_shift;
  k.base = (int32_t{1} << (k.shift - 1)) + p.output_offset * (int32_t{1} << k.shift);
  k.output_offset = p.output_offset;
  k.act_min = p.act_min;
  k.act_max = p.act_max;
  const auto* input1 = static_cast<const int8_t*>(args.inputs[0].data);
  const auto* input2 = static_cast<const int8_t*>(args.inputs[1].data);
  auto* output = static_cast<int8_t*>(args.outputs[0].data);
  with_rounding(args.rounding, [&](auto mode) {
    mul_loop<decltype(mode)::value>(p.shape, input1, input2, output, k);
  });
  return Status::kOk;
}

}  // namespace

const KernelDescriptor kernel_mul_s8_fast = {
    "mul_s8_fast",
    "mul",
    2,
    sizeof(MulParams),
    2,
    2,
    1,
    IsaClass::kScalar,
    kMulSignature,
    run,
    validate,
    nullptr,
    kElementwiseInPlaceInputs,
};

}  // namespace tinyaot
