// AVERAGE_POOL_2D (windows of at most 256 cells) and MAX_POOL_2D on MVE,
// bit-exact with the references: per output pixel the window clipped to
// the input once (pool_walk.h), then for each block of 16 channels its
// cells walked with the block in vector registers, the last block of 1-15
// channels tail-predicated (VCTP; no scalar epilogue).
//   max:     one VLDRB.8 and one VMAX.S8 per cell and 16 channels; the
//            clamp is VMAX/VMIN, the store one VSTRB.8.
//   average: the sums of pool_sum_mve.h (two widening VLDRB.S16 and two
//            VADD.I16 per cell and 16 channels, exact up to 256 cells),
//            then an output step eight lanes at a time:
//            avg_pool2d_s8_mve: average_divider.h's rounded division:
//            |sum| + count / 2 in 16 unsigned bits (VABS wraps -32768 to
//            32768 as unsigned), widened to 32 bits (VMOVLB/VMOVLT: even
//            and odd lanes), times the reciprocal, >> 24, narrowed back
//            into their lanes (VMOVNB/VMOVNT), the sign restored by XOR
//            and subtract, clamped, stored by a narrowing VSTRB.16;
//            avg_pool2d_s8_onnx_mve: onnx_average.h's step the same way,
//            onnxruntime's chain for the lanes near a tie.
#include "kernels/pooling/average_divider.h"
#include "kernels/pooling/onnx_average.h"
#include "kernels/pooling/pool_cases.h"
#include "kernels/pooling/pool_sum_mve.h"
#include "kernels/pooling/pool_walk.h"
#include "kernels/pooling/pool_window.h"
#include "kernels/pooling/pooling.h"
#include "tinyaot/load_time.h"

#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1)
#include <arm_mve.h>
#endif

namespace tinyaot {
namespace {

#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1)

using pool_sum_mve::average_pool;
using pool_sum_mve::kLanes;

// The lanes of a block of `n` channels (all 16 for a whole block).
inline mve_pred16_t byte_lanes(int32_t n) { return vctp8q(static_cast<uint32_t>(n)); }

// Channels [c, c + 16) of one window (kTail: the `n` < 16 left).
template <bool kTail>
inline void max_block(const PoolWindow& w, int32_t channels, int32_t c, int32_t n,
                      int8x16_t act_min, int8x16_t act_max, int8_t* out) {
  const mve_pred16_t lanes = byte_lanes(kTail ? n : kLanes);
  int8x16_t largest = vdupq_n_s8(-128);
  const int8_t* cell = w.first + c;
  for (int32_t r = 0; r < w.rows; ++r, cell += w.row_skip) {
    for (int32_t k = 0; k < w.cols; ++k, cell += channels)
      largest = vmaxq_s8(largest, kTail ? vldrbq_z_s8(cell, lanes) : vldrbq_s8(cell));
  }
  largest = vminq_s8(vmaxq_s8(largest, act_min), act_max);
  if (kTail) {
    vstrbq_p_s8(out + c, largest, lanes);
  } else {
    vstrbq_s8(out + c, largest);
  }
}

__attribute__((noinline)) void max_pool(const Pool2dParams& p, const int8_t* input,
                                        int8_t* output) {
  const int32_t channels = p.channels;
  const int8x16_t act_min = vdupq_n_s8(static_cast<int8_t>(p.act_min));
  const int8x16_t act_max = vdupq_n_s8(static_cast<int8_t>(p.act_max));
  for_each_pool_window(p, input, output, [&](const PoolWindow& w, int8_t* out) {
    int32_t c = 0;
    for (; c + kLanes <= channels; c += kLanes)
      max_block<false>(w, channels, c, kLanes, act_min, act_max, out);
    if (c < channels) max_block<true>(w, channels, c, channels - c, act_min, act_max, out);
  });
}

// The rounded average of eight 16-bit sums over one count.
inline int16x8_t average_x8(int16x8_t sum, const AverageDivider& divider) {
  const uint16x8_t magnitude =
      vaddq_n_u16(vreinterpretq_u16_s16(vabsq_s16(sum)), static_cast<uint16_t>(divider.half()));
  const uint32_t reciprocal = divider.reciprocal();
  const uint32x4_t even =
      vshrq_n_u32(vmulq_n_u32(vmovlbq_u16(magnitude), reciprocal), kReciprocalShift);
  const uint32x4_t odd =
      vshrq_n_u32(vmulq_n_u32(vmovltq_u16(magnitude), reciprocal), kReciprocalShift);
  const int16x8_t quotient =
      vreinterpretq_s16_u16(vmovntq_u32(vmovnbq_u32(vuninitializedq_u16(), even), odd));
  const int16x8_t sign = vshrq_n_s16(sum, 15);  // -1 where the sum is negative
  return vsubq_s16(veorq_s16(quotient, sign), sign);
}

// TFLite's step on 16 channels: average_x8, clamped, stored.
class TfliteVectorStep {
 public:
  explicit TfliteVectorStep(const Pool2dParams& p)
      : act_min_(vdupq_n_s16(static_cast<int16_t>(p.act_min))),
        act_max_(vdupq_n_s16(static_cast<int16_t>(p.act_max))) {}
  void set_count(int32_t count) { divider_.set_count(count); }

