// The requantization every kernel's output step uses (kernels/common/quant.h,
// from the multiplier and shift and from a channel's precomputed
// ChannelQuant, compiled for the core that runs this: SMLAL on Armv7-M and Armv8.1-M,
// 16-bit halves on Armv6-M), against TFLite's definition written apart
// (kernels/common/requantize_reference.h): every shift in [-31, 30] with
// edge accumulators and multipliers, then random operands. The variant
// sweeps compare kernels with the reference kernels, which share quant.h,
// so this is the on-core check of quant.h itself; on an MVE core every
// triple also goes through the vector output step (requantize_mve_check.h),
// whose failures count here. Freestanding, no heap.
#pragma once

#include <stdint.h>

#include "kernels/common/quant.h"
#include "kernels/common/requantize_reference.h"
#include "tests/variant_sweep/requantize_mve_check.h"
#include "tests/variant_sweep/sweep_support.h"

namespace tinyaot::sweep {

struct RequantizeTally {
  uint32_t cases = 0;  // (x, multiplier, shift) triples, each in both modes
  uint32_t failed = 0;
};

class RequantizeCheck {
 public:
  explicit RequantizeCheck(PrintFn print) : print_(print) {}

  RequantizeTally run(uint64_t seed, uint32_t random_cases) {
#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1)
    RequantizeMveCheck vector_check(print_, seed);
    mve_ = &vector_check;
#endif
    const int32_t multipliers[] = {0,       1,         65535,     65536,     (1 << 30) - 1,
                                   1 << 30, INT32_MAX, INT32_MIN, -(1 << 30)};
    for (int shift = -31; shift <= 30; ++shift) {
      for (int32_t m : multipliers) {
        check(INT32_MIN, m, shift);
        check(INT32_MAX, m, shift);
        for (int k = 0; k <= 30; ++k) {
          const int32_t p = int32_t{1} << k;
          const int32_t near[] = {p - 1, p, p + 1, -p - 1, -p, -p + 1};
          for (int32_t x : near) check(x, m, shift);
        }
      }
    }
    Random r(seed ^ name_hash("requantize"));
    for (uint32_t i = 0; i < random_cases; ++i) {
      const int32_t x = r.one_in(2) ? r.uniform(INT32_MIN, INT32_MAX) : r.uniform(-70000, 70000);
      const int32_t m = r.one_in(2) ? r.uniform(0, INT32_MAX) : r.uniform(1 << 30, INT32_MAX);
      const int shift = r.one_in(2) ? r.uniform(-31, 30) : r.uniform(-16, -1);
      check(x, m, shift);
    }
    // Ties of the rounding shift: y = x / 2 (m = 2^30, x even) an odd
    // multiple of 2^(s-1), both signs.
    for (int s = 1; s <= 30; ++s) {
      const int32_t odd = 2 * r.uniform(0, (int32_t{1} << (30 - s)) - 1) + 1;
      const int32_t x = static_cast<int32_t>(static_cast<uint32_t>(odd) << s);
      check(x, int32_t{1} << 30, -s);
      check(-x, int32_t{1} << 30, -s);
    }
#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1)
    vector_check.finish();
    tally_.failed += vector_check.failed();
    mve_ = nullptr;
#endif
    return tally_;
  }

 private:
  void check(int32_t x, int32_t m, int shift) {
    ++tally_.cases;
#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1)
    mve_->add(x, m, shift);
#endif
    const int32_t got_double = requantize<Rounding::kDouble>(x, m, shift);
    const int32_t got_single = requantize<Rounding::kSingle>(x, m, shift);
    const int32_t want_double = reference::tflite_double_rounding(x, m, shift);
    const int32_t want_single = reference::tflite_single_rounding(x, m, shift);
    // And the form with the compiler's precomputed constants, which the
    // weighted kernels' output step takes.
    const ChannelQuant q = make_channel_quant(0, m, shift);
    const bool channel_form_agrees = requantize<Rounding::kDouble>(x, q) == want_double &&
                                     requantize<Rounding::kSingle>(x, q) == want_single;
    if (got_double == want_double && got_single == want_single && channel_form_agrees) return;
    if (++tally_.failed > 10) return;  // the first few tell the story
    Text line;
    line.text("FAIL requantize:").field("x", x).field("multiplier", m).field("shift", shift);
    line.field("double", got_double).field("want", want_double);
    line.field("single", got_single).field("want", want_single);
    print_(line.c_str());
  }

  PrintFn print_;
  RequantizeTally tally_;
#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1)
  RequantizeMveCheck* mve_ = nullptr;
#endif
};

}  // namespace tinyaot::sweep
