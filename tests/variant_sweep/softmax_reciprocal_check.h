// On MVE cores: softmax_s8_mve's reciprocal in vector lanes
// (softmax_mve_reciprocal.h) against fixed_point::reciprocal, on every
// positive Q12 sum the variant can pass it (exponent at most 31: below
// 2^28) near each power of two, and on random ones. The sweep's outputs
// rarely show a reciprocal one step off (an output step in 256 must round
// differently), so the firmware checks it alone.
#pragma once

#include <stdint.h>

#include "kernels/common/fixed_point.h"
#include "kernels/softmax/softmax.h"
#include "kernels/softmax/softmax_mve_reciprocal.h"
#include "tests/variant_sweep/sweep_support.h"

#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1)

namespace tinyaot::sweep {

struct SoftmaxReciprocalTally {
  uint32_t cases = 0, failed = 0;
  int32_t first_failing_sum = 0;
};

inline void check_softmax_reciprocal_at(int32_t sum, SoftmaxReciprocalTally* tally) {
  int num_bits_over_unit = 0;
  const int32_t expected =
      fixed_point::reciprocal(sum, kSoftmaxSumIntegerBits, &num_bits_over_unit);
  const int32_t got =
      softmax_reciprocal_mve(sum, fixed_point::count_leading_zeros(static_cast<uint32_t>(sum)));
  ++tally->cases;
  if (got != expected && tally->failed++ == 0) tally->first_failing_sum = sum;
}

inline SoftmaxReciprocalTally check_softmax_reciprocal(uint64_t seed, uint32_t random_sums) {
  SoftmaxReciprocalTally tally;
  for (int bit = 0; bit < 28; ++bit) {
    const int32_t power = int32_t{1} << bit;
    for (int32_t d = -64; d <= 64; ++d) {
      const int64_t sum = int64_t{power} + d;
      if (sum >= 1 && sum < (int64_t{1} << 28)) check_softmax_reciprocal_at(int32_t(sum), &tally);
    }
  }
  Random r(seed);
  for (uint32_t i = 0; i < random_sums; ++i)
    check_softmax_reciprocal_at(r.uniform(1, (int32_t{1} << 28) - 1), &tally);
  return tally;
}

}  // namespace tinyaot::sweep

#endif