  template <bool kTail>
  void finish(int16x8_t sum_low, int16x8_t sum_high, mve_pred16_t low, mve_pred16_t high,
              const PoolWindow& /*w*/, int32_t c, int32_t /*n*/, int8_t* out) const {
    const int16x8_t average_low =
        vminq_s16(vmaxq_s16(average_x8(sum_low, divider_), act_min_), act_max_);
    const int16x8_t average_high =
        vminq_s16(vmaxq_s16(average_x8(sum_high, divider_), act_min_), act_max_);
    if (kTail) {
      vstrbq_p_s16(out + c, average_low, low);
      vstrbq_p_s16(out + c + 8, average_high, high);
    } else {
      vstrbq_s16(out + c, average_low);
      vstrbq_s16(out + c + 8, average_high);
    }
  }

 private:
  AverageDivider divider_;
  int16x8_t act_min_, act_max_;
};

// onnxruntime's chain from the 16 sums (onnx_average.h): OnnxAverageStep's
// output four 32-bit lanes at a time, the outputs near a tie (if any)
// then overwritten by the chain a channel at a time.
class OnnxVectorStep {
 public:
  OnnxVectorStep(const AvgPool2dOnnxParams& p, int32_t channels)
      : step_(p, channels),
        act_min_(vdupq_n_s16(static_cast<int16_t>(p.pool.act_min))),
        act_max_(vdupq_n_s16(static_cast<int16_t>(p.pool.act_max))) {}
  void set_count(int32_t count) { step_.set_count(count); }

  template <bool kTail>
  void finish(int16x8_t sum_low, int16x8_t sum_high, mve_pred16_t low, mve_pred16_t high,
              const PoolWindow& w, int32_t c, int32_t n, int8_t* out) const {
    const int32_t lanes = kTail ? n : kLanes;
    if (step_.chain_only()) {
      int16_t sums[kLanes];
      vst1q_s16(sums, sum_low);
      vst1q_s16(sums + 8, sum_high);
      for (int32_t j = 0; j < lanes; ++j) out[c + j] = step_.output(sums[j], w, c + j);
      return;
    }
    uint16x8_t near_low, near_high;
    const int16x8_t value_low = outputs_x8(sum_low, &near_low);
    const int16x8_t value_high = outputs_x8(sum_high, &near_high);
    if (kTail) {
      vstrbq_p_s16(out + c, value_low, low);
      vstrbq_p_s16(out + c + 8, value_high, high);
    } else {
      vstrbq_s16(out + c, value_low);
      vstrbq_s16(out + c + 8, value_high);
    }
    if (vmaxvq_u16(0, vorrq_u16(near_low, near_high)) == 0) return;
    uint16_t near[kLanes];
    vst1q_u16(near, near_low);
    vst1q_u16(near + 8, near_high);
    for (int32_t j = 0; j < lanes; ++j)
      if (near[j] != 0) out[c + j] = step_.chain_output(w, c + j);
  }

