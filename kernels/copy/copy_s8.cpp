// Byte copy. The output shares no byte with the input (the loader refuses
// operands that overlap; kernel_abi.h), so a plain memcpy.
#include <string.h>

#include "kernels/copy/copy.h"
#include "tinyaot/load_time.h"

namespace tinyaot {
namespace {

TINYAOT_LOAD_TIME Status validate(const void* raw, const OperandView* inputs, uint32_t num_inputs,
                                  const OperandView* outputs, uint32_t num_outputs) {
  const auto& p = *static_cast<const CopyParams*>(raw);
  if (num_inputs != 1 || num_outputs != 1 || p.bytes < 1) return Status::kBadParams;
  if (inputs[0].bytes != static_cast<uint32_t>(p.bytes) ||
      outputs[0].bytes != static_cast<uint32_t>(p.bytes))
    return Status::kBadParams;
  return Status::kOk;
}

Status run(const KernelArgs& args) {
  const auto& p = *static_cast<const CopyParams*>(args.params);
  memcpy(args.outputs[0].data, args.inputs[0].data, static_cast<size_t>(p.bytes));
  return Status::kOk;
}

}  // namespace

const KernelDescriptor kernel_copy_s8 = {
    "copy_s8",
    "copy",
    1,
    sizeof(CopyParams),
    1,
    1,
    1,
    IsaClass::kScalar,
    "input:bytes[bytes] -> output:bytes[bytes]; params=CopyParams{bytes}",
    run,
    validate,
    nullptr,
};

}  // namespace tinyaot
