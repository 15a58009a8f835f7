// The output step of the MVE kernels, four int32 lanes per instruction
// (freestanding, header-only; compiled only for MVE cores). Bit-exact with
// requantize_fast<R> (quant.h) for the channels the fast variants take
// (has_fast_rescale: a right shift s >= 1, a multiplier >= 0).
//
// API, for lanes that each hold one output's int32 accumulator with its
// channel's bias already added:
//   ChannelQuantLanes q = load_channel_quant_x4(quant + o, lanes);
//       bias, multiplier and shift of channels o..o+3 (lanes outside
//       `lanes` read nothing and hold 0; without `lanes`: all four);
//   int32x4_t v = requantize_mve<R>(acc, q.multiplier, q.shift);
//       requantize_fast<R> per lane; `shift` is ChannelQuant::shift as it
//       is stored (negative = right);
//   const OutputRangeMve range = output_range_mve(output_range(params));
//       (before the loop: the offset and both bounds);
//   store_output_mve(out, v, range, lanes);
//       + output offset, clamp to the activation range, store the low
//       byte of each lane in `lanes` at out[0..3] (vctp32q(count) for a
//       tail of count < 4 outputs; no scalar epilogue);
//       offset_and_clamp_mve(v, range) is its arithmetic alone (for an
//       unpredicated vstrbq_s32, or a narrowing of 16 lanes).
//   output_step_mve<R>(out, acc, q, range, lanes) does the last two.
//
// Why the instructions give TFLite's bits (proved on the core by
// tests/variant_sweep/requantize_check.h, every lane against quant.h and
// against TFLite's definition, ties and INT32 extremes included):
// - VQRDMULH.S32 is sat((2ab + 2^31) >> 32) = floor((ab + 2^30) / 2^31),
//   saturated only for a = b = INT32_MIN: gemmlowp's
//   SaturatingRoundingDoublingHighMul for every input (quant.h shows that
//   its sign-dependent nudge is this floor).
// - VRSHL.S32 by -s (s >= 1) is floor((y + 2^(s-1)) / 2^s), ties up,
//   computed without overflow. Ties away from zero (RoundingDivideByPOT) is the same
//   of y - [y < 0]: VSHR #31 gives -[y < 0], VQADD adds it (saturating at
//   INT32_MIN, which is a multiple of 2^s and rounds the same either way).
// - Single rounding, (x*m + 2^(30+s)) >> (31+s), nests as
//   floor((floor(x*m / 2^31) + 2^(s-1)) / 2^s): VQDMULH.S32 is floor(2xm /
//   2^32) (it saturates only for x = m = INT32_MIN, and m >= 0), then the
//   same VRSHL.
// So double rounding costs four instructions per four outputs, single two.
#pragma once

#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1)

#include <arm_mve.h>
#include <stddef.h>
#include <stdint.h>

#include "kernels/common/output_step.h"
#include "kernels/common/quant.h"

