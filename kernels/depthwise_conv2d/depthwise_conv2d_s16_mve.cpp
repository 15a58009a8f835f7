// DEPTHWISE_CONV_2D 16x8, depth multiplier 1, for MVE cores: the window
// clipped once per pixel (depthwise_conv2d_s16_channels.h), eight
// channels a block, four a vector: per tap their inputs and weights
// widened to int32 lanes by the loads (VLDRH.S32, VLDRB.S32), multiplied
// and added (VMUL, VADD: MVE has no lane-wise integer multiply-
// accumulate), the last block's lanes predicated (VCTP32). An int32 lane
// wraps as the reference's int32 sum does; for the int64 sum the lanes,
// each product within 2^22, are added into int64 sums every
// kWideFlushTaps taps of a window that has more, before they could
// overflow. Bit-exact with depthwise_conv2d_s16_ref; on every other build
// the scalar sums.
#include "kernels/depthwise_conv2d/depthwise_conv2d_s16_channels.h"

#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1)
#include <arm_mve.h>
#endif

namespace tinyaot {
namespace {

// Eight channels a block: two vectors of four int32 lanes.
constexpr int kBlockChannels = 8;

#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1)
constexpr int kLanes = 4;
// |int16 x int8| <= 2^22: 2^8 such products stay below 2^31.
constexpr int32_t kWideFlushTaps = 256;

template <typename Acc>
inline void add_lanes(int32x4_t low, int32x4_t high, Acc* acc) {
  int32_t values[kBlockChannels];
  vst1q_s32(values, low);
  vst1q_s32(values + kLanes, high);
  for (int c = 0; c < kBlockChannels; ++c) acc[c] = accumulate(acc[c], values[c], 1);
}

// The sums of `count` channels from `first` on into acc (zeroed). The
// int64 sums of a window of more than kWideFlushTaps taps take the lanes
// every kWideFlushTaps taps; any other window's lanes hold the whole sum.
template <typename Acc>
inline void vector_sums(const DepthwiseConv2dParams& p, const int8_t* filter,
                        const DepthwiseTaps& w, int32_t first, int32_t count, Acc* acc) {
  const mve_pred16_t low_lanes = vctp32q(static_cast<uint32_t>(count));
  const mve_pred16_t high_lanes =
      vctp32q(static_cast<uint32_t>(count > kLanes ? count - kLanes : 0));
  int32x4_t low = vdupq_n_s32(0), high = vdupq_n_s32(0);
  const auto multiply = [&](const int16_t* in, const int8_t* weights) {
    low = vaddq_s32(low, vmulq_s32(vldrhq_z_s32(in, low_lanes), vldrbq_z_s32(weights, low_lanes)));
    high = vaddq_s32(high, vmulq_s32(vldrhq_z_s32(in + kLanes, high_lanes),
                                     vldrbq_z_s32(weights + kLanes, high_lanes)));
  };
  if (sizeof(Acc) == 8 && w.rows.count * w.columns.count > kWideFlushTaps) {
    int32_t taps = 0;
    for_each_depthwise_s16_tap(p, filter, w, first, [&](const int16_t* in, const int8_t* weights) {
      multiply(in, weights);
      if (++taps == kWideFlushTaps) {
        add_lanes(low, high, acc);
        low = high = vdupq_n_s32(0);
        taps = 0;
      }
    });
  } else {
    for_each_depthwise_s16_tap(p, filter, w, first, multiply);
  }
  add_lanes(low, high, acc);
}
#endif

template <Rounding R, typename Acc>
TINYAOT_MODE_LOOP void convolve(const DepthwiseConv2dParams& p, const Int16x8Operands& o) {
  for_each_depthwise_s16_block<kBlockChannels>(
      p, o.input, o.output,
      [&](const DepthwiseTaps& taps, int32_t first, int32_t count, int16_t* out) {
        Acc acc[kBlockChannels] = {};
#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1)
        vector_sums(p, o.filter, taps, first, count, acc);
#else
        for (int32_t c = 0; c < count; ++c)
          depthwise_s16_sums<Acc, 1>(p, o.filter, taps, first + c, acc + c);
#endif
        for (int32_t c = 0; c < count; ++c)
          out[first + c] = int16x8_output_step<R>(acc[c], first + c, o, p);
      });
}

Status run(const KernelArgs& args) {
  const auto& p = *static_cast<const DepthwiseConv2dParams*>(args.params);
  const Int16x8Operands o = int16x8_operands(args);
  with_int16x8_accumulator(args, o, [&](auto mode, auto accumulator) {
    convolve<decltype(mode)::value, typename decltype(accumulator)::type>(p, o);
  });
  return Status::kOk;
}

}  // namespace

const KernelDescriptor kernel_depthwise_conv2d_s16_mve = {
    "depthwise_conv2d_s16_mve",
    "depthwise_conv2d_s16",
    1,
    sizeof(DepthwiseConv2dParams),
    3,
    4,
    1,
    IsaClass::kMve,
    TINYAOT_DEPTHWISE_CONV2D_S16_SIGNATURE,
    run,
    validate_depthwise_conv2d_s16_fast,
    nullptr,
};

}  // namespace tinyaot