 private:
  // Four lanes of OnnxAverageStep::output from biased sums R + 128 n:
  // the output before the clamp, and 1 in *near where the chain must run.
  uint32x4_t outputs_x4(uint32x4_t biased, uint32x4_t* near) const {
    const uint32x4_t quotient = vshrq_n_u32(vmulq_n_u32(biased, step_.reciprocal()), 24);
    const uint32x4_t rest = vsubq_u32(biased, vmulq_n_u32(quotient, step_.count()));
    // 2r - n, in [-n, n): the distance from the tie and its side.
    const int32x4_t twice_rest =
        vsubq_n_s32(vreinterpretq_s32_u32(vshlq_n_u32(rest, 1)), step_.count());
    const uint32x4_t distance = vreinterpretq_u32_s32(vabsq_s32(twice_rest));
    // distance 2^15 <= tie_limit (< 2^17 off chain_only), by the sign of
    // distance 2^15 - tie_limit - 1 (|distance| <= 256).
    *near = vshrq_n_u32(
        vsubq_n_u32(vshlq_n_u32(distance, 15), static_cast<uint32_t>(step_.tie_limit()) + 1), 31);
    // + 1 above the tie: the sign bit of -(2r - n).
    const uint32x4_t up = vshrq_n_u32(vreinterpretq_u32_s32(vnegq_s32(twice_rest)), 31);
    return vaddq_u32(quotient, up);
  }

  int16x8_t outputs_x8(int16x8_t sum, uint16x8_t* near) const {
    // R + 128 n in [0, 255 n], n <= 256: within 16 unsigned bits.
    const uint16x8_t biased =
        vaddq_n_u16(vreinterpretq_u16_s16(sum), static_cast<uint16_t>(step_.bias()));
    uint32x4_t near_even, near_odd;
    const uint32x4_t even = outputs_x4(vmovlbq_u16(biased), &near_even);
    const uint32x4_t odd = outputs_x4(vmovltq_u16(biased), &near_odd);
    *near = vmovntq_u32(vmovnbq_u32(vuninitializedq_u16(), near_even), near_odd);
    const int16x8_t quotient =
        vreinterpretq_s16_u16(vmovntq_u32(vmovnbq_u32(vuninitializedq_u16(), even), odd));
    return vminq_s16(vmaxq_s16(vsubq_n_s16(quotient, 128), act_min_), act_max_);
  }

