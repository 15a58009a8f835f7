// Reference MEAN: TFLite Micro's int8 reduction (QuantizedMeanOrSum, for
// every quantization). Each output
// sums its cells directly, so no scratch is needed: int32 addition wraps the
// same in any order.
#include "kernels/common/output_step.h"
#include "kernels/mean/mean.h"
#include "kernels/mean/mean_validate.h"

namespace tinyaot {
namespace {

// Row-major strides of the kept and of the reduced dimensions, each group
// in input order.
struct Split {
  int32_t kept_n = 0, reduced_n = 0;
  int32_t kept_dims[kMeanMaxRank], kept_strides[kMeanMaxRank];
  int32_t reduced_dims[kMeanMaxRank], reduced_strides[kMeanMaxRank];
};

Split split_dims(const MeanParams& p) {
  Split s;
  int32_t stride = 1;
  for (int32_t i = p.rank - 1; i >= 0; --i) {
    if ((p.reduced_mask >> i) & 1u) {
      s.reduced_dims[s.reduced_n] = p.dims[i];
      s.reduced_strides[s.reduced_n++] = stride;
    } else {
      s.kept_dims[s.kept_n] = p.dims[i];
      s.kept_strides[s.kept_n++] = stride;
    }
    stride *= p.dims[i];
  }
  return s;  // groups listed innermost first
}

// Sum of the cells one output averages, starting at input offset `base`.
int32_t reduced_sum(const int8_t* input, int32_t base, const Split& s) {
  int32_t index[kMeanMaxRank] = {};
  int32_t offset = base;
  int32_t sum = 0;
  for (;;) {
    sum = wrapping_add(sum, input[offset]);
    int32_t d = 0;
    for (; d < s.reduced_n; ++d) {
      offset += s.reduced_strides[d];
      if (++index[d] < s.reduced_dims[d]) break;
      offset -= index[d] * s.reduced_strides[d];
      index[d] = 0;
    }
    if (d == s.reduced_n) return sum;
  }
}

template <typename Mode>
TINYAOT_MODE_LOOP void mean(const MeanParams& p, const Split& s, const int8_t* input,
                            int8_t* output, int32_t outputs) {
  // Centring on the input zero point is a bias of -count * zero_point
  // (wrapping as TFLite's int32 arithmetic).
  const int32_t bias = static_cast<int32_t>(0u - static_cast<uint32_t>(p.input_zero_point) *
                                                     static_cast<uint32_t>(p.count));
  int32_t index[kMeanMaxRank] = {};
  int32_t base = 0;
  for (int32_t o = 0; o < outputs; ++o) {
    output[o] = output_step<Mode::value>(reduced_sum(input, base, s), bias, p.multiplier, p.shift,
                                         p.output_zero_point, -128, 127);
    for (int32_t d = 0; d < s.kept_n; ++d) {
      base += s.kept_strides[d];
      if (++index[d] < s.kept_dims[d]) break;
      base -= index[d] * s.kept_strides[d];
      index[d] = 0;
    }
  }
}

Status run(const KernelArgs& args) {
  const auto& p = *static_cast<const MeanParams*>(args.params);
  const auto* input = static_cast<const int8_t*>(args.inputs[0].data);
  auto* output = static_cast<int8_t*>(args.outputs[0].data);
  const Split s = split_dims(p);
  const int32_t outputs = static_cast<int32_t>(args.outputs[0].bytes);
  with_any_rounding(args.rounding,
                    [&](auto mode) { mean<decltype(mode)>(p, s, input, output, outputs); });
  return Status::kOk;
}

}  // namespace

const KernelDescriptor kernel_mean_s8_ref = {
    "mean_s8_ref",
    "mean",
    2,
    sizeof(MeanParams),
    1,
    1,
    1,
    IsaClass::kScalar,
    "input:s8[dims] -> output:s8[kept dims]; params=MeanParams{rank,dims[6],reduced_mask,count,"
    "input_zero_point,output_zero_point,multiplier,shift}",
    run,
    validate_mean,
    nullptr,
};

}  // namespace tinyaot
