// Reference MEAN: TFLite Micro's int8 and int16 reduction
// (QuantizedMeanOrSum<T, int32_t>, for every quantization). Each output
// sums its cells directly, so no scratch is needed: int32 addition wraps the
// same in any order.
#include "kernels/common/int16x8.h"
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
template <typename T>
int32_t reduced_sum(const T* input, int32_t base, const Split& s) {
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

template <typename Mode, typename T>
TINYAOT_MODE_LOOP void mean(const MeanParams& p, const Split& s, const T* input, T* output,
                            int32_t outputs) {
  // Centring on the input zero point is a bias of -count * zero_point
  // (wrapping as TFLite's int32 arithmetic).
  const int32_t bias = static_cast<int32_t>(0u - static_cast<uint32_t>(p.input_zero_point) *
                                                     static_cast<uint32_t>(p.count));
  int32_t index[kMeanMaxRank] = {};
  int32_t base = 0;
  for (int32_t o = 0; o < outputs; ++o) {
    const int32_t sum = reduced_sum(input, base, s);
    if constexpr (sizeof(T) == 1) {
      output[o] = output_step<Mode::value>(sum, bias, p.multiplier, p.shift, p.output_zero_point,
                                           -128, 127);
    } else {  // zero points 0 (validated)
      output[o] = clamp_output_s16(requantize<Mode::value>(sum, p.multiplier, p.shift), INT16_MIN,
                                   INT16_MAX);
    }
    for (int32_t d = 0; d < s.kept_n; ++d) {
      base += s.kept_strides[d];
      if (++index[d] < s.kept_dims[d]) break;
      base -= index[d] * s.kept_strides[d];
      index[d] = 0;
    }
  }
}

template <typename T>
Status run(const KernelArgs& args) {
  const auto& p = *static_cast<const MeanParams*>(args.params);
  const auto* input = static_cast<const T*>(args.inputs[0].data);
  auto* output = static_cast<T*>(args.outputs[0].data);
  // int16 has no rounding mode onnx (its lowering refuses it).
  if (sizeof(T) == 2 && args.rounding == Rounding::kOnnx) return Status::kBadParams;
  const Split s = split_dims(p);
  const auto outputs = static_cast<int32_t>(args.outputs[0].bytes / sizeof(T));
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
    run<int8_t>,
    validate_mean,
    nullptr,
};

const KernelDescriptor kernel_mean_s16_ref = {
    "mean_s16_ref",
    "mean_s16",
    1,
    sizeof(MeanParams),
    1,
    1,
    1,
    IsaClass::kScalar,
    "input:s16[dims] -> output:s16[kept dims]; params=MeanParams{rank,dims[6],reduced_mask,count,"
    "input_zero_point,output_zero_point,multiplier,shift}",
    run<int16_t>,
    validate_mean_of<int16_t>,
    nullptr,
};

}  // namespace tinyaot
