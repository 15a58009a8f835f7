// UNIDIRECTIONAL_SEQUENCE_LSTM's arithmetic: the int16 sigmoid and tanh
// against the real functions, and the kernel against a plain scalar
// re-derivation of TFLite Micro's LstmStep (zero points added per product,
// each gate's two fully connected layers, TFLite's MULs, time-major steps
// over all batches at once), on random shapes and scales.
#include "kernels/lstm/lstm.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "kernels/common/quant.h"
#include "kernels/common/sigmoid_s16.h"
#include "kernels/kernel_list.h"
#include "tinyaot/kernel_abi.h"

namespace tinyaot {
namespace {

// TFLite's published values sit up to 1.11 away from the real function.
TEST(LstmSigmoid16, TableIsSigmoidOfIOver24InQ16) {
  for (int i = 0; i < 256; ++i) {
    const double real = 65536.0 / (1.0 + std::exp(-i / 24.0));
    EXPECT_LE(std::fabs(kSigmoidTableQ16[i] - std::min(real, 65535.0)), 1.2) << i;
    if (i > 0) EXPECT_GE(kSigmoidTableQ16[i], kSigmoidTableQ16[i - 1]) << i;
  }
}

// The gates' activations take Q3.12 and give Q0.15: within a few steps of
// the real function over the whole int16 range.
TEST(LstmSigmoid16, GateActivationsFollowTheRealFunctions) {
  const Sigmoid16Scale scale = resolve_sigmoid16_scale(0, 0);
  for (int32_t x = -32768; x <= 32767; ++x) {
    const double real = x / 4096.0;
    const double sigmoid = 32768.0 / (1.0 + std::exp(-real));
    const double tanh = 32768.0 * std::tanh(real);
    ASSERT_LE(std::fabs(sigmoid16(static_cast<int16_t>(x), scale) - std::min(sigmoid, 32767.0)),
              6.0)
        << x;
    ASSERT_LE(std::fabs(tanh16(static_cast<int16_t>(x), scale) -
                        std::max(std::min(tanh, 32767.0), -32768.0)),
              12.0)
        << x;
  }
}

// A cell state at 2^-11 takes the input multiplier 3 << 1 (TFLite Micro's
// left shift 15 - 11 - 3): tanh of a Q4.11 value.
TEST(LstmSigmoid16, CellTanhScalesByThePowerOfTwo) {
  const Sigmoid16Scale scale = resolve_sigmoid16_scale(0, 1);
  EXPECT_EQ(scale.multiplier, 6);
  EXPECT_EQ(scale.right_shift, 0);
  for (int32_t x = -32768; x <= 32767; x += 7) {
    const double tanh = 32768.0 * std::tanh(x / 2048.0);
    ASSERT_LE(std::fabs(tanh16(static_cast<int16_t>(x), scale) - std::min(tanh, 32767.0)), 12.0)
        << x;
  }
}

// --- The scalar re-derivation ------------------------------------------

struct Model {
  UnidirectionalLstmParams p{};
  int32_t input_zero_point = 0;
  std::vector<int8_t> input, input_weights, recurrent_weights;
  std::vector<int32_t> bias;  // [4][units], the model's gate biases
  std::vector<int8_t> hidden;
  std::vector<int16_t> cell;
};

int16_t clamp16(int64_t x) {
  return static_cast<int16_t>(std::min<int64_t>(32767, std::max<int64_t>(-32768, x)));
}

int32_t mbqm(int32_t x, const LstmRescale& r, Rounding rounding) {
  return rounding == Rounding::kSingle
             ? requantize_detail::single_rounding_any(x, r.multiplier, r.shift)
             : requantize_detail::double_rounding_any(x, r.multiplier, r.shift);
}

// TFLite Micro's EvalLstm, written out: `rows` batch rows per step (all
// of them time-major, one batch-major), every product with its zero point.
void reference(Model& m, Rounding rounding, std::vector<int8_t>& output) {
  const UnidirectionalLstmParams& p = m.p;
  const int32_t units = p.units, depth = p.input_depth;
  const Sigmoid16Scale gate_scale = resolve_sigmoid16_scale(0, 0);
  const Sigmoid16Scale cell_scale{p.cell_tanh_multiplier, p.cell_tanh_right_shift};
  auto step = [&](const int8_t* x, int8_t* h, int16_t* c, int8_t* out) {
    int16_t gate[4][64];
    for (int g = 0; g < 4; ++g) {
      for (int32_t u = 0; u < units; ++u) {
        int32_t acc_in = m.bias[static_cast<size_t>(g * units + u)];
        for (int32_t d = 0; d < depth; ++d)
          acc_in += (x[d] - m.input_zero_point) *
                    m.input_weights[static_cast<size_t>((g * units + u) * depth + d)];
        int32_t acc_rec = 0;
        for (int32_t d = 0; d < units; ++d)
          acc_rec += (h[d] - p.hidden_zero_point) *
                     m.recurrent_weights[static_cast<size_t>((g * units + u) * units + d)];
        const int16_t sum = clamp16(clamp16(mbqm(acc_in, p.gates[g].input, rounding)) +
                                    clamp16(mbqm(acc_rec, p.gates[g].recurrent, rounding)));
        gate[g][u] = g == kLstmCellGate ? tanh16(sum, gate_scale) : sigmoid16(sum, gate_scale);
      }
    }
    for (int32_t u = 0; u < units; ++u) {
      const int16_t kept =
          clamp16(mbqm(gate[kLstmForgetGate][u] * c[u], p.forget_times_cell, rounding));
      const int16_t added = clamp16(
          mbqm(gate[kLstmInputGate][u] * gate[kLstmCellGate][u], p.input_times_cell, rounding));
      int16_t updated = clamp16(kept + added);
      if (p.clip_cell)
        updated =
            static_cast<int16_t>(std::max(-p.cell_clip, std::min<int32_t>(p.cell_clip, updated)));
      c[u] = updated;
    }
    for (int32_t u = 0; u < units; ++u) {
      const int32_t value =
          mbqm(tanh16(c[u], cell_scale) * gate[kLstmOutputGate][u], p.hidden, rounding) +
          p.hidden_zero_point;
      h[u] = static_cast<int8_t>(std::max(-128, std::min(127, value)));
      out[u] = h[u];
    }
  };
  output.assign(static_cast<size_t>(p.time_steps * p.batches * units), 0);
  if (p.time_major) {
    for (int32_t t = 0; t < p.time_steps; ++t)
      for (int32_t b = 0; b < p.batches; ++b)
        step(&m.input[static_cast<size_t>((t * p.batches + b) * depth)],
             &m.hidden[static_cast<size_t>(b * units)], &m.cell[static_cast<size_t>(b * units)],
             &output[static_cast<size_t>((t * p.batches + b) * units)]);
  } else {
    for (int32_t b = 0; b < p.batches; ++b)
      for (int32_t t = 0; t < p.time_steps; ++t)
        step(&m.input[static_cast<size_t>((b * p.time_steps + t) * depth)],
             &m.hidden[static_cast<size_t>(b * units)], &m.cell[static_cast<size_t>(b * units)],
             &output[static_cast<size_t>((b * p.time_steps + t) * units)]);
  }
}

LstmRescale random_rescale(std::mt19937& rng, int lo_shift, int hi_shift) {
  std::uniform_int_distribution<int32_t> multiplier(1 << 30, INT32_MAX);
  std::uniform_int_distribution<int32_t> shift(lo_shift, hi_shift);
  return {multiplier(rng), shift(rng)};
}

Model random_model(std::mt19937& rng) {
  Model m;
  UnidirectionalLstmParams& p = m.p;
  std::uniform_int_distribution<int32_t> small(1, 5), any8(-128, 127), w8(-127, 127);
  p.time_steps = small(rng);
  p.batches = small(rng) % 3 + 1;
  p.input_depth = small(rng) * 3;
  p.units = small(rng) * 2 + 1;
  p.time_major = rng() % 2;
  p.hidden_zero_point = any8(rng);
  m.input_zero_point = any8(rng);
  p.clip_cell = rng() % 2;
  p.cell_clip = std::uniform_int_distribution<int32_t>(0, 32767)(rng);
  for (LstmGateScales& gate : p.gates) {
    gate.input = random_rescale(rng, -12, -4);
    gate.recurrent = random_rescale(rng, -12, -4);
  }
  // Cell state at 2^-11: f * c back to 2^-11, i * g to 2^-11 (2^-19).
  p.forget_times_cell = {1 << 30, -14};
  p.input_times_cell = {1 << 30, -18};
  p.hidden = random_rescale(rng, -27, -23);
  p.cell_tanh_multiplier = 6;
  p.cell_tanh_right_shift = 0;
  const int32_t rows = p.time_steps * p.batches;
  for (int32_t i = 0; i < rows * p.input_depth; ++i)
    m.input.push_back(static_cast<int8_t>(any8(rng)));
  for (int32_t i = 0; i < 4 * p.units * p.input_depth; ++i)
    m.input_weights.push_back(static_cast<int8_t>(w8(rng)));
  for (int32_t i = 0; i < 4 * p.units * p.units; ++i)
    m.recurrent_weights.push_back(static_cast<int8_t>(w8(rng)));
  std::uniform_int_distribution<int32_t> bias(-40000, 40000);
  for (int32_t i = 0; i < 4 * p.units; ++i) m.bias.push_back(bias(rng));
  // A state left by an earlier inference.
  for (int32_t i = 0; i < p.batches * p.units; ++i) {
    m.hidden.push_back(static_cast<int8_t>(any8(rng)));
    m.cell.push_back(
        static_cast<int16_t>(std::uniform_int_distribution<int32_t>(-20000, 20000)(rng)));
  }
  return m;
}

// The lowering's folding: per gate and unit, the bias plus input offset
// times the row sum, then the hidden offset times the recurrent row sum.
std::vector<int32_t> folded_bias(const Model& m) {
  const UnidirectionalLstmParams& p = m.p;
  std::vector<int32_t> folded(static_cast<size_t>(8 * p.units));
  for (int32_t r = 0; r < 4 * p.units; ++r) {
    int32_t in_sum = 0, rec_sum = 0;
    for (int32_t d = 0; d < p.input_depth; ++d)
      in_sum += m.input_weights[static_cast<size_t>(r * p.input_depth + d)];
    for (int32_t d = 0; d < p.units; ++d)
      rec_sum += m.recurrent_weights[static_cast<size_t>(r * p.units + d)];
    folded[static_cast<size_t>(r)] = m.bias[static_cast<size_t>(r)] - m.input_zero_point * in_sum;
    folded[static_cast<size_t>(4 * p.units + r)] = -p.hidden_zero_point * rec_sum;
  }
  return folded;
}

TEST(LstmKernel, MatchesTheScalarReDerivation) {
  const KernelDescriptor* kernel =
      find_kernel(static_cast<uint32_t>(KernelId::unidirectional_lstm_s8_ref));
  ASSERT_NE(kernel, nullptr);
  std::mt19937 rng(19);
  for (int trial = 0; trial < 200; ++trial) {
    for (Rounding rounding : {Rounding::kDouble, Rounding::kSingle}) {
      Model m = random_model(rng);
      const UnidirectionalLstmParams& p = m.p;
      const std::vector<int32_t> bias = folded_bias(m);
      std::vector<int8_t> output(static_cast<size_t>(p.time_steps * p.batches * p.units));
      std::vector<int8_t> hidden = m.hidden;
      std::vector<int16_t> cell = m.cell;
      std::vector<int16_t> scratch(kernel->scratch_bytes(&p) / 2);
      const Operand inputs[4] = {
          {m.input.data(), static_cast<uint32_t>(m.input.size())},
          {m.input_weights.data(), static_cast<uint32_t>(m.input_weights.size())},
          {m.recurrent_weights.data(), static_cast<uint32_t>(m.recurrent_weights.size())},
          {const_cast<int32_t*>(bias.data()), static_cast<uint32_t>(bias.size() * 4)}};
      const Operand outputs[3] = {{output.data(), static_cast<uint32_t>(output.size())},
                                  {hidden.data(), static_cast<uint32_t>(hidden.size())},
                                  {cell.data(), static_cast<uint32_t>(cell.size() * 2)}};
      OperandView in_views[4], out_views[3];
      for (int i = 0; i < 4; ++i)
        in_views[i] = {i == 0 ? nullptr : inputs[i].data, inputs[i].bytes};
      for (int i = 0; i < 3; ++i) out_views[i] = {nullptr, outputs[i].bytes};
      ASSERT_EQ(kernel->validate(&p, in_views, 4, out_views, 3), Status::kOk);
      const KernelArgs args{&p,      inputs,
                            4,       outputs,
                            3,       {scratch.data(), static_cast<uint32_t>(scratch.size() * 2)},
                            rounding};
      ASSERT_EQ(kernel->run(args), Status::kOk);
      std::vector<int8_t> expected;
      reference(m, rounding, expected);
      ASSERT_EQ(output, expected) << "trial " << trial;
      ASSERT_EQ(hidden, m.hidden) << "trial " << trial;
      ASSERT_EQ(cell, m.cell) << "trial " << trial;
    }
  }
}

TEST(LstmKernel, ValidateRefusesWrongSizesAndParameters) {
  const KernelDescriptor* kernel =
      find_kernel(static_cast<uint32_t>(KernelId::unidirectional_lstm_s8_ref));
  std::mt19937 rng(7);
  const Model m = random_model(rng);
  const UnidirectionalLstmParams& p = m.p;
  const int32_t rows = p.time_steps * p.batches, state = p.batches * p.units;
  const std::vector<int32_t> bias = folded_bias(m);
  OperandView in[4] = {{nullptr, static_cast<uint32_t>(rows * p.input_depth)},
                       {nullptr, static_cast<uint32_t>(4 * p.units * p.input_depth)},
                       {nullptr, static_cast<uint32_t>(4 * p.units * p.units)},
                       {bias.data(), static_cast<uint32_t>(bias.size() * 4)}};
  OperandView out[3] = {{nullptr, static_cast<uint32_t>(rows * p.units)},
                        {nullptr, static_cast<uint32_t>(state)},
                        {nullptr, static_cast<uint32_t>(state * 2)}};
  ASSERT_EQ(kernel->validate(&p, in, 4, out, 3), Status::kOk);
  out[2].bytes -= 2;
  EXPECT_EQ(kernel->validate(&p, in, 4, out, 3), Status::kBadParams);
  out[2].bytes += 2;
  UnidirectionalLstmParams bad = p;
  bad.cell_tanh_multiplier = 3 << 15;  // x * multiplier would leave int32
  EXPECT_EQ(kernel->validate(&bad, in, 4, out, 3), Status::kBadParams);
  bad = p;
  bad.gates[2].recurrent.shift = 31;
  EXPECT_EQ(kernel->validate(&bad, in, 4, out, 3), Status::kBadParams);
  bad = p;
  bad.time_major = 2;
  EXPECT_EQ(kernel->validate(&bad, in, 4, out, 3), Status::kBadParams);
  EXPECT_EQ(kernel->validate(&p, in, 3, out, 3), Status::kBadParams);
}

}  // namespace
}  // namespace tinyaot
