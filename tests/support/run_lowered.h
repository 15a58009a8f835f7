// Helpers of the exactness tests (tflm_exact_test.cpp, ort_exact_test.cpp):
// a seeded source of draws, a one-tensor graph's int8 tensor, QUANTIZE's
// probe values and graph, and a lowered operation run by its kernel on the
// host, validated first as the loader would.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "compiler/lower/lowering.h"
#include "tinyaot/kernel_abi.h"

namespace tinyaot {

// A seeded source whose draws are the same with every standard library
// (std::mt19937's sequence is specified; its distributions are not).
class Draw {
 public:
  explicit Draw(uint32_t seed) : engine_(seed) {}
  int32_t uniform(int32_t lo, int32_t hi) {
    return lo + static_cast<int32_t>(engine_() % static_cast<uint32_t>(hi - lo + 1));
  }
  double unit() { return static_cast<double>(engine_()) / 4294967296.0; }
  bool one_in(int32_t n) { return uniform(1, n) == 1; }
  // A positive scale from about 2^-14 to 8, any significand.
  float scale() { return static_cast<float>(std::ldexp(1.0 + unit(), uniform(-14, 2))); }
  int32_t zero_point() { return one_in(5) ? 0 : uniform(-128, 127); }

 private:
  std::mt19937 engine_;
};

inline Tensor int8_tensor(std::string name, std::vector<int32_t> shape, float scale,
                          int32_t zero_point) {
  Tensor t;
  t.name = std::move(name);
  t.shape = std::move(shape);
  t.quant.scales = {scale};
  t.quant.zero_points = {zero_point};
  return t;
}

// Float32 values that probe a QUANTIZE to int8 with `scale`: both zeros,
// far out of range, every tie of the int8 range (x / s exactly k + 1/2)
// with its two float32 neighbours, and `random` values across the range.
inline std::vector<float> quantize_probes(Draw& draw, float scale, int random) {
  std::vector<float> values = {0.0f, -0.0f, 1e6f * scale, -1e6f * scale};
  for (int32_t k = -300; k <= 300; ++k) {
    const float tie = (static_cast<float>(k) + 0.5f) * scale;
    values.push_back(tie);
    values.push_back(std::nextafter(tie, 0.0f));
    values.push_back(std::nextafter(tie, 2.0f * tie));
  }
  for (int i = 0; i < random; ++i)
    values.push_back(static_cast<float>((draw.unit() - 0.5) * 600.0) * scale);
  return values;
}

// in float32[size] -> QUANTIZE -> out int8[size] with (scale, zero_point).
struct QuantizeGraph {
  Graph graph;
  Operation op;
};

inline QuantizeGraph quantize_graph(int32_t size, float scale, int32_t zero_point) {
  QuantizeGraph q;
  Tensor in;
  in.name = "in";
  in.dtype = DType::kFloat32;
  in.shape = {size};
  q.graph.tensors = {in, int8_tensor("out", {size}, scale, zero_point)};
  q.op.type = OpType::kQuantize;
  q.op.inputs = {0};
  q.op.outputs = {1};
  return q;
}

// `lowered`'s kernel on operands gathered by the callers below: validated
// first, as the loader would, then run with `rounding`.
inline std::vector<int8_t> validate_and_run(const LoweredOp& lowered,
                                            const std::vector<Operand>& inputs,
                                            const std::vector<OperandView>& views,
                                            uint32_t output_bytes, Rounding rounding) {
  const KernelDescriptor& kernel = *find_kernel(static_cast<uint32_t>(lowered.kernel));
  std::vector<int8_t> output(output_bytes);
  const Operand out = {output.data(), output_bytes};
  const OperandView out_view = {nullptr, output_bytes};
  EXPECT_EQ(
      kernel.validate(lowered.params.data(), views.data(), uint32_t(views.size()), &out_view, 1),
      Status::kOk)
      << kernel.name;
  std::vector<uint8_t> scratch(lowered.scratch_bytes);
  const KernelArgs args{lowered.params.data(),
                        inputs.data(),
                        uint32_t(inputs.size()),
                        &out,
                        1,
                        {scratch.empty() ? nullptr : scratch.data(), uint32_t(scratch.size())},
                        rounding};
  EXPECT_EQ(kernel.run(args), Status::kOk) << kernel.name;
  return output;
}

// The lowered operation run by its kernel on `input`: its other inputs
// are the constants the lowering computed.
inline std::vector<int8_t> run_lowered(const LoweredOp& lowered, const void* input,
                                       uint32_t input_bytes, uint32_t output_bytes,
                                       Rounding rounding) {
  std::vector<Operand> inputs = {{const_cast<void*>(input), input_bytes}};
  std::vector<OperandView> views = {{nullptr, input_bytes}};
  for (size_t i = 1; i < lowered.inputs.size(); ++i) {
    const std::vector<uint8_t>& constant = lowered.inputs[i].constant;
    inputs.push_back(
        {const_cast<uint8_t*>(constant.data()), static_cast<uint32_t>(constant.size())});
    views.push_back({constant.data(), static_cast<uint32_t>(constant.size())});
  }
  return validate_and_run(lowered, inputs, views, output_bytes, rounding);
}

// The same for an operation with several arena inputs (`arena`, in the
// operation's input order, then the constants: computed by the lowering or
// a constant tensor of `graph`).
inline std::vector<int8_t> run_lowered_inputs(const Graph& graph, const LoweredOp& lowered,
                                              const std::vector<std::vector<int8_t>>& arena,
                                              uint32_t output_bytes, Rounding rounding) {
  std::vector<Operand> inputs;
  std::vector<OperandView> views;
  for (size_t i = 0; i < lowered.inputs.size(); ++i) {
    const LoweredOperand& operand = lowered.inputs[i];
    if (i < arena.size()) {
      const uint32_t bytes = uint32_t(arena[i].size());
      inputs.push_back({const_cast<int8_t*>(arena[i].data()), bytes});
      views.push_back({nullptr, bytes});
      continue;
    }
    const std::vector<uint8_t>& constant =
        operand.tensor >= 0 ? *graph.tensors[size_t(operand.tensor)].data : operand.constant;
    const uint32_t bytes = uint32_t(constant.size());
    inputs.push_back({const_cast<uint8_t*>(constant.data()), bytes});
    views.push_back({constant.data(), bytes});
  }
  return validate_and_run(lowered, inputs, views, output_bytes, rounding);
}

}  // namespace tinyaot
