// Reference SOFTMAX: TFLite's reference_ops::Softmax for int8 in, int8 or
// int16 out (one template, as TFLite's), with the exponentials read from
// the compile-time table (a difference at or past its end has exponential
// 0, see softmax.h).
#include "kernels/common/fixed_point.h"
#include "kernels/common/quant.h"
#include "kernels/common/validate.h"
#include "kernels/softmax/softmax.h"
#include "tinyaot/load_time.h"

namespace tinyaot {
namespace {

template <typename Out>
TINYAOT_LOAD_TIME Status validate(const void* raw, const OperandView* inputs, uint32_t num_inputs,
                                  const OperandView* outputs, uint32_t num_outputs) {
  const auto& p = *static_cast<const SoftmaxParams*>(raw);
  if (num_inputs != 2 || num_outputs != 1) return Status::kBadParams;
  int64_t size;
  if (p.rows < 1 || p.depth < 1 || !checked_mul(p.rows, p.depth, &size)) return Status::kBadParams;
  if (inputs[0].bytes != size || outputs[0].bytes != size * int64_t{sizeof(Out)} ||
      inputs[1].bytes < sizeof(int32_t) ||
      inputs[1].bytes > kSoftmaxExpTableSize * sizeof(int32_t) ||
      inputs[1].bytes % sizeof(int32_t) != 0)
    return Status::kBadParams;
  return Status::kOk;
}

template <typename Out>
Status run(const KernelArgs& args) {
  const auto& p = *static_cast<const SoftmaxParams*>(args.params);
  const auto* input = static_cast<const int8_t*>(args.inputs[0].data);
  const auto* exp_table = static_cast<const int32_t*>(args.inputs[1].data);
  const auto table_size = static_cast<int32_t>(args.inputs[1].bytes / sizeof(int32_t));
  auto* output = static_cast<Out*>(args.outputs[0].data);
  constexpr int kOutputBits = 8 * sizeof(Out);
  constexpr int32_t kOutputMin = sizeof(Out) == 1 ? INT8_MIN : INT16_MIN;
  constexpr int32_t kOutputMax = sizeof(Out) == 1 ? INT8_MAX : INT16_MAX;
  auto exp_of = [&](int32_t difference) {
    return difference < table_size ? exp_table[difference] : 0;
  };
  for (int32_t r = 0; r < p.rows; ++r) {
    const int8_t* row = input + r * p.depth;
    Out* out = output + r * p.depth;
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
    // Q0 probability to the output's steps (1/256, 1/65536): 31 - 8 or
    // 31 - 16 bits, plus the sum's magnitude. TFLite aborts outside
    // [0, 31] (an int8 row of over 511 values near the maximum); the
    // program fails the same row instead.
    const int exponent = num_bits_over_unit + 31 - kOutputBits;
    if (exponent < 0 || exponent > 31) return Status::kBadArgument;
    for (int32_t c = 0; c < p.depth; ++c) {
      const int32_t e = exp_of(row_max - row[c]);
      const int32_t probability =
          rounding_divide_by_pot(fixed_point::mul(scale, e), exponent) + kOutputMin;
      out[c] = static_cast<Out>(clamp_i32(probability, kOutputMin, kOutputMax));
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
    run<int8_t>,
    validate<int8_t>,
    nullptr,
};

const KernelDescriptor kernel_softmax_s8_s16_ref = {
    "softmax_s8_s16_ref",
    "softmax_s8_s16",  // another output type: not a variant of softmax_s8_ref
    1,
    sizeof(SoftmaxParams),
    2,
    2,
    1,
    IsaClass::kScalar,
    "input:s8[rows,depth], exp_table:i32[1..256] -> output:s16[rows,depth]; "
    "params=SoftmaxParams{rows,depth}",
    run<int16_t>,
    validate<int16_t>,
    nullptr,
};

}  // namespace tinyaot