namespace tinyaot {

// Four sums kept in core registers (VMLADAV's scalar accumulators) as one
// vector for the step: two VMOVs of two core registers each (GCC 12 sets
// one lane per instruction).
inline int32x4_t lanes_of_sums(int32_t s0, int32_t s1, int32_t s2, int32_t s3) {
  int32x4_t v;
  __asm__("vmov %q0[2], %q0[0], %1, %3\n\tvmov %q0[3], %q0[1], %2, %4"
          : "=w"(v)
          : "r"(s0), "r"(s1), "r"(s2), "r"(s3));
  return v;
}

// Mode onnx (onnx_requantize.h, `shift` unused): VCVT.F32.S32 rounds to
// nearest even in the FPSCR's default mode, as the scalar VCVT; VMUL.F32;
// VCVTN.S32.F32 rounds to nearest even whatever the FPSCR says, and
// saturates; then the step's clamp. Flushing subnormals (FPSCR.FZ) changes
// nothing: a product below 2^-126 rounds to 0 either way. Without MVE's
// floating point, lane by lane through the scalar step.
template <Rounding R>
inline int32x4_t requantize_mve(int32x4_t acc, int32x4_t multiplier, int32x4_t shift) {
  if constexpr (R == Rounding::kOnnx) {
    (void)shift;
#if (__ARM_FEATURE_MVE & 2)
    const float32x4_t product = vmulq_f32(vcvtq_f32_s32(acc), vreinterpretq_f32_s32(multiplier));
    return vminq_s32(vmaxq_s32(vcvtnq_s32_f32(product), vdupq_n_s32(kOnnxStepMin)),
                     vdupq_n_s32(kOnnxStepMax));
#else
    int32x4_t result = acc;
    result = vsetq_lane_s32(requantize_onnx(vgetq_lane_s32(acc, 0), vgetq_lane_s32(multiplier, 0)),
                            result, 0);
    result = vsetq_lane_s32(requantize_onnx(vgetq_lane_s32(acc, 1), vgetq_lane_s32(multiplier, 1)),
                            result, 1);
    result = vsetq_lane_s32(requantize_onnx(vgetq_lane_s32(acc, 2), vgetq_lane_s32(multiplier, 2)),
                            result, 2);
    return vsetq_lane_s32(requantize_onnx(vgetq_lane_s32(acc, 3), vgetq_lane_s32(multiplier, 3)),
                          result, 3);
#endif
  } else if constexpr (R == Rounding::kSingle) {
    return vrshlq_s32(vqdmulhq_s32(acc, multiplier), shift);
  } else {
    const int32x4_t y = vqrdmulhq_s32(acc, multiplier);
    return vrshlq_s32(vqaddq_s32(y, vshrq_n_s32(y, 31)), shift);
  }
}

// Four consecutive channels' constants, one channel a lane.
struct ChannelQuantLanes {
  int32x4_t bias, multiplier, shift;
};

// Byte offsets of channels 0..3 from the first: gathers read the members
// where the struct puts them, whatever its size.
inline uint32x4_t channel_quant_offsets() {
  constexpr uint32_t kStride = sizeof(ChannelQuant);
  return vmulq_n_u32(vidupq_n_u32(0, 1), kStride);
}

inline int32x4_t gather_member(const ChannelQuant* q, size_t member, uint32x4_t offsets,
                               mve_pred16_t lanes) {
  const auto* base = reinterpret_cast<const int32_t*>(reinterpret_cast<const char*>(q) + member);
  return vldrwq_gather_offset_z_s32(base, offsets, lanes);
}

inline ChannelQuantLanes load_channel_quant_x4(const ChannelQuant* q, mve_pred16_t lanes) {
  const uint32x4_t offsets = channel_quant_offsets();
  return {gather_member(q, offsetof(ChannelQuant, bias), offsets, lanes),
          gather_member(q, offsetof(ChannelQuant, multiplier), offsets, lanes),
          gather_member(q, offsetof(ChannelQuant, shift), offsets, lanes)};
}

// Four whole channels: the gathers unpredicated.
inline int32x4_t gather_member(const ChannelQuant* q, size_t member, uint32x4_t offsets) {
  const auto* base = reinterpret_cast<const int32_t*>(reinterpret_cast<const char*>(q) + member);
  return vldrwq_gather_offset_s32(base, offsets);
}

inline ChannelQuantLanes load_channel_quant_x4(const ChannelQuant* q) {
  const uint32x4_t offsets = channel_quant_offsets();
  return {gather_member(q, offsetof(ChannelQuant, bias), offsets),
          gather_member(q, offsetof(ChannelQuant, multiplier), offsets),
          gather_member(q, offsetof(ChannelQuant, shift), offsets)};
}

// The output offset (added from a core register) and the activation range
// as vectors, made once before a kernel's loop.
struct OutputRangeMve {
  int32_t output_offset;
  int32x4_t act_min, act_max;
};

inline OutputRangeMve output_range_mve(const OutputRange& r) {
  return {r.output_offset, vdupq_n_s32(r.act_min), vdupq_n_s32(r.act_max)};
}

// Lane-wise int32 addition that wraps, as VADD.I32 does and as the scalar
// kernels' wrapping_add (fixed_point.h) does: the sums and biases of a
// program the loader accepts may exceed int32 together, and a signed
// vector + is undefined there (UBSan traps it on the core). Unsigned lanes
// give the same VADD.
inline int32x4_t wrapping_add_lanes(int32x4_t a, int32x4_t b) {
  return vreinterpretq_s32_u32(vaddq_u32(vreinterpretq_u32_s32(a), vreinterpretq_u32_s32(b)));
}
inline int32x4_t wrapping_add_lanes(int32x4_t a, int32_t b) {
  return vreinterpretq_s32_u32(vaddq_n_u32(vreinterpretq_u32_s32(a), static_cast<uint32_t>(b)));
}

// + output offset (VADD wraps like wrapping_add), then TFLite's clamp (max,
// then min): values within the activation range, itself within int8
// (checked at load).
inline int32x4_t offset_and_clamp_mve(int32x4_t value, const OutputRangeMve& r) {
  return vminq_s32(vmaxq_s32(wrapping_add_lanes(value, r.output_offset), r.act_min), r.act_max);
}

// The same, each lane in `lanes` stored as a byte at out[0..3]: VSTRB's
// truncation to the low byte is the narrowing.
inline void store_output_mve(int8_t* out, int32x4_t value, const OutputRangeMve& r,
                             mve_pred16_t lanes) {
  vstrbq_p_s32(out, offset_and_clamp_mve(value, r), lanes);
}

template <Rounding R>
inline void output_step_mve(int8_t* out, int32x4_t biased_acc, const ChannelQuantLanes& q,
                            const OutputRangeMve& r, mve_pred16_t lanes) {
  store_output_mve(out, requantize_mve<R>(biased_acc, q.multiplier, q.shift), r, lanes);
}

}  // namespace tinyaot

#endif  // __ARM_FEATURE_MVE
