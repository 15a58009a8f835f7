// Helpers of the exactness tests (tflm_exact_test.cpp, ort_exact_test.cpp):
// a seeded source of draws, a one-tensor graph's int8 tensor, and a lowered
// operation run by its kernel on the host, validated first as the loader
// would.
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

// The lowered operation run by its kernel on `input`: its other inputs
// are the constants the lowering computed; validated first, as the loader
// would.
inline std::vector<int8_t> run_lowered(const LoweredOp& lowered, const void* input,
                                       uint32_t input_bytes, uint32_t output_bytes,
                                       Rounding rounding) {
  const KernelDescriptor& kernel = *find_kernel(static_cast<uint32_t>(lowered.kernel));
  std::vector<Operand> inputs = {{const_cast<void*>(input), input_bytes}};
  std::vector<OperandView> views = {{nullptr, input_bytes}};
  for (size_t i = 1; i < lowered.inputs.size(); ++i) {
    std::vector<uint8_t>& constant = const_cast<std::vector<uint8_t>&>(lowered.inputs[i].constant);
    inputs.push_back({constant.data(), static_cast<uint32_t>(constant.size())});
    views.push_back({constant.data(), static_cast<uint32_t>(constant.size())});
  }
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

// The same for an operation with several arena inputs (`arena`, in the
// operation's input order, then the constants: computed by the lowering or
// a constant tensor of `graph`).
inline std::vector<int8_t> run_lowered_inputs(const Graph& graph, const LoweredOp& lowered,
                                              const std::vector<std::vector<int8_t>>& arena,
                                              uint32_t output_bytes, Rounding rounding) {
  const KernelDescriptor& kernel = *find_kernel(static_cast<uint32_t>(lowered.kernel));
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

}  // namespace tinyaot
