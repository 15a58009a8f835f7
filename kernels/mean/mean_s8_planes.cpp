// MEAN of each channel over planes ([batches,] cells, channels with the
// cells reduced: a global average pool), bit-exact with mean_s8_ref in
// every rounding mode: the plane is one pooling window of `cells` cells,
// its channels summed by the average pooling walks, each sum then through
// the reference's output step.
//   mean_s8_planes:     four channels a word (pool_sum.h, sum16's walk);
//   mean_s8_planes_mve: 16 channels a block (pool_sum_mve.h), the step
//                       four lanes at a time (output_step_mve.h).
//                       Elsewhere (the host) mean_s8_planes' walk.
#include "kernels/common/output_step.h"
#include "kernels/common/output_step_mve.h"
#include "kernels/common/quant.h"
#include "kernels/mean/mean.h"
#include "kernels/mean/mean_validate.h"
#include "kernels/pooling/pool_cases.h"
#include "kernels/pooling/pool_sum.h"
#include "kernels/pooling/pool_sum_mve.h"

namespace tinyaot {
namespace {

static_assert(kMeanPlanesMaxCells <= kSum16MaxCells, "planes past the 16-bit sums' bound");

// The reference's output step for a channel's sum (mean_s8_ref.cpp).
template <typename Mode>
class MeanStep {
 public:
  explicit MeanStep(const MeanParams& p)
      : bias_(static_cast<int32_t>(0u - static_cast<uint32_t>(p.input_zero_point) *
                                            static_cast<uint32_t>(p.count))),
        multiplier_(p.multiplier),
        shift_(p.shift),
        output_zero_point_(p.output_zero_point) {}
  void set_count(int32_t /*count*/) {}
  int8_t output(int32_t sum, const PoolWindow& /*w*/, int32_t /*channel*/) const {
    return output_step<Mode::value>(sum, bias_, multiplier_, shift_, output_zero_point_, -128, 127);
  }

 private:
  int32_t bias_, multiplier_, shift_, output_zero_point_;
};

#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1)
// MeanStep on a block of 16 sums, four 32-bit lanes at a time
// (output_step_mve.h, exact for a rescale the fast variants take; any
// other, never met in a model, a channel at a time).
template <typename Mode>
class MeanVectorStep {
 public:
  explicit MeanVectorStep(const MeanParams& p)
      : step_(p),
        bias_(static_cast<int32_t>(0u - static_cast<uint32_t>(p.input_zero_point) *
                                            static_cast<uint32_t>(p.count))),
        multiplier_(vdupq_n_s32(p.multiplier)),
        shift_(vdupq_n_s32(p.shift)),
        range_(output_range_mve(OutputRange{p.output_zero_point, -128, 127})),
        vector_step_(Mode::value == Rounding::kOnnx || has_fast_rescale(rescale_of(p))) {}
  void set_count(int32_t /*count*/) {}

  template <bool kTail>
  void finish(int16x8_t sum_low, int16x8_t sum_high, mve_pred16_t low, mve_pred16_t high,
              const PoolWindow& w, int32_t c, int32_t n, int8_t* out) const {
    if (!vector_step_) {
      int16_t sums[pool_sum_mve::kLanes];
      vst1q_s16(sums, sum_low);
      vst1q_s16(sums + 8, sum_high);
      const int32_t lanes = kTail ? n : pool_sum_mve::kLanes;
      for (int32_t j = 0; j < lanes; ++j) out[c + j] = step_.output(sums[j], w, c + j);
      return;
    }
    const int16x8_t value_low = outputs_x8(sum_low);
    const int16x8_t value_high = outputs_x8(sum_high);
    if (kTail) {
      vstrbq_p_s16(out + c, value_low, low);
      vstrbq_p_s16(out + c + 8, value_high, high);
    } else {
      vstrbq_s16(out + c, value_low);
      vstrbq_s16(out + c + 8, value_high);
    }
  }

 private:
  static ChannelQuant rescale_of(const MeanParams& p) {
    ChannelQuant q{};
    q.multiplier = p.multiplier;
    q.shift = p.shift;
    return q;
  }

