// TFLite's rounded average, sum / count with ties away from zero, without
// a division per channel (freestanding).
//
// The reference computes (sum +- count/2) / count, truncating; that is
// sign(sum) * floor(n / count) with n = |sum| + floor(count / 2). For
// count <= kReciprocalMaxCount the quotient is (n * m) >> 24 with
// m = floor(2^24 / count) + 1, exactly: with m * count = 2^24 + e,
// 0 < e <= count, and n = q * count + r,
//   n * m / 2^24 = q + (r + n * e / 2^24) / count,
// and n * e <= (128 * count + count / 2) * count < 2^24 keeps the bracket
// below count (r <= count - 1), while n * m < 128.5 * 2^24 + 128.5 * count
// fits in 32 unsigned bits. Larger counts divide.
#pragma once

#include <stdint.h>

#include "kernels/pooling/pool_walk.h"

namespace tinyaot {

constexpr int32_t kReciprocalShift = 24;
constexpr int32_t kReciprocalMaxCount = 256;

// The reference's expression, for counts past the reciprocal's range.
inline int32_t divide_rounded(int32_t sum, int32_t count) {
  return sum > 0 ? (sum + count / 2) / count : (sum - count / 2) / count;
}

class AverageDivider {
 public:
  // One division per distinct count: windows share theirs except at the
  // input's edges.
  void set_count(int32_t count) {
    if (count == count_) return;
    count_ = count;
    half_ = count / 2;
    reciprocal_ =
        count <= kReciprocalMaxCount ? (uint32_t{1} << kReciprocalShift) / uint32_t(count) + 1 : 0;
  }

  // The rounded average of `sum` over the count, for kSmallCounts only
  // counts within the reciprocal's range.
  // The constants of `average` for counts within the reciprocal's range
  // (the MVE variant applies them four lanes at a time).
  int32_t half() const { return half_; }
  uint32_t reciprocal() const { return reciprocal_; }

  template <bool kSmallCounts>
  int32_t average(int32_t sum) const {
    if (!kSmallCounts && reciprocal_ == 0) return divide_rounded(sum, count_);
    const uint32_t magnitude = uint32_t(sum < 0 ? -sum : sum) + uint32_t(half_);
    const int32_t quotient = int32_t((magnitude * reciprocal_) >> kReciprocalShift);
    return sum > 0 ? quotient : -quotient;
  }

 private:
  int32_t count_ = 0, half_ = 0;
  uint32_t reciprocal_ = 0;
};

// TFLite's output step: the rounded average above, clamped
// to the activation range. (With the range all of int8, as in every model
// we know, the clamp changes nothing; a loop without it would run a few
// instructions less per output, a second copy of the whole pooling loop,
// which costs more flash than it saves time: the outputs are few beside
// the cells summed.) kSmallCounts: only counts within the reciprocal's
// range.
template <bool kSmallCounts>
class TfliteAverageStep {
 public:
  explicit TfliteAverageStep(const Pool2dParams& p) : act_min_(p.act_min), act_max_(p.act_max) {}
  void set_count(int32_t count) { divider_.set_count(count); }
  int8_t output(int32_t sum, const PoolWindow& /*w*/, int32_t /*channel*/) const {
    int32_t value = divider_.average<kSmallCounts>(sum);
    value = value < act_min_ ? act_min_ : value;
    value = value > act_max_ ? act_max_ : value;
    return static_cast<int8_t>(value);
  }

 private:
  AverageDivider divider_;
  int32_t act_min_, act_max_;
};

}  // namespace tinyaot
