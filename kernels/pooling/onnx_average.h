// AVERAGE_POOL_2D in rounding mode onnx (freestanding): onnxruntime's
// float32 chain (OnnxPoolChain, what avg_pool2d_s8_onnx runs for every
// output) and the same result from an integer window sum
// (OnnxAverageStep, what the fast variants run).
//
// The chain, for one output over n cells q_i (row-major window order),
// scale s and zero point z shared by input and output, t_i = q_i - z:
//   d_i = f32(s * t_i), S = float32 sum of the d_i in order,
//   avg = f32(S / n), w = f32(avg / s), V = f32(w + z),
//   out = clamp(rint(V), act_min, act_max)  (rint: half to even).
// In exact arithmetic V = R / n with R = sum(q_i): s cancels. Bound on
// |V - R/n|, with u = 2^-24, |t_i| <= 255, T = sum(t_i), A = sum |t_i| <=
// 255 n, gamma_k = k u / (1 - k u), and every float32 value involved
// normal or zero (below):
//   d_i = s t_i (1 + a_i), |a_i| <= u, so sum |d_i| <= (1 + u) s A;
//   recursive summation: |S - sum d_i| <= gamma_(n-1) sum |d_i|, hence
//     |S - s T| <= s A (u + (1 + u) gamma_(n-1)) <= s A gamma_n;
//   w = S / (n s) (1 + b1)(1 + b2), |b1|, |b2| <= u, so
//     |w - T/n| <= (A/n) gamma_n (1 + u)^2 + (|T|/n)(2u + u^2)
//               <= 255 gamma_(n+2);
//   V = (w + z)(1 + b3): |V - (w + z)| <= u |w + z| <= u (128 + 1), as
//     T/n + z = R/n is a mean of int8 values (|R/n| <= 128).
// So |V - R/n| <= E = u (255 (n + 2)(1 + 2^-14) + 129) < (n + 4) 2^-16
// for n <= 256 (gamma_(n+2) <= (n + 2) u (1 + 2^-14) there). With R = k n
// + r (0 <= r < n), R/n lies |2r - n| / (2n) from the nearest half
// integer k + 1/2; when that exceeds E, i.e. |2r - n| 2^15 > n (n + 4),
// rint(V) = rint(R/n) = k + (2r > n): clamping to integers and rounding
// commute, so out follows. Other outputs (exact ties 2r = n, which an even
// n makes common, and the few within E of one) run the chain itself.
//
// Normal or zero: every d_i is a multiple of g = ulp(s) = 2^(e_s - 23)
// (|s t_i| >= s when t_i != 0), so is every partial sum (a sum of
// multiples of g is exact below 2^24 g and rounds to a coarser grid
// above), so a nonzero S has |S| >= g >= s 2^-24 and |avg| >= s 2^-32; and
// |S| <= (1 + gamma_n) 255 n s < 2^17 s. Products and quotients are
// therefore normal (additions are exact when subnormal) for s in
// [2^-90, 2^100]; outside that range OnnxAverageStep runs the chain for
// every output. tests: kernels/pooling/onnx_average_test.cpp compares the
// step with the chain exhaustively over window sums and on adversarial
// scales.
#pragma once

#include <stdint.h>

#include "kernels/common/onnx_requantize.h"
#include "kernels/pooling/pool_cases.h"
#include "kernels/pooling/pool_walk.h"
#include "kernels/pooling/pooling.h"
#include "tinyaot/load_time.h"

namespace tinyaot {

// Every onnx average pooling variant's check: the window's, a positive
// finite scale, an int8 zero point.
TINYAOT_LOAD_TIME inline Status validate_avg_pool2d_onnx(const void* raw, const OperandView* inputs,
                                                         uint32_t num_inputs,
                                                         const OperandView* outputs,
                                                         uint32_t num_outputs) {
  const auto& p = *static_cast<const AvgPool2dOnnxParams*>(raw);
  const Status status = validate_avg_pool2d(&p.pool, inputs, num_inputs, outputs, num_outputs);
  if (status != Status::kOk) return status;
  const float scale = float_of_bits(static_cast<uint32_t>(p.scale_bits));
  if (!(scale > 0.0f && scale <= 3.4028234e38f) || p.zero_point < -128 || p.zero_point > 127)
    return Status::kBadParams;
  return Status::kOk;
}

// onnxruntime's QLinearAveragePool chain, term by term.
class OnnxPoolChain {
 public:
  explicit OnnxPoolChain(const AvgPool2dOnnxParams& p)
      : scale_(float_of_bits(static_cast<uint32_t>(p.scale_bits))),
        zero_point_(p.zero_point),
        lo_(static_cast<float>(p.pool.act_min)),
        hi_(static_cast<float>(p.pool.act_max)) {}

  float scale() const { return scale_; }

