// Test helpers for the data-movement families (copy, pad, concatenation,
// transpose, strided slice): tiny graphs for their lowerings, and running a
// lowered operation through its descriptor exactly as the loader and the
// executor would (validate, then run).
#pragma once

#include <cstring>
#include <vector>

#include "compiler/lower/lowering.h"
#include "support/validate_support.h"
#include "tinyaot/kernel_abi.h"

namespace tinyaot::test {

inline int32_t add_tensor(Graph& graph, std::vector<int32_t> shape, float scale = 0.5f,
                          int32_t zero_point = 0) {
  Tensor tensor;
  tensor.name = "t" + std::to_string(graph.tensors.size());
  tensor.shape = std::move(shape);
  tensor.quant.scales = {scale};
  tensor.quant.zero_points = {zero_point};
  graph.tensors.push_back(tensor);
  return static_cast<int32_t>(graph.tensors.size() - 1);
}

inline int32_t add_i32_constant(Graph& graph, std::vector<int32_t> shape,
                                const std::vector<int32_t>& values) {
  const int32_t id = add_tensor(graph, std::move(shape));
  Tensor& tensor = graph.tensors[static_cast<size_t>(id)];
  tensor.dtype = DType::kInt32;
  tensor.quant = {};
  tensor.data = std::vector<uint8_t>(values.size() * 4);
  if (!values.empty()) std::memcpy(tensor.data->data(), values.data(), values.size() * 4);
  return id;
}

inline Operation make_op(OpType type, std::vector<int32_t> inputs, int32_t output) {
  Operation op;
  op.type = type;
  op.inputs = std::move(inputs);
  op.outputs = {output};
  return op;
}

template <typename Params>
Params params_of(const LoweredOp& lowered) {
  Params params{};
  if (lowered.params.size() == sizeof(Params))
    std::memcpy(&params, lowered.params.data(), sizeof(Params));
  return params;
}

// Validates the descriptor against these operand sizes; on success runs it.
inline Status run_kernel(const KernelDescriptor& kernel, const void* params,
                         std::vector<std::vector<int8_t>>& inputs, std::vector<int8_t>& output) {
  std::vector<Operand> in;
  std::vector<uint32_t> in_bytes;
  for (auto& bytes : inputs) {
    in.push_back({bytes.data(), static_cast<uint32_t>(bytes.size())});
    in_bytes.push_back(static_cast<uint32_t>(bytes.size()));
  }
  const uint32_t out_bytes = static_cast<uint32_t>(output.size());
  const Status status = test::validate_sizes(kernel, params, in_bytes.data(),
                                             static_cast<uint32_t>(in.size()), &out_bytes, 1);
  if (status != Status::kOk) return status;
  const Operand out{output.data(), out_bytes};
  KernelArgs args{params,       in.data(),        static_cast<uint32_t>(in.size()), &out, 1,
                  {nullptr, 0}, Rounding::kDouble};
  return kernel.run(args);
}

// Runs a lowered operation on these input bytes; the output has `out_bytes`.
inline std::vector<int8_t> run_lowered(const LoweredOp& lowered,
                                       std::vector<std::vector<int8_t>> inputs, size_t out_bytes,
                                       Status* status = nullptr) {
  std::vector<int8_t> output(out_bytes, 99);
  const KernelDescriptor* kernel = find_kernel(static_cast<uint32_t>(lowered.kernel));
  const Status result = run_kernel(*kernel, lowered.params.data(), inputs, output);
  if (status != nullptr) *status = result;
  return output;
}

inline std::vector<int8_t> iota_bytes(size_t count, int first = 0) {
  std::vector<int8_t> bytes(count);
  for (size_t i = 0; i < count; ++i) bytes[i] = static_cast<int8_t>(first + static_cast<int>(i));
  return bytes;
}

}  // namespace tinyaot::test
