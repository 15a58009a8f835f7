// Reference int16 SOFTMAX (softmax_int16.h). Each row's exponentials wait
// in the output, as TFLite's, until the reciprocal of their sum scales
// them: no scratch.
#include "kernels/common/fixed_point.h"
#include "kernels/common/output_step.h"
#include "kernels/common/quant.h"
#include "kernels/common/validate.h"
#include "kernels/softmax/softmax_int16.h"
#include "tinyaot/load_time.h"

namespace tinyaot {
namespace {

TINYAOT_LOAD_TIME Status validate(const void* raw, const OperandView* inputs, uint32_t num_inputs,
                                  const OperandView* outputs, uint32_t num_outputs) {
  const auto& p = *static_cast<const SoftmaxInt16Params*>(raw);
  if (num_inputs != 3 || num_outputs != 1) return Status::kBadParams;
  int64_t size;
  if (p.rows < 1 || p.depth < 1 || p.depth > kSoftmaxInt16MaxDepth ||
      !checked_mul(p.rows, p.depth, &size) || !checked_mul(size, 2, &size))
    return Status::kBadParams;
  constexpr uint32_t kTableBytes = kSoftmaxInt16TableSize * sizeof(int16_t);
  if (inputs[0].bytes != size || outputs[0].bytes != size || inputs[1].bytes != kTableBytes ||
      inputs[2].bytes != kTableBytes || p.input_multiplier < 0 || !is_shift(p.input_shift))
    return Status::kBadParams;
  return Status::kOk;
}

template <Rounding R>
TINYAOT_MODE_LOOP void softmax(const SoftmaxInt16Params& p, const int16_t* input,
                               const int16_t* exp_table, const int16_t* reciprocal_table,
                               int16_t* output) {
  for (int32_t r = 0; r < p.rows; ++r) {
    const int16_t* row = input + r * p.depth;
    int16_t* out = output + r * p.depth;
    int32_t row_max = INT16_MIN;
    for (int32_t c = 0; c < p.depth; ++c) row_max = row[c] > row_max ? row[c] : row_max;

    int32_t sum = 0;  // Q16.15
    for (int32_t c = 0; c < p.depth; ++c) {
      // [-65535, 0] spans [-10, 0]; recentred on int16's range.
      const int32_t scaled = requantize<R>(row[c] - row_max, p.input_multiplier, p.input_shift);
      const auto centred = static_cast<int16_t>(clamp_i32(scaled + 32767, INT16_MIN, INT16_MAX));
      out[c] = int16_table_lookup(centred, exp_table);
      sum += out[c];
    }

    // 1 / sum from the table of 1 / (1 + x): the sum normalized to [1, 2)
    // in Q1.15, less 1, recentred on int16's range.
    const int headroom_plus_one = fixed_point::count_leading_zeros(static_cast<uint32_t>(sum));
    const auto shifted_sum = static_cast<int32_t>(
        ((static_cast<int64_t>(sum) << (headroom_plus_one - 1)) + (1 << 13)) >> 14);
    const auto centred_sum = static_cast<int16_t>(
        clamp_i32(shifted_sum - ((1 << 15) + (1 << 16)), INT16_MIN, INT16_MAX));
    const int32_t reciprocal = int16_table_lookup(centred_sum, reciprocal_table);

    const int right_shift = 31 - headroom_plus_one;
    const int64_t round = int64_t{1} << (right_shift - 1);
    for (int32_t c = 0; c < p.depth; ++c) {
      const auto scaled =
          static_cast<int32_t>((static_cast<int64_t>(out[c]) * reciprocal + round) >> right_shift);
      out[c] = static_cast<int16_t>(clamp_i32(scaled, 0, INT16_MAX));
    }
  }
}

Status run(const KernelArgs& args) {
  const auto& p = *static_cast<const SoftmaxInt16Params*>(args.params);
  with_rounding(args.rounding, [&](auto mode) {
    softmax<decltype(mode)::value>(p, static_cast<const int16_t*>(args.inputs[0].data),
                                   static_cast<const int16_t*>(args.inputs[1].data),
                                   static_cast<const int16_t*>(args.inputs[2].data),
                                   static_cast<int16_t*>(args.outputs[0].data));
  });
  return Status::kOk;
}

}  // namespace

const KernelDescriptor kernel_softmax_s16_ref = {
    "softmax_s16_ref",
    "softmax_s16",
    1,
    sizeof(SoftmaxInt16Params),
    3,
    3,
    1,
    IsaClass::kScalar,
    "input:s16[rows,depth], exp_table:i16[513], reciprocal_table:i16[513] -> "
    "output:s16[rows,depth]; params=SoftmaxInt16Params{rows,depth,input_multiplier,input_shift}",
    run,
    validate,
    nullptr,
};

}  // namespace tinyaot
