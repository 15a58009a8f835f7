// The MVE output step (kernels/common/output_step_mve.h) on the core, four
// operand triples a vector, fed by requantize_check.h with its edge and
// random operands: the instruction identities it rests on against
// TFLite's definition (requantize_reference.h) for every input it gets,
// requantize_mve<R> against requantize_fast<R> in both modes, and the whole
// step through memory (ChannelQuant gathers, offset, clamp, predicated
// store of 1 to 4 outputs) against fast_output_step<R>. Compiled only for
// MVE cores; freestanding, no heap.
#pragma once

#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1)

#include <arm_mve.h>
#include <stdint.h>

#include "kernels/common/output_step.h"
#include "kernels/common/output_step_mve.h"
#include "kernels/common/quant.h"
#include "kernels/common/requantize_reference.h"
#include "tests/variant_sweep/sweep_support.h"

namespace tinyaot::sweep {

class RequantizeMveCheck {
 public:
  RequantizeMveCheck(PrintFn print, uint64_t seed)
      : print_(print), random_(seed ^ name_hash("requantize_mve")) {}

  // Queues one triple; every fourth runs the vector checks.
  void add(int32_t x, int32_t m, int shift) {
    x_[count_] = x;
    m_[count_] = m;
    shift_[count_] = shift;
    if (++count_ == 4) flush();
  }

  // Runs a partial batch, its empty lanes copies of the first.
  void finish() {
    if (count_ == 0) return;
    for (int i = count_; i < 4; ++i) {
      x_[i] = x_[0];
      m_[i] = m_[0];
      shift_[i] = shift_[0];
    }
    flush();
  }

  uint32_t failed() const { return failed_; }

 private:
  static int32x4_t lanes_of(const int32_t* v) { return vldrwq_s32(v); }

  void flush() {
    count_ = 0;
    check_identities();
    // Each lane made a fast channel (a right shift in [1, 31], a multiplier
    // >= 0) with the same bits where it was one.
    int32_t m[4], shift[4];
    for (int i = 0; i < 4; ++i) {
      m[i] = m_[i] < 0 ? ~m_[i] : m_[i];
      shift[i] = shift_[i] <= -1 ? shift_[i] : -1 - shift_[i] % 31;
    }
    check_fast<Rounding::kDouble>(m, shift);
    check_fast<Rounding::kSingle>(m, shift);
    check_step<Rounding::kDouble>(m, shift);
    check_step<Rounding::kSingle>(m, shift);
  }

  // VQRDMULH is SaturatingRoundingDoublingHighMul for any operands;
  // VRSHL(VQADD(y, y >> 31), -s) is RoundingDivideByPOT(y, s) for any y
  // and s >= 1; VRSHL(VQDMULH(x, m), -s) is single rounding for m >= 0.
  void check_identities() {
    int32_t s[4], m_nonneg[4], y[4], doubled[4], divided[4], single[4];
    for (int i = 0; i < 4; ++i) {
      s[i] = shift_[i] <= -1 ? -shift_[i] : 1 + shift_[i];  // in [1, 31]
      m_nonneg[i] = m_[i] < 0 ? ~m_[i] : m_[i];
    }
    const int32x4_t x = lanes_of(x_), neg_s = vnegq_s32(lanes_of(s));
    vstrwq_s32(doubled, vqrdmulhq_s32(x, lanes_of(m_)));
    for (int i = 0; i < 4; ++i) y[i] = x_[(i + 1) % 4];  // any int32
    const int32x4_t yv = lanes_of(y);
    vstrwq_s32(divided, vrshlq_s32(vqaddq_s32(yv, vshrq_n_s32(yv, 31)), neg_s));
    vstrwq_s32(single, vrshlq_s32(vqdmulhq_s32(x, lanes_of(m_nonneg)), neg_s));
    for (int i = 0; i < 4; ++i) {
      expect("vqrdmulh", x_[i], m_[i], 0, doubled[i],
             reference::gemmlowp_doubling_high_mul(x_[i], m_[i]));
      expect("rounding_divide", y[i], 0, -s[i], divided[i],
             reference::gemmlowp_rounding_divide_by_pot(y[i], s[i]));
      expect("single_rounding", x_[i], m_nonneg[i], -s[i], single[i],
             reference::tflite_single_rounding(x_[i], m_nonneg[i], -s[i]));
    }
  }

  template <Rounding R>
  void check_fast(const int32_t* m, const int32_t* shift) {
    int32_t got[4];
    vstrwq_s32(got, requantize_mve<R>(lanes_of(x_), lanes_of(m), lanes_of(shift)));
    for (int i = 0; i < 4; ++i) {
      const ChannelQuant q = make_channel_quant(0, m[i], shift[i]);
      expect(R == Rounding::kDouble ? "requantize_mve double" : "requantize_mve single", x_[i],
             m[i], shift[i], got[i], requantize_fast<R>(x_[i], q));
    }
  }

  // The step as a kernel runs it: sums without the bias, the bias from
  // the gathered constants, a random output range, a tail of 1-4 outputs
  // and bytes past it left alone.
  template <Rounding R>
  void check_step(const int32_t* m, const int32_t* shift) {
    ChannelQuant quant[4];
    int32_t acc[4];
    for (int i = 0; i < 4; ++i) {
      const int32_t bias = random_.one_in(4) ? 0 : random_.uniform(INT32_MIN, INT32_MAX);
      quant[i] = make_channel_quant(bias, m[i], shift[i]);
      acc[i] = static_cast<int32_t>(static_cast<uint32_t>(x_[i]) - static_cast<uint32_t>(bias));
    }
    const int32_t lo = random_.uniform(-128, 127);
    const OutputRange range{random_.uniform(-128, 127), lo, random_.uniform(lo, 127)};
    const int32_t outputs = random_.uniform(1, 4);
    const mve_pred16_t lanes = vctp32q(static_cast<uint32_t>(outputs));
    const ChannelQuantLanes q = load_channel_quant_x4(quant, lanes);
    int8_t out[8];
    for (int8_t& byte : out) byte = 0x5a;
    output_step_mve<R>(out + 2, vaddq_s32(lanes_of(acc), q.bias), q, output_range_mve(range),
                       lanes);
    for (int i = 0; i < 8; ++i) {
      const int32_t lane = i - 2;
      const int32_t want =
          lane >= 0 && lane < outputs
              ? fast_output_step<R>(static_cast<uint32_t>(acc[lane]), quant[lane], range)
              : int32_t{0x5a};
      expect(R == Rounding::kDouble ? "output_step_mve double" : "output_step_mve single",
             lane >= 0 && lane < 4 ? x_[lane] : 0, lane >= 0 && lane < 4 ? m[lane] : 0,
             lane >= 0 && lane < 4 ? shift[lane] : 0, out[i], want);
    }
  }

  void expect(const char* what, int32_t x, int32_t m, int32_t shift, int32_t got, int32_t want) {
    if (got == want) return;
    if (++failed_ > 10) return;
    Text line;
    line.text("FAIL ").text(what).text(":").field("x", x).field("multiplier", m);
    line.field("shift", shift).field("got", got).field("want", want);
    print_(line.c_str());
  }

  PrintFn print_;
  Random random_;
  int32_t x_[4] = {}, m_[4] = {}, shift_[4] = {};
  int count_ = 0;
  uint32_t failed_ = 0;
};

}  // namespace tinyaot::sweep

#endif  // __ARM_FEATURE_MVE
