// The MVE LSTM variant's gate finish (freestanding, header-only): what
// lstm_step.h's finish_gate does, four units a vector. Per lane the bias,
// both requantizations (requantize_mve: requantize's usual case, a right
// shift, bit for bit), the int16 saturations and the saturating add, then
// sigmoid or tanh from TFLite's table (sigmoid_s16.h) by two gathers and
// the interpolation in 32-bit lanes; a tail of fewer than four units
// predicated. Gates with another rescale, and builds without MVE, take the
// scalar loop.
#pragma once

#include <stdint.h>

#include "kernels/lstm/lstm_step.h"

#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1)
#include <arm_mve.h>

#include "kernels/common/output_step_mve.h"
#endif

namespace tinyaot {
namespace lstm {

#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1)

inline int32x4_t saturate_i16_mve(int32x4_t x) {
  return vmaxq_s32(vminq_s32(x, vdupq_n_s32(32767)), vdupq_n_s32(-32768));
}

// sigmoid16_of_scaled and tanh16_of_scaled per lane: kBits fractional
// bits of the scaled input (9: sigmoid, 8: tanh); the result's low 16
// bits are the function's.
template <bool kSigmoid>
inline int32x4_t of_scaled_mve(int32x4_t scaled) {
  constexpr int kBits = kSigmoid ? 9 : 8;
  const uint32x4_t magnitude = vreinterpretq_u32_s32(vabsq_s32(scaled));
  const uint32x4_t index = vshrq_n_u32(magnitude, kBits);
  const mve_pred16_t beyond = vcmpcsq_n_u32(index, 255);
  const uint32x4_t at = vminq_u32(index, vdupq_n_u32(254));
  const uint32x4_t low = vldrhq_gather_shifted_offset_u32(kSigmoidTableQ16, at);
  const uint32x4_t high = vldrhq_gather_shifted_offset_u32(kSigmoidTableQ16, vaddq_n_u32(at, 1));
  const uint32x4_t fraction = vandq_u32(magnitude, vdupq_n_u32((1u << kBits) - 1));
  uint32x4_t result = vaddq_u32(vshlq_n_u32(low, kBits), vmulq_u32(fraction, vsubq_u32(high, low)));
  const mve_pred16_t negative = vcmpltq_n_s32(scaled, 0);
  if constexpr (kSigmoid) {
    result = vpselq_u32(vdupq_n_u32(uint32_t{0x7FFF} << 10), result, beyond);
    const uint32x4_t up = vaddq_n_u32(result, 1u << 9);
    const uint32x4_t down = vsubq_u32(vdupq_n_u32((1u << 25) + (1u << 9) - 1), result);
    return vreinterpretq_s32_u32(vshrq_n_u32(vpselq_u32(down, up, negative), 10));
  } else {
    result = vpselq_u32(vdupq_n_u32(uint32_t{0xFFFF} << 8), result, beyond);
    const int32x4_t value = vreinterpretq_s32_u32(result);
    const int32x4_t up = vaddq_n_s32(value, -(1 << 23) + (1 << 7));
    const int32x4_t down = vsubq_s32(vdupq_n_s32((1 << 23) + (1 << 7) - 1), value);
    return vshrq_n_s32(vpselq_s32(down, up, negative), 8);
  }
}

static_assert(kGateActivationScale.right_shift == 0, "the gates' input scaling is a multiply");

template <bool kSigmoid>
inline int32x4_t activate_mve(int32x4_t x) {
  return of_scaled_mve<kSigmoid>(vmulq_n_s32(x, kGateActivationScale.multiplier));
}

// The low 16 bits of each lane as int16, sign-extended (the scalar
// functions' narrowing).
inline int32x4_t low_i16_mve(int32x4_t x) { return vmovlbq_s16(vreinterpretq_s16_s32(x)); }

template <Rounding R, bool kSigmoid>
void finish_gate_mve(GateSums sums, int32_t units, const GateOperands& operands, int16_t* gate) {
  const LstmGateScales& scales = operands.scales;
  const int32x4_t m_in = vdupq_n_s32(scales.input.multiplier);
  const int32x4_t shift_in = vdupq_n_s32(scales.input.shift);
  const int32x4_t m_rec = vdupq_n_s32(scales.recurrent.multiplier);
  const int32x4_t shift_rec = vdupq_n_s32(scales.recurrent.shift);
  for (int32_t u = 0; u < units; u += 4) {
    const mve_pred16_t lanes = vctp32q(static_cast<uint32_t>(units - u));
    const int32x4_t x_in =
        vaddq_s32(vldrwq_z_s32(reinterpret_cast<const int32_t*>(sums.input) + u, lanes),
                  vldrwq_z_s32(operands.input_bias + u, lanes));
    const int32x4_t x_rec =
        vaddq_s32(vldrwq_z_s32(reinterpret_cast<const int32_t*>(sums.recurrent) + u, lanes),
                  vldrwq_z_s32(operands.recurrent_bias + u, lanes));
    const int32x4_t in = saturate_i16_mve(requantize_mve<R>(x_in, m_in, shift_in));
    const int32x4_t rec = saturate_i16_mve(requantize_mve<R>(x_rec, m_rec, shift_rec));
    vstrhq_p_s32(gate + u, activate_mve<kSigmoid>(saturate_i16_mve(vaddq_s32(in, rec))), lanes);
  }
}

// update_state four units a vector, for rescales in requantize's usual
// case.
template <Rounding R>
void update_state_mve(const UnidirectionalLstmParams& p, const Gates& g, int16_t* cell,
                      int8_t* hidden, int8_t* output) {
  const int32x4_t m_kept = vdupq_n_s32(p.forget_times_cell.multiplier);
  const int32x4_t shift_kept = vdupq_n_s32(p.forget_times_cell.shift);
  const int32x4_t m_added = vdupq_n_s32(p.input_times_cell.multiplier);
  const int32x4_t shift_added = vdupq_n_s32(p.input_times_cell.shift);
  const int32x4_t m_hidden = vdupq_n_s32(p.hidden.multiplier);
  const int32x4_t shift_hidden = vdupq_n_s32(p.hidden.shift);
  const int32x4_t clip_low = vdupq_n_s32(p.clip_cell ? -p.cell_clip : -32768);
  const int32x4_t clip_high = vdupq_n_s32(p.clip_cell ? p.cell_clip : 32767);
  const int32_t right_shift = p.cell_tanh_right_shift;
  const int32x4_t tanh_round = vdupq_n_s32(right_shift > 0 ? int32_t{1} << (right_shift - 1) : 0);
  const int32x4_t tanh_shift = vdupq_n_s32(-right_shift);
  for (int32_t u = 0; u < p.units; u += 4) {
    const mve_pred16_t lanes = vctp32q(static_cast<uint32_t>(p.units - u));
    const int32x4_t kept = saturate_i16_mve(requantize_mve<R>(
        vmulq_s32(vldrhq_z_s32(g.forget + u, lanes), vldrhq_z_s32(cell + u, lanes)), m_kept,
        shift_kept));
    const int32x4_t added = saturate_i16_mve(requantize_mve<R>(
        vmulq_s32(vldrhq_z_s32(g.input + u, lanes), vldrhq_z_s32(g.cell + u, lanes)), m_added,
        shift_added));
    const int32x4_t updated =
        vminq_s32(vmaxq_s32(saturate_i16_mve(vaddq_s32(kept, added)), clip_low), clip_high);
    vstrhq_p_s32(cell + u, updated, lanes);
    const int32x4_t scaled =
        vshlq_s32(vaddq_s32(vmulq_n_s32(updated, p.cell_tanh_multiplier), tanh_round), tanh_shift);
    const int32x4_t squashed = low_i16_mve(of_scaled_mve<false>(scaled));
    const int32x4_t h =
        vaddq_n_s32(requantize_mve<R>(vmulq_s32(squashed, vldrhq_z_s32(g.output + u, lanes)),
                                      m_hidden, shift_hidden),
                    p.hidden_zero_point);
    const int32x4_t clamped = vmaxq_s32(vminq_s32(h, vdupq_n_s32(127)), vdupq_n_s32(-128));
    vstrbq_p_s32(hidden + u, clamped, lanes);
    vstrbq_p_s32(output + u, clamped, lanes);
  }
}

struct MveFinish {
  template <Rounding R>
  static void state(const UnidirectionalLstmParams& p, const Gates& g, int16_t* cell,
                    int8_t* hidden, int8_t* output) {
    if constexpr (R != Rounding::kOnnx) {
      if (is_right_shift(p.forget_times_cell) && is_right_shift(p.input_times_cell) &&
          is_right_shift(p.hidden)) {
        update_state_mve<R>(p, g, cell, hidden, output);
        return;
      }
    }
    update_state<R>(p, g, cell, hidden, output);
  }

  template <Rounding R, bool kSigmoid>
  static void gate(GateSums sums, int32_t units, const GateOperands& operands, int16_t* out) {
    if constexpr (R != Rounding::kOnnx) {
      if (is_right_shift(operands.scales.input) && is_right_shift(operands.scales.recurrent)) {
        finish_gate_mve<R, kSigmoid>(sums, units, operands, out);
        return;
      }
    }
    finish_gate<R, kSigmoid>(sums, units, operands, out);
  }
};

#else

using MveFinish = ScalarFinish;

#endif

}  // namespace lstm
}  // namespace tinyaot
