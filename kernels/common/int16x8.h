// What the int16x8 variants of the weighted operators share (int16
// activations, int8 weights; freestanding, header-only): their operands,
// the output step of each accumulator width and the checks of their
// validate functions.
//
// TFLite Micro accumulates an int16x8 operator in the bias's type: with an
// int32 bias (or none) in int32, rescaled by the usual
// MultiplyByQuantizedMultiplier of the program's rounding mode; with an
// int64 bias in int64, rescaled by its int64 overload, which rounds the
// multiplier to 16 bits and shifts once, the same in both rounding modes.
// The variants take the int32 bias in the ChannelQuant operand and an int64
// one as an optional fourth operand, whose presence selects the int64 path.
#pragma once

#include <stdint.h>

#include "kernels/common/output_step.h"
#include "kernels/common/quant.h"
#include "kernels/common/validate.h"
#include "tinyaot/kernel_abi.h"
#include "tinyaot/load_time.h"

namespace tinyaot {

struct Int16x8Operands {
  const int16_t* input;
  const int8_t* filter;
  const ChannelQuant* quant;
  const int64_t* wide_bias;  // nullptr: int32 accumulation, the bias in `quant`
  int16_t* output;
};

inline Int16x8Operands int16x8_operands(const KernelArgs& args) {
  return {static_cast<const int16_t*>(args.inputs[0].data),
          static_cast<const int8_t*>(args.inputs[1].data),
          static_cast<const ChannelQuant*>(args.inputs[2].data),
          args.num_inputs > 3 ? static_cast<const int64_t*>(args.inputs[3].data) : nullptr,
          static_cast<int16_t*>(args.outputs[0].data)};
}

// TFLite's MultiplyByQuantizedMultiplier(int64_t x, ...): the multiplier
// rounded to its 16 high bits (saturating at 0x7FFF), one rounding shift by
// 15 - shift. Needs a multiplier >= 0 and shift in [-31, 7] (validate). x
// is held to +-2^47 first, where the product cannot overflow: int16 x int8
// sums of fewer than 2^24 products plus a bias within 2^46 (validate) never
// reach it, so only a program no converter writes (a window of more taps)
// sees the bound, where TFLite's own arithmetic would overflow.
constexpr int64_t kWideSumBound = int64_t{1} << 47;
constexpr int64_t kWideBiasBound = int64_t{1} << 46;

inline int32_t requantize_wide(int64_t x, int32_t multiplier, int32_t shift) {
  x = x > kWideSumBound ? kWideSumBound : x < -kWideSumBound ? -kWideSumBound : x;
  const int64_t reduced =
      multiplier < 0x7FFF0000 ? (int64_t{multiplier} + (1 << 15)) >> 16 : 0x7FFF;
  const int total_shift = 15 - shift;
  return static_cast<int32_t>((x * reduced + (int64_t{1} << (total_shift - 1))) >> total_shift);
}

inline int16_t clamp_output_s16(int32_t value, int32_t act_min, int32_t act_max) {
  value = value < act_min ? act_min : value;
  value = value > act_max ? act_max : value;
  return static_cast<int16_t>(value);
}

// The output step of channel `c` for either accumulator (int16 outputs have
// no offset): `Acc` is int32_t or int64_t, as the kernel accumulated.
template <Rounding R, typename Acc, typename Params>
inline int16_t int16x8_output_step(Acc acc, int32_t c, const Int16x8Operands& o, const Params& p) {
  const ChannelQuant& q = o.quant[c];
  int32_t scaled;
  if constexpr (sizeof(Acc) == 8) {
    scaled = requantize_wide(acc + o.wide_bias[c], q.multiplier, q.shift);
  } else {
    scaled = requantize<R>(wrapping_add(acc, q.bias), q);
  }
  return clamp_output_s16(scaled, p.act_min, p.act_max);
}

// A product term of either accumulator: int16 x int8 fits int32.
template <typename Acc>
inline Acc accumulate(Acc acc, int32_t input, int32_t weight) {
  if constexpr (sizeof(Acc) == 8) {
    return acc + input * weight;
  } else {
    return wrapping_add(acc, input * weight);
  }
}

template <typename T>
struct AccumulatorOf {
  using type = T;
};

// Calls body(mode, AccumulatorOf<Acc>{}) with the program's rounding mode
// (a RoundingMode, as with_any_rounding) and the operands' accumulator
// type fixed at compile time.
template <typename Body>
inline void with_int16x8_accumulator(const KernelArgs& args, const Int16x8Operands& o,
                                     Body&& body) {
  with_any_rounding(args.rounding, [&](auto mode) {
    if (o.wide_bias != nullptr) {
      body(mode, AccumulatorOf<int64_t>{});
    } else {
      body(mode, AccumulatorOf<int32_t>{});
    }
  });
}

TINYAOT_LOAD_TIME inline bool is_int16_activation_range(int32_t lo, int32_t hi) {
  return lo >= -32768 && hi <= 32767 && lo <= hi;
}

// The activations' bytes, offsets and range of an int16x8 variant, and its
// optional int64 bias: `channels` int64 constants beside ChannelQuant
// constants whose shifts the int64 rescale takes (requantize_wide). The
// ChannelQuant operand itself is the caller's to check.
template <typename Params>
TINYAOT_LOAD_TIME inline bool is_int16x8_operation(const Params& p, const OperandView* inputs,
                                                   uint32_t num_inputs, int64_t channels) {
  if (p.input_offset != 0 || p.output_offset != 0 ||
      !is_int16_activation_range(p.act_min, p.act_max))
    return false;
  if (num_inputs == 3) return true;
  const OperandView& bias = inputs[3];
  if (num_inputs != 4 || bias.constant == nullptr || channels < 0 ||
      bias.bytes != static_cast<uint64_t>(channels) * sizeof(int64_t) ||
      !is_aligned_for<int64_t>(bias.constant) || inputs[2].constant == nullptr)
    return false;
  const auto* quant = static_cast<const ChannelQuant*>(inputs[2].constant);
  const auto* wide_bias = static_cast<const int64_t*>(bias.constant);
  for (int64_t c = 0; c < channels; ++c)
    if (quant[c].shift > 7 || quant[c].shift < -31 || quant[c].multiplier < 0 ||
        wide_bias[c] > kWideBiasBound || wide_bias[c] < -kWideBiasBound)
      return false;
  return true;
}

// The activations a weighted operator's variant takes, and the checks of
// its validate that depend on them: the operand count (an int16x8 variant
// may have the int64 bias), the offsets and the activation range.
enum class Activations : uint8_t { kInt8, kInt16 };

inline int64_t activation_bytes(Activations a) { return a == Activations::kInt16 ? 2 : 1; }

template <typename Params>
TINYAOT_LOAD_TIME inline bool is_weighted_activation_setup(const Params& p, Activations a,
                                                           const OperandView* inputs,
                                                           uint32_t num_inputs, int64_t channels) {
  if (a == Activations::kInt16) return is_int16x8_operation(p, inputs, num_inputs, channels);
  return num_inputs == 3 && p.input_offset >= -127 && p.input_offset <= 128 &&
         p.output_offset >= -128 && p.output_offset <= 127 &&
         is_activation_range(p.act_min, p.act_max);
}

}  // namespace tinyaot
