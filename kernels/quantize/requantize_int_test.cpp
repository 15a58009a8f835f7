// Integer QUANTIZE (requantize_int_ref) through its descriptor, on values
// worked out by hand: each element size, the output type's clamp, an
// int16 input with zero point -32768 (a SOFTMAX's output) into int32.
#include "kernels/quantize/requantize_int.h"

#include <gtest/gtest.h>

#include <vector>

#include "support/validate_support.h"

namespace tinyaot {
namespace {

template <typename In, typename Out>
std::vector<Out> requantize(const RequantizeIntParams& p, std::vector<In> input,
                            Rounding rounding = Rounding::kDouble) {
  std::vector<Out> output(input.size());
  const Operand inputs[1] = {{input.data(), static_cast<uint32_t>(input.size() * sizeof(In))}};
  const Operand outputs[1] = {{output.data(), static_cast<uint32_t>(output.size() * sizeof(Out))}};
  const KernelArgs args{&p, inputs, 1, outputs, 1, {nullptr, 0}, rounding};
  EXPECT_EQ(kernel_requantize_int_ref.run(args), Status::kOk);
  return output;
}

TEST(RequantizeInt, Int16ToInt8ClampsToTheOutputType) {
  // Rescale 1 (2^30, shift 1), output zero point -5: 100 -> 95; 1000 and
  // -1000 leave int8.
  const RequantizeIntParams p{3, 2, 1, 0, -5, 1 << 30, 1};
  EXPECT_EQ((requantize<int16_t, int8_t>(p, {100, 1000, -1000})),
            (std::vector<int8_t>{95, 127, -128}));
}

TEST(RequantizeInt, Int16WithZeroPointIntoInt32) {
  // Rescale 1/2 (2^30, shift 0), input zero point -32768: -32768 -> 0,
  // 32767 -> 65535 / 2 = 32767.5 -> 32768 (ties away from zero in double
  // rounding, up in single), 0 -> 16384.
  const RequantizeIntParams p{3, 2, 4, -32768, 0, 1 << 30, 0};
  for (Rounding rounding : {Rounding::kDouble, Rounding::kSingle})
    EXPECT_EQ((requantize<int16_t, int32_t>(p, {-32768, 32767, 0}, rounding)),
              (std::vector<int32_t>{0, 32768, 16384}));
}

TEST(RequantizeInt, Int8ToInt16AndInt32ToInt16) {
  // Rescale 256 (2^30, shift 9), input zero point 3: 4 -> 256, -125 ->
  // -32768 (clamped from -32768 exactly), 127 -> 31744.
  const RequantizeIntParams up{3, 1, 2, 3, 0, 1 << 30, 9};
  EXPECT_EQ((requantize<int8_t, int16_t>(up, {4, -125, 127})),
            (std::vector<int16_t>{256, -32768, 31744}));
  // Rescale 1/4 (2^30, shift -1): 1000 -> 250, 10^6 -> 32767 (clamped).
  const RequantizeIntParams down{2, 4, 2, 0, 0, 1 << 30, -1};
  EXPECT_EQ((requantize<int32_t, int16_t>(down, {1000, 1000000})),
            (std::vector<int16_t>{250, 32767}));
}

TEST(RequantizeInt, ValidateRefusesWhatTheKernelCannotRun) {
  const uint32_t in[1] = {6};
  const uint32_t out[1] = {3};
  const RequantizeIntParams good{3, 2, 1, 0, 0, 1 << 30, 1};
  EXPECT_EQ(test::validate_sizes(kernel_requantize_int_ref, &good, in, 1, out, 1), Status::kOk);
  RequantizeIntParams bad = good;
  bad.input_bytes = 3;
  EXPECT_EQ(test::validate_sizes(kernel_requantize_int_ref, &bad, in, 1, out, 1),
            Status::kBadParams);
  bad = good;
  bad.output_zero_point = 128;  // outside int8
  EXPECT_EQ(test::validate_sizes(kernel_requantize_int_ref, &bad, in, 1, out, 1),
            Status::kBadParams);
  bad = {3, 4, 1, 5, 0, 1 << 30, 1};  // an int32 input with a zero point
  const uint32_t int32_in[1] = {12};
  EXPECT_EQ(test::validate_sizes(kernel_requantize_int_ref, &bad, int32_in, 1, out, 1),
            Status::kBadParams);
}

}  // namespace
}  // namespace tinyaot