  int32x4_t outputs_x4(int32x4_t sum) const {
    return offset_and_clamp_mve(
        requantize_mve<Mode::value>(wrapping_add_lanes(sum, bias_), multiplier_, shift_), range_);
  }

  // Even and odd lanes widened to 32 bits (VMOVLB/VMOVLT) and narrowed
  // back into their places (VMOVNB/VMOVNT).
  int16x8_t outputs_x8(int16x8_t sum) const {
    const int32x4_t even = outputs_x4(vmovlbq_s16(sum));
    const int32x4_t odd = outputs_x4(vmovltq_s16(sum));
    return vmovntq_s32(vmovnbq_s32(vuninitializedq_s16(), even), odd);
  }

  MeanStep<Mode> step_;
  int32_t bias_;
  int32x4_t multiplier_, shift_;
  OutputRangeMve range_;
  bool vector_step_;
};
#endif

TINYAOT_LOAD_TIME Status validate(const void* raw, const OperandView* inputs, uint32_t num_inputs,
                                  const OperandView* outputs, uint32_t num_outputs) {
  const Status status = validate_mean(raw, inputs, num_inputs, outputs, num_outputs);
  if (status != Status::kOk) return status;
  return is_mean_planes_case(*static_cast<const MeanParams*>(raw)) ? Status::kOk
                                                                   : Status::kBadParams;
}

// The planes as one window each, 1 x cells.
Pool2dParams plane_window(const MeanParams& p) {
  Pool2dParams pool{};
  pool.batches = p.rank == 3 ? p.dims[0] : 1;
  pool.input_h = pool.output_h = pool.output_w = 1;
  pool.filter_h = pool.stride_h = pool.stride_w = 1;
  pool.input_w = pool.filter_w = p.dims[p.rank - 2];
  pool.channels = p.dims[p.rank - 1];
  pool.act_min = -128;
  pool.act_max = 127;
  return pool;
}

Status run(const KernelArgs& args) {
  const auto& p = *static_cast<const MeanParams*>(args.params);
  const Pool2dParams pool = plane_window(p);
  const auto* input = static_cast<const int8_t*>(args.inputs[0].data);
  auto* output = static_cast<int8_t*>(args.outputs[0].data);
  with_any_rounding(args.rounding, [&](auto mode) {
    pool_sum::average_pool<Sum16Lanes, pool_sum::kSum16BlockWords>(pool, input, output,
                                                                   MeanStep<decltype(mode)>(p));
  });
  return Status::kOk;
}

Status run_mve(const KernelArgs& args) {
#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1)
  const auto& p = *static_cast<const MeanParams*>(args.params);
  const Pool2dParams pool = plane_window(p);
  const auto* input = static_cast<const int8_t*>(args.inputs[0].data);
  auto* output = static_cast<int8_t*>(args.outputs[0].data);
  with_any_rounding(args.rounding, [&](auto mode) {
    pool_sum_mve::average_pool(pool, input, output, MeanVectorStep<decltype(mode)>(p));
  });
  return Status::kOk;
#else
  return run(args);
#endif
}

}  // namespace

const KernelDescriptor kernel_mean_s8_planes = {
    "mean_s8_planes",
    "mean",
    2,
    sizeof(MeanParams),
    1,
    1,
    1,
    IsaClass::kScalar,
    "input:s8[dims] -> output:s8[kept dims]; params=MeanParams{rank,dims[6],reduced_mask,count,"
    "input_zero_point,output_zero_point,multiplier,shift}; case=[batches,]cells<=256,channels",
    run,
    validate,
    nullptr,
};

const KernelDescriptor kernel_mean_s8_planes_mve = {
    "mean_s8_planes_mve",
    "mean",
    2,
    sizeof(MeanParams),
    1,
    1,
    1,
    IsaClass::kMve,
    "input:s8[dims] -> output:s8[kept dims]; params=MeanParams{rank,dims[6],reduced_mask,count,"
    "input_zero_point,output_zero_point,multiplier,shift}; case=[batches,]cells<=256,channels",
    run_mve,
    validate,
    nullptr,
};

}  // namespace tinyaot
