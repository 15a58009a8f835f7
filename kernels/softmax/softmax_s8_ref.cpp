// Reference SOFTMAX: TFLite's reference_ops::Softmax for int8 in and out,
// with the exponentials read from the compile-time table (a difference at
// or past its end has exponential 0, see softmax.h).
#include "kernels/common/fixed_point.h"
#include "kernels/common/quant.h"
#include "kernels/common/validate.h"
#include "kernels/softmax/softmax.h"
#include "tinyaot/load_time.h"

namespace tinyaot {
namespace {

TINYAOT_LOAD_TIME Status validate(const void* raw, const OperandView* inputs, uint32_t num_inputs,
                                  const OperandView* outputs, uint32_t num_outputs) {
  const auto& p = *static_cast<const SoftmaxParams*>(raw);
  if (num_inputs != 2 || num_outputs != 1) return Status::kBadParams;
  int64_t size;
  if (p.rows < 1 || p.depth < 1 || !checked_mul(p.rows, p.depth, &size)) return Status::kBadParams;
  if (inputs[0].bytes != size || outputs[0].bytes != size || inputs[1].bytes < sizeof(int32_t) ||
      inputs[1].bytes > kSoftmaxExpTableSize * sizeof(int32_t) ||
      inputs[1].bytes % sizeof(int32_t) != 0)
    return Status::kBadParams;
  return Status::kOk;
}

Status run(const KernelArgs& args) {
  const auto& p = *static_cast<const SoftmaxParams*>(args.params);
  const auto* input = static_cast<const int8_t*>(args.inputs[0].data);
  const auto* exp_table = static_cast<const int32_t*>(args.inputs[1].data);
  const auto table_size = static_cast<int32_t>(args.inputs[1].bytes / sizeof(int32_t));
  auto* output = static_cast<int8_t*>(args.outputs[0].data);
  auto exp_of = [&](int32_t difference) {
    return difference < table_size ? exp_table[difference] : 0;
  };
  for (int32_t r = 0; r < p.rows; ++r) {
    const int8_t* row = input + r * p.depth;
    int8_t* out = output + r * p.depth;
    int32_t row_max = -128;
    for (int32_t c = 0; c < p.depth; ++c) row_max = row[c] > row_max ? row[c] : row_max;

    // The sum's loop stays scalar for clang: LLVM 14's loop vectorizer
    // crashes on it for MVE cores at -Os (in VPReductionRecipe::execute).
    int32_t sum = 0;  // Q12
#if defined(__clang__)
#pragma clang loop vectorize(disable)
#endif
    for (int32_t c = 0; c < p.depth; ++c) {
      const int32_t e = exp_of(row_max - row[c]);
      sum = fixed_point::add(sum, fixed_point::rescale(e, 0, kSoftmaxSumIntegerBits));
    }
    int num_bits_over_unit;
    const int32_t scale = fixed_point::reciprocal(sum, kSoftmaxSumIntegerBits, &num_bits_over_unit);
    // Q0 probability to int8 steps of 1/256: 31 - 8 bits, plus the sum's
    // magnitude. TFLite aborts outside [0, 31] (a row of over 511 values
    // near the maximum); the program fails the same row instead.
    const int exponent = num_bits_over_unit + 31 - 8;
    if (exponent < 0 || exponent > 31) return Status::kBadArgument;
    for (int32_t c = 0; c < p.depth; ++c) {
      const int32_t e = exp_of(row_max - row[c]);
      const int32_t probability =
          rounding_divide_by_pot(fixed_point::mul(scale, e), exponent) - 128;
      out[c] = saturate_i8(probability);
    }
  }
  return Status::kOk;
}

}  // namespace

const KernelDescriptor kernel_softmax_s8_ref = {
    "softmax_s8_ref",
    "softmax",
    3,
    sizeof(SoftmaxParams),
    2,
    2,
    1,
    IsaClass::kScalar,
    TINYAOT_SOFTMAX_SIGNATURE,
    run,
    validate,
    nullptr,
    0,  // no input in place
    kSoftmaxWordAlignedInputs,
};

}  // namespace tinyaot
