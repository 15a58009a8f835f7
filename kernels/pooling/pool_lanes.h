// Four channels of a pooling window as one word: how each core sums and
// takes the maximum of four int8 lanes at once (freestanding).
//
// Sums in 16 bits (windows of at most kSum16MaxCells cells, pool_cases.h):
//   DSP cores: two SXTAB16 per word, channels (0, 2) and (1, 3) as signed
//     int16 halves of two accumulators;
//   others: the word biased to unsigned bytes (x ^ 0x80 = x + 128), bytes
//     (0, 2) and (1, 3) masked into the halves of two accumulators, the
//     bias of 128 per cell taken out at the end. No carry crosses halves:
//     256 cells of at most 255 stay below 65536.
// Sums in 32 bits (any window): one accumulator per channel, each byte
//   sign-extended into it (SXTAB on DSP cores).
// Maximum: DSP cores compare the four lanes at once (SSUB8 sets a GE flag
//   per lane where the cell is at least the maximum, SEL takes those lanes
//   from the cell); others keep one int32 per channel.
#pragma once

#include <stdint.h>

#if defined(__ARM_FEATURE_DSP) && __ARM_FEATURE_DSP
#include <arm_acle.h>
#define TINYAOT_POOL_DSP 1
#endif

namespace tinyaot {

#if defined(TINYAOT_POOL_DSP)

class Sum16Lanes {
 public:
  void add(uint32_t word) {
    even_ = __sxtab16(even_, word);
    // GCC 12 folds no rotation into SXTAB16 (docs/kernels.md).
    __asm__("sxtab16 %0, %0, %1, ror #8" : "+r"(odd_) : "r"(word));
  }
  // The four channel sums of `count` cells.
  void sums(int32_t /*count*/, int32_t out[4]) const {
    out[0] = static_cast<int16_t>(even_);
    out[1] = static_cast<int16_t>(odd_);
    out[2] = static_cast<int32_t>(even_) >> 16;
    out[3] = static_cast<int32_t>(odd_) >> 16;
  }

 private:
  uint32_t even_ = 0, odd_ = 0;
};

class MaxLanes {
 public:
  void add(uint32_t word) {
    uint32_t difference;
    // In place (GCC 12 gave the out-of-place form's result its own
    // register and a MOV back per word).
    __asm__("ssub8 %0, %2, %1\n\tsel %1, %2, %1"
            : "=&r"(difference), "+r"(max_)
            : "r"(word)
            : "cc");
  }
  // The maxima clamped to [lo, hi], lanes of `lo4` and `hi4` (each the
  // bound in all four bytes), as one word.
  uint32_t clamped(uint32_t lo4, uint32_t hi4) const { return lane_min(lane_max(max_, lo4), hi4); }

  static uint32_t lane_max(uint32_t a, uint32_t b) {
    uint32_t difference, result;
    // GE[i] = b[i] - a[i] >= 0: lane i of b where it is the larger.
    __asm__("ssub8 %0, %2, %3\n\tsel %1, %2, %3"
            : "=&r"(difference), "=r"(result)
            : "r"(b), "r"(a)
            : "cc");
    return result;
  }
  static uint32_t lane_min(uint32_t a, uint32_t b) {
    uint32_t difference, result;
    // GE[i] = a[i] - b[i] >= 0: lane i of b where a is not the smaller.
    __asm__("ssub8 %0, %2, %3\n\tsel %1, %3, %2"
            : "=&r"(difference), "=r"(result)
            : "r"(a), "r"(b)
            : "cc");
    return result;
  }

 private:
  uint32_t max_ = 0x80808080u;  // -128 in every lane
};

#else

// A constant the compiler must keep in a register: Armv7-M then masks the
// odd bytes with one AND of the shifted word (GCC 12 otherwise shifts and
// ANDs an immediate, one instruction more per word).
inline uint32_t in_register(uint32_t value) {
  __asm__("" : "+r"(value));
  return value;
}

class Sum16Lanes {
 public:
  void add(uint32_t word) {
    const uint32_t biased = word ^ 0x80808080u;
    even_ += biased & mask_;
    odd_ += (biased >> 8) & mask_;
  }
  void sums(int32_t count, int32_t out[4]) const {
    const int32_t bias = 128 * count;
    out[0] = static_cast<int32_t>(even_ & 0xFFFFu) - bias;
    out[1] = static_cast<int32_t>(odd_ & 0xFFFFu) - bias;
    out[2] = static_cast<int32_t>(even_ >> 16) - bias;
    out[3] = static_cast<int32_t>(odd_ >> 16) - bias;
  }

 private:
  uint32_t even_ = 0, odd_ = 0;
  uint32_t mask_ = in_register(0x00FF00FFu);
};

class MaxLanes {
 public:
  void add(uint32_t word) {
#pragma GCC unroll 4
    for (int j = 0; j < 4; ++j) {
      const int32_t value = static_cast<int8_t>(word >> (8 * j));
      max_[j] = value > max_[j] ? value : max_[j];
    }
  }
  void maxima(int32_t out[4]) const {
    for (int j = 0; j < 4; ++j) out[j] = max_[j];
  }

 private:
  int32_t max_[4] = {-128, -128, -128, -128};
};

#endif

class Sum32Lanes {
 public:
  void add(uint32_t word) {
#if defined(TINYAOT_POOL_DSP)
    // SXTAB with rotations (GCC 12 extracts bytes 1 and 2 with SBFX and
    // adds them: one instruction more each).
    __asm__(
        "sxtab %0, %0, %4\n\t"
        "sxtab %1, %1, %4, ror #8\n\t"
        "sxtab %2, %2, %4, ror #16\n\t"
        "add %3, %3, %4, asr #24"
        : "+r"(sum0_), "+r"(sum1_), "+r"(sum2_), "+r"(sum3_)
        : "r"(word));
#else
    sum0_ += static_cast<int8_t>(word);
    sum1_ += static_cast<int8_t>(word >> 8);
    sum2_ += static_cast<int8_t>(word >> 16);
    sum3_ += static_cast<int32_t>(word) >> 24;
#endif
  }
  void sums(int32_t /*count*/, int32_t out[4]) const {
    out[0] = sum0_;
    out[1] = sum1_;
    out[2] = sum2_;
    out[3] = sum3_;
  }

 private:
  // Four scalars, not an array: GCC 12 keeps an array operand of an asm
  // in memory.
  int32_t sum0_ = 0, sum1_ = 0, sum2_ = 0, sum3_ = 0;
};

}  // namespace tinyaot