  OnnxAverageStep step_;
  int16x8_t act_min_, act_max_;
};

using TfliteAverage = TfliteVectorStep;
using OnnxAverage = OnnxVectorStep;

#else

// Elsewhere (the host running a program planned for an MVE core): the
// same walk a channel at a time.
inline int8_t clamp(int32_t value, const Pool2dParams& p) {
  return static_cast<int8_t>(value < p.act_min ? p.act_min : value > p.act_max ? p.act_max : value);
}

void max_pool(const Pool2dParams& p, const int8_t* input, int8_t* output) {
  for_each_pool_window(p, input, output, [&](const PoolWindow& w, int8_t* out) {
    for (int32_t c = 0; c < p.channels; ++c) {
      int32_t largest = -128;
      CellWalk walk(w, p.channels, c);
      do {
        largest = *walk.cell() > largest ? *walk.cell() : largest;
      } while (walk.next());
      out[c] = clamp(largest, p);
    }
  });
}

template <class Step>
void average_pool(const Pool2dParams& p, const int8_t* input, int8_t* output, Step step) {
  for_each_pool_window(p, input, output, [&](const PoolWindow& w, int8_t* out) {
    step.set_count(w.count);
    for (int32_t c = 0; c < p.channels; ++c) {
      int32_t sum = 0;
      CellWalk walk(w, p.channels, c);
      do {
        sum += *walk.cell();
      } while (walk.next());
      out[c] = step.output(sum, w, c);
    }
  });
}

using TfliteAverage = TfliteAverageStep<true>;
using OnnxAverage = OnnxAverageStep;

#endif

TINYAOT_LOAD_TIME Status validate_average(const void* raw, const OperandView* inputs,
                                          uint32_t num_inputs, const OperandView* outputs,
                                          uint32_t num_outputs) {
  const Status status = validate_pool2d(raw, inputs, num_inputs, outputs, num_outputs);
  if (status != Status::kOk) return status;
  return is_avg_pool2d_sum16_case(*static_cast<const Pool2dParams*>(raw)) ? Status::kOk
                                                                          : Status::kBadParams;
}

Status run_average(const KernelArgs& args) {
  const auto& p = *static_cast<const Pool2dParams*>(args.params);
  average_pool(p, static_cast<const int8_t*>(args.inputs[0].data),
               static_cast<int8_t*>(args.outputs[0].data), TfliteAverage(p));
  return Status::kOk;
}

TINYAOT_LOAD_TIME Status validate_onnx_average(const void* raw, const OperandView* inputs,
                                               uint32_t num_inputs, const OperandView* outputs,
                                               uint32_t num_outputs) {
  const Status status = validate_avg_pool2d_onnx(raw, inputs, num_inputs, outputs, num_outputs);
  if (status != Status::kOk) return status;
  return is_avg_pool2d_onnx_sum_case(*static_cast<const AvgPool2dOnnxParams*>(raw))
             ? Status::kOk
             : Status::kBadParams;
}

Status run_onnx_average(const KernelArgs& args) {
  const auto& onnx = *static_cast<const AvgPool2dOnnxParams*>(args.params);
  average_pool(onnx.pool, static_cast<const int8_t*>(args.inputs[0].data),
               static_cast<int8_t*>(args.outputs[0].data), OnnxAverage(onnx, onnx.pool.channels));
  return Status::kOk;
}

Status run_max(const KernelArgs& args) {
  max_pool(*static_cast<const Pool2dParams*>(args.params),
           static_cast<const int8_t*>(args.inputs[0].data),
           static_cast<int8_t*>(args.outputs[0].data));
  return Status::kOk;
}

}  // namespace

const KernelDescriptor kernel_avg_pool2d_s8_mve = {
    "avg_pool2d_s8_mve",
    "avg_pool2d",
    1,
    sizeof(Pool2dParams),
    1,
    1,
    1,
    IsaClass::kMve,
    TINYAOT_POOL2D_SIGNATURE
    "; case=window_cells<=" TINYAOT_POOL_TEXT(TINYAOT_POOL_SUM16_MAX_CELLS),
    run_average,
    validate_average,
    nullptr,
};

const KernelDescriptor kernel_max_pool2d_s8_mve = {
    "max_pool2d_s8_mve",
    "max_pool2d",
    1,
    sizeof(Pool2dParams),
    1,
    1,
    1,
    IsaClass::kMve,
    TINYAOT_POOL2D_SIGNATURE,
    run_max,
    validate_pool2d,
    nullptr,
};

// onnxruntime's QLinearAveragePool from the same 16-bit sums
// (onnx_average.h).
const KernelDescriptor kernel_avg_pool2d_s8_onnx_mve = {
    "avg_pool2d_s8_onnx_mve",
    "avg_pool2d_onnx",
    1,
    sizeof(AvgPool2dOnnxParams),
    1,
    1,
    1,
    IsaClass::kMve,
    TINYAOT_AVG_POOL2D_ONNX_SIGNATURE
    "; case=window_cells<=" TINYAOT_POOL_TEXT(TINYAOT_POOL_SUM16_MAX_CELLS),
    run_onnx_average,
    validate_onnx_average,
    nullptr,
};

}  // namespace tinyaot
