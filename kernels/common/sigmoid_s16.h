// TFLite's 16-bit LOGISTIC and TANH arithmetic (reference_integer_ops
// Logistic and Tanh for int16, which TFLite Micro's LSTM calls on its gates
// and cell state): the input is scaled by an integer multiplier and a
// rounding right shift, then sigmoid is interpolated linearly between two
// entries of a 256-entry table (tanh through tanh(x) = 2 sigmoid(2x) - 1).
// Freestanding, header-only: integer arithmetic only.
#pragma once

#include <stdint.h>

namespace tinyaot {

// TFLite's sigmoid_table_uint16: sigmoid(i / 24) in Q0.16 for i in [0, 255]
// (the last entry saturated to 0xFFFF). The values are TFLite's published
// constants, not a formula: within 1.11 of 2^16 sigmoid(i / 24) but not
// any rounding of it (kernels/lstm/lstm_test.cpp), so bit-exact results
// need these numbers.
inline constexpr uint16_t kSigmoidTableQ16[256] = {
    32768, 33451, 34133, 34813, 35493, 36169, 36843, 37513, 38180, 38841, 39498, 40149, 40794,
    41432, 42064, 42688, 43304, 43912, 44511, 45102, 45683, 46255, 46817, 47369, 47911, 48443,
    48964, 49475, 49975, 50464, 50942, 51409, 51865, 52311, 52745, 53169, 53581, 53983, 54374,
    54755, 55125, 55485, 55834, 56174, 56503, 56823, 57133, 57433, 57724, 58007, 58280, 58544,
    58800, 59048, 59288, 59519, 59743, 59959, 60168, 60370, 60565, 60753, 60935, 61110, 61279,
    61441, 61599, 61750, 61896, 62036, 62172, 62302, 62428, 62549, 62666, 62778, 62886, 62990,
    63090, 63186, 63279, 63368, 63454, 63536, 63615, 63691, 63765, 63835, 63903, 63968, 64030,
    64090, 64148, 64204, 64257, 64308, 64357, 64405, 64450, 64494, 64536, 64576, 64614, 64652,
    64687, 64721, 64754, 64786, 64816, 64845, 64873, 64900, 64926, 64950, 64974, 64997, 65019,
    65039, 65060, 65079, 65097, 65115, 65132, 65149, 65164, 65179, 65194, 65208, 65221, 65234,
    65246, 65258, 65269, 65280, 65291, 65301, 65310, 65319, 65328, 65337, 65345, 65352, 65360,
    65367, 65374, 65381, 65387, 65393, 65399, 65404, 65410, 65415, 65420, 65425, 65429, 65433,
    65438, 65442, 65445, 65449, 65453, 65456, 65459, 65462, 65465, 65468, 65471, 65474, 65476,
    65479, 65481, 65483, 65485, 65488, 65489, 65491, 65493, 65495, 65497, 65498, 65500, 65501,
    65503, 65504, 65505, 65507, 65508, 65509, 65510, 65511, 65512, 65513, 65514, 65515, 65516,
    65517, 65517, 65518, 65519, 65520, 65520, 65521, 65522, 65522, 65523, 65523, 65524, 65524,
    65525, 65525, 65526, 65526, 65526, 65527, 65527, 65528, 65528, 65528, 65529, 65529, 65529,
    65529, 65530, 65530, 65530, 65530, 65531, 65531, 65531, 65531, 65531, 65532, 65532, 65532,
    65532, 65532, 65532, 65533, 65533, 65533, 65533, 65533, 65533, 65533, 65533, 65534, 65534,
    65534, 65534, 65534, 65534, 65534, 65534, 65534, 65534, 65535,
};

// The input scaling both functions start with: (x * multiplier + 2^(s-1))
// >> s. TFLite passes multiplier 0 for a power-of-two input scale, meaning
// 3 << shift and no shift; callers hand the resolved pair (the LSTM's
// compile-time parameters), whose product with any int16 must fit int32
// (validated).
struct Sigmoid16Scale {
  int32_t multiplier;
  int32_t right_shift;
};

inline int32_t scale_sigmoid16_input(int16_t x, const Sigmoid16Scale& scale) {
  const int32_t round = scale.right_shift > 0 ? int32_t{1} << (scale.right_shift - 1) : 0;
  return (x * scale.multiplier + round) >> scale.right_shift;
}

// sigmoid of a scaled input with 9 fractional bits, to Q0.15. The final
// narrowing keeps the low 16 bits as TFLite's implicit conversion does.
inline int16_t sigmoid16_of_scaled(int32_t scaled) {
  const uint32_t magnitude = static_cast<uint32_t>(scaled < 0 ? -scaled : scaled);
  const uint32_t index = magnitude >> 9;
  uint32_t result;
  if (index >= 255) {
    result = uint32_t{0x7FFF} << 10;
  } else {
    const uint32_t low = kSigmoidTableQ16[index];
    const uint32_t high = kSigmoidTableQ16[index + 1];
    result = (low << 9) + (magnitude & 0x1FF) * (high - low);
  }
  result = scaled >= 0 ? result + (1u << 9) : (1u << 25) - result + (1u << 9) - 1;
  return static_cast<int16_t>(static_cast<uint16_t>(result >> 10));
}

// tanh of a scaled input with 8 fractional bits (the table at twice the
// argument), to Q0.15.
inline int16_t tanh16_of_scaled(int32_t scaled) {
  const uint32_t magnitude = static_cast<uint32_t>(scaled < 0 ? -scaled : scaled);
  const uint32_t index = magnitude >> 8;
  int32_t result;
  if (index >= 255) {
    result = 0xFFFF << 8;
  } else {
    const uint32_t low = kSigmoidTableQ16[index];
    const uint32_t high = kSigmoidTableQ16[index + 1];
    result = static_cast<int32_t>((low << 8) + (magnitude & 0xFF) * (high - low));
  }
  result = scaled >= 0 ? result - (1 << 23) + (1 << 7) : -result + (1 << 23) + (1 << 7) - 1;
  return static_cast<int16_t>(static_cast<uint16_t>(static_cast<uint32_t>(result >> 8)));
}

inline int16_t sigmoid16(int16_t x, const Sigmoid16Scale& scale) {
  return sigmoid16_of_scaled(scale_sigmoid16_input(x, scale));
}

inline int16_t tanh16(int16_t x, const Sigmoid16Scale& scale) {
  return tanh16_of_scaled(scale_sigmoid16_input(x, scale));
}

// TFLite's (multiplier, left shift) pair as its int16 LOGISTIC and TANH
// receive it, resolved: multiplier 0 stands for 3 << left_shift.
constexpr Sigmoid16Scale resolve_sigmoid16_scale(int32_t multiplier, int32_t left_shift) {
  return multiplier == 0 ? Sigmoid16Scale{3 * (int32_t{1} << left_shift), 0}
                         : Sigmoid16Scale{multiplier, left_shift};
}

}  // namespace tinyaot