  // One cell dequantized, d = f32(s * f32(q - z)).
  float term(int32_t q) const {
    return rounded_product(scale_ * static_cast<float>(q - zero_point_));
  }

  // The output from the float32 sum of a window's terms.
  int8_t output(float sum, int32_t count) const {
    const float average = sum / static_cast<float>(count);
    const float shifted = average / scale_ + static_cast<float>(zero_point_);
    const float rounded = round_half_to_even(clamp_float(shifted, lo_, hi_));
    // NaN (an infinite term: scales past 2^100 only) converts to 0, as
    // Arm's VCVT and the soft-float conversion do; C++ leaves it undefined.
    return static_cast<int8_t>(rounded == rounded ? rounded : 0.0f);
  }

  // The chain over one channel of a window, its cells in memory order
  // (row-major, as the chain sums them).
  int8_t window_output(const PoolWindow& w, int32_t channels, int32_t channel) const {
    float sum = 0.0f;
    CellWalk walk(w, channels, channel);
    do {
      sum += term(*walk.cell());
    } while (walk.next());
    return output(sum, w.count);
  }

 private:
  float scale_;
  int32_t zero_point_;
  float lo_, hi_;
};

// Scales for which the header's bound holds (every value normal or zero).
inline bool is_onnx_average_fast_scale(float scale) {
  return scale >= 0x1p-90f && scale <= 0x1p100f;
}

// The windows OnnxAverageStep takes: the bound above and its reciprocal
// division hold up to 256 cells (the 16-bit sums' limit too).
constexpr int32_t kOnnxAverageMaxCount = 256;
static_assert(kSum16MaxCells <= kOnnxAverageMaxCount, "sum16 windows past the step's bound");

// The case of the variants that sum in 16 bits (pool_cases.h).
TINYAOT_LOAD_TIME inline bool is_avg_pool2d_onnx_sum_case(const AvgPool2dOnnxParams& p) {
  return is_avg_pool2d_sum16_case(p.pool);
}

// The chain's output from a window's integer sum R (header comment), the
// chain itself near ties.
class OnnxAverageStep {
 public:
  OnnxAverageStep(const AvgPool2dOnnxParams& p, int32_t channels)
      : chain_(p),
        channels_(channels),
        act_min_(p.pool.act_min),
        act_max_(p.pool.act_max),
        exact_only_(!is_onnx_average_fast_scale(chain_.scale())) {}

  // Per window: count <= kOnnxAverageMaxCount cells.
  void set_count(int32_t count) {
    if (count == count_) return;
    count_ = count;
    bias_ = 128 * count;
    // floor(N / count) = (N * reciprocal_) >> 24 for N <= 255 count: with
    // reciprocal_ * count = 2^24 + e, 0 < e <= count, the error N e / 2^24
    // <= 255 count^2 / 2^24 < 1 (average_divider.h's argument).
    reciprocal_ = (uint32_t{1} << 24) / static_cast<uint32_t>(count) + 1;
    tie_limit_ = exact_only_ ? UINT32_MAX : static_cast<uint32_t>(count * (count + 4));
  }

  // The constants of `output` (the MVE variant applies them eight lanes at
  // a time) and the chain it falls back on.
  int32_t count() const { return count_; }
  int32_t bias() const { return bias_; }
  uint32_t reciprocal() const { return reciprocal_; }
  uint32_t tie_limit() const { return tie_limit_; }
  bool chain_only() const { return exact_only_; }
  int32_t act_min() const { return act_min_; }
  int32_t act_max() const { return act_max_; }
  int8_t chain_output(const PoolWindow& w, int32_t channel) const {
    return chain_.window_output(w, channels_, channel);
  }

  // The output of `channel` of window `w` whose cells sum to `sum`.
  int8_t output(int32_t sum, const PoolWindow& w, int32_t channel) const {
    const uint32_t biased = static_cast<uint32_t>(sum + bias_);  // R + 128 n in [0, 255 n]
    const uint32_t quotient = (biased * reciprocal_) >> 24;
    const int32_t twice_rest =
        2 * static_cast<int32_t>(biased - quotient * static_cast<uint32_t>(count_)) - count_;
    const uint32_t distance =
        static_cast<uint32_t>(twice_rest < 0 ? -twice_rest : twice_rest);  // |2r - n|
    if ((distance << 15) <= tie_limit_) return chain_output(w, channel);
    int32_t value = static_cast<int32_t>(quotient) - 128 + (twice_rest > 0 ? 1 : 0);
    value = value < act_min_ ? act_min_ : value;
    value = value > act_max_ ? act_max_ : value;
    return static_cast<int8_t>(value);
  }

 private:
  OnnxPoolChain chain_;
  int32_t channels_;
  int32_t act_min_, act_max_;
  bool exact_only_;
  int32_t count_ = 0, bias_ = 0;
  uint32_t reciprocal_ = 0, tie_limit_ = 0;
};

}  // namespace tinyaot
