// QUANTIZE's float32 chain without float arithmetic, for cores without an
// FPU (freestanding): the reference computes clamp(rint(clamp(f32(x / s),
// +-1024)) + z) (quantize_float.h; rint half away from zero, or half to
// even in mode onnx), a soft-float division per element on M0.
//
// With x = mx 2^(ex - 150) and s = ms 2^(es - 150) (normal, mx and ms the
// 24-bit significands), |q| = |x / s| = (mx / ms) 2^d, d = ex - es, and
// mx / ms in (1/2, 2):
// - d >= 10: |q| >= 512, so f32(q) too; rint + z leaves int8 whatever z:
//   the output saturates on x's side.
// - d <= -3: |q| < 1/4, so f32(q) <= 1/4: rint gives 0, the output z.
// - else, with the reciprocal r = floor((2^47 - 1) / ms) < 2^24 (so r >
//   2^47 / ms - 1 - 2^-23) formed once per run, W = floor(mx r / 2^(31 -
//   d)) (the shift in [22, 33], mx r < 2^48 as two words) satisfies
//   W <= |q| 2^16 < W + 1 + mx (1 + 2^-23) / 2^(31 - d) <= W + 5.01
//   (mx < 2^24, d <= 9), and |q| < 2^10 makes |f32(q) - q| <= 2^-15: so
//   f32(|q|) 2^16 lies in [W - 2, W + 7.01]. With k = W >> 16 and f = W &
//   0xffff: f <= 0x8000 - 8 puts f32(|q|) in (k - 1/2, k + 1/2), whose
//   rint is k in either mode; f >= 0x8000 + 3 puts it in (k + 1/2, k +
//   3/2): k + 1. Rounding is odd-symmetric in both modes, so the sign of x
//   goes on after. In between (f32(q) may be the tie k + 1/2 itself, where
//   the modes differ) the element takes the chain.
// Zero is 0 steps; NaN, infinities and subnormal inputs, and a subnormal
// scale, take the chain. tests: quantize_estimate_test.cpp.
#pragma once

#include <stdint.h>
#include <string.h>

#include "kernels/common/onnx_requantize.h"
#include "kernels/quantize/quantize.h"

namespace tinyaot {

class QuantizeEstimate {
 public:
  // The outcome of `steps` for an element it cannot decide.
  static constexpr int32_t kUndecided = INT32_MIN;

  explicit QuantizeEstimate(float scale) {
    uint32_t bits;
    memcpy(&bits, &scale, sizeof bits);
    scale_exponent_ = static_cast<int32_t>((bits >> 23) & 0xff);
    const uint32_t significand = (bits & 0x7fffff) | 0x800000u;
    // One 64-bit division per run (a library call on Armv6-M).
    reciprocal_ = static_cast<uint32_t>(((uint64_t{1} << 47) - 1) / significand);
  }

  // rint(clamp(f32(x / s), +-1024)) from x's bits, clamped to [-512, 512]
  // (the same int8 output after + z), or kUndecided.
  int32_t steps(uint32_t x_bits) const {
    const int32_t exponent = static_cast<int32_t>((x_bits >> 23) & 0xff);
    if ((x_bits << 1) == 0) return 0;  // +-0
    if (exponent == 0 || exponent == 0xff || scale_exponent_ == 0) return kUndecided;
    const int32_t d = exponent - scale_exponent_;
    int32_t magnitude;
    if (d >= 10) {
      magnitude = 512;
    } else if (d <= -3) {
      magnitude = 0;
    } else {
      const uint32_t significand = (x_bits & 0x7fffff) | 0x800000u;
      const onnx_requantize_detail::WideProduct n =
          onnx_requantize_detail::multiply_wide(significand, reciprocal_);
      const int shift = 31 - d;  // [22, 33]
      const uint32_t w =
          shift >= 32 ? n.high >> (shift - 32) : (n.low >> shift) | (n.high << (32 - shift));
      const uint32_t fraction = w & 0xffff;
      if (fraction > 0x8000 - 8 && fraction < 0x8000 + 3) return kUndecided;
      magnitude = static_cast<int32_t>((w >> 16) + (fraction >= 0x8000 + 3 ? 1 : 0));
      magnitude = magnitude > 512 ? 512 : magnitude;
    }
    return (x_bits >> 31) != 0 ? -magnitude : magnitude;
  }

 private:
  int32_t scale_exponent_;
  uint32_t reciprocal_;
};

}  // namespace tinyaot
