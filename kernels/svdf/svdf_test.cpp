// SVDF through its descriptors, on steps worked out by hand in the
// comments: the state's shift from one call to the next, the zero point
// added before the state's clamp, the rank's sum, both rounding modes.
#include "kernels/svdf/svdf.h"

#include <gtest/gtest.h>

#include <vector>

#include "support/validate_support.h"

namespace tinyaot {
namespace {

// One batch of two inputs, one unit of rank 2 (two filters), memory 2.
// Both rescales are 1 (multiplier 2^30, shift 1) unless a test changes
// them; input zero point 1, output zero point 3.
SvdfParams unit_params(int32_t state_zero_point) {
  return {1, 2, 2, 1, 2, 2, -1, state_zero_point, 3, 1 << 30, 1, 1 << 30, 1};
}

const int8_t kFeature[] = {1, 2, 3, -1};  // filter 0: {1, 2}, filter 1: {3, -1}
const int32_t kBias[] = {7};

template <typename T>
int8_t step(const KernelDescriptor& kernel, const SvdfParams& p, std::vector<int8_t> input,
            const std::vector<T>& time, std::vector<T>* state, Rounding rounding) {
  int8_t output = 0;
  const Operand inputs[4] = {{input.data(), 2},
                             {const_cast<int8_t*>(kFeature), 4},
                             {const_cast<T*>(time.data()), static_cast<uint32_t>(4 * sizeof(T))},
                             {const_cast<int32_t*>(kBias), 4}};
  const Operand outputs[2] = {{&output, 1},
                              {state->data(), static_cast<uint32_t>(state->size() * sizeof(T))}};
  const KernelArgs args{&p, inputs, 4, outputs, 2, {nullptr, 0}, rounding};
  EXPECT_EQ(kernel.run(args), Status::kOk);
  return output;
}

TEST(Svdf, StateShiftsOneStepPerCall) {
  const std::vector<int16_t> time = {10, 1, -2, 5};  // filter 0: {10, 1}, filter 1: {-2, 5}
  for (Rounding rounding : {Rounding::kDouble, Rounding::kSingle}) {
    std::vector<int16_t> state(4, 0);
    const SvdfParams p = unit_params(0);
    // Input {2, 4} - 1 = {1, 3}: filter 0 gives 7, filter 1 gives 0, each
    // into its newest step: state {0, 7 | 0, 0}. Output 7 + 10*0 + 1*7 +
    // (-2)*0 + 5*0 = 14, plus 3.
    EXPECT_EQ(step(kernel_svdf_s8_state16_ref, p, {2, 4}, time, &state, rounding), 17);
    EXPECT_EQ(state, (std::vector<int16_t>{0, 7, 0, 0}));
    // Input {0, 1} - 1 = {-1, 0}: -1 and -3; the state moves left one
    // step: {7, -1 | 0, -3}. Output 7 + 70 - 1 + 0 - 15 = 61, plus 3.
    EXPECT_EQ(step(kernel_svdf_s8_state16_ref, p, {0, 1}, time, &state, rounding), 64);
    EXPECT_EQ(state, (std::vector<int16_t>{7, -1, 0, -3}));
    // Input {1, 1}: both 0. The whole state moves one value left (filter
    // 1's oldest into filter 0's newest), then each newest is written:
    // {-1, 0 | -3, 0}. Output 7 - 10 + 0 + 6 + 0 = 3, plus 3.
    EXPECT_EQ(step(kernel_svdf_s8_state16_ref, p, {1, 1}, time, &state, rounding), 6);
    EXPECT_EQ(state, (std::vector<int16_t>{-1, 0, -3, 0}));
  }
}

TEST(Svdf, Int8StateAddsItsZeroPointBeforeTheClamp) {
  const std::vector<int8_t> time = {10, 1, -2, 5};
  for (Rounding rounding : {Rounding::kDouble, Rounding::kSingle}) {
    // Reset int8 state is its zero point, 5.
    std::vector<int8_t> state(4, 5);
    SvdfParams p = unit_params(5);
    p.output_multiplier = 1 << 30;  // 1/8
    p.output_shift = -2;
    // Input {101, 1} - 1 = {100, 0}: filter 0 gives 100 + 5 = 105, filter
    // 1 gives 300 + 5, clamped to 127. Output 7 + 1 * (105 - 5) + 5 *
    // (127 - 5) = 717, / 8 = 89.6 -> 90 in both modes, plus 3.
    EXPECT_EQ(step(kernel_svdf_s8_state8_ref, p, {101, 1}, time, &state, rounding), 93);
    EXPECT_EQ(state, (std::vector<int8_t>{5, 105, 5, 127}));
  }
}

TEST(Svdf, ValidateRefusesInconsistentShapes) {
  const SvdfParams p = unit_params(0);
  const uint32_t good_in[4] = {2, 4, 8, 4};
  const uint32_t good_out[2] = {1, 8};
  EXPECT_EQ(test::validate_sizes(kernel_svdf_s8_state16_ref, &p, good_in, 4, good_out, 2),
            Status::kOk);
  EXPECT_EQ(test::validate_sizes(kernel_svdf_s8_state16_ref, &p, good_in, 3, good_out, 2),
            Status::kOk);  // no bias
  const uint32_t short_state[2] = {1, 6};
  EXPECT_EQ(test::validate_sizes(kernel_svdf_s8_state16_ref, &p, good_in, 4, short_state, 2),
            Status::kBadParams);
  SvdfParams bad_rank = p;
  bad_rank.rank = 3;  // filters != units * rank
  EXPECT_EQ(test::validate_sizes(kernel_svdf_s8_state16_ref, &bad_rank, good_in, 4, good_out, 2),
            Status::kBadParams);
  SvdfParams bad_zero_point = p;
  bad_zero_point.state_zero_point = 200;  // outside int8
  const uint32_t int8_in[4] = {2, 4, 4, 4};
  const uint32_t int8_out[2] = {1, 4};
  EXPECT_EQ(
      test::validate_sizes(kernel_svdf_s8_state8_ref, &bad_zero_point, int8_in, 4, int8_out, 2),
      Status::kBadParams);
}

}  // namespace
}  // namespace tinyaot
