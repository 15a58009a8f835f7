// Reference CONCATENATION: interleaves the inputs' rows; bytes unchanged
// (the lowering guarantees one quantization for all operands).
#include <string.h>

#include "kernels/common/validate.h"
#include "kernels/concatenation/concatenation.h"
#include "tinyaot/load_time.h"

namespace tinyaot {
namespace {

TINYAOT_LOAD_TIME Status validate(const void* raw, const OperandView* inputs, uint32_t num_inputs,
                                  const OperandView* outputs, uint32_t num_outputs) {
  const auto& p = *static_cast<const ConcatenationParams*>(raw);
  if (num_outputs != 1 || p.num_inputs < 1 ||
      p.num_inputs > static_cast<int32_t>(kConcatenationMaxInputs) ||
      num_inputs != static_cast<uint32_t>(p.num_inputs) || p.outer < 1)
    return Status::kBadParams;
  int64_t total_row = 0;
  for (int32_t i = 0; i < p.num_inputs; ++i) {
    int64_t bytes;
    if (p.row_bytes[i] < 1 || !checked_mul(p.outer, p.row_bytes[i], &bytes) ||
        inputs[i].bytes != bytes)
      return Status::kBadParams;
    total_row += p.row_bytes[i];
  }
  int64_t total;
  if (!checked_mul(p.outer, total_row, &total) || outputs[0].bytes != total)
    return Status::kBadParams;
  return Status::kOk;
}

Status run(const KernelArgs& args) {
  const auto& p = *static_cast<const ConcatenationParams*>(args.params);
  auto* output = static_cast<int8_t*>(args.outputs[0].data);
  for (int32_t o = 0; o < p.outer; ++o) {
    for (int32_t i = 0; i < p.num_inputs; ++i) {
      const size_t row = static_cast<size_t>(p.row_bytes[i]);
      memcpy(output, static_cast<const int8_t*>(args.inputs[i].data) + o * row, row);
      output += row;
    }
  }
  return Status::kOk;
}

}  // namespace

const KernelDescriptor kernel_concatenation_s8_ref = {
    "concatenation_s8_ref",
    "concatenation",
    1,
    sizeof(ConcatenationParams),
    1,
    kConcatenationMaxInputs,
    1,
    IsaClass::kScalar,
    "inputs:s8[outer,row_bytes[i]] x num_inputs -> output:s8[outer,sum(row_bytes)]; "
    "params=ConcatenationParams{num_inputs,outer,row_bytes[15]}",
    run,
    validate,
    nullptr,
};

}  // namespace tinyaot
