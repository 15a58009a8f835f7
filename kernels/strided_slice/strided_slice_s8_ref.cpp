// Reference STRIDED_SLICE: a gather; all index arithmetic was done at compile time.
#include "kernels/copy/gather.h"
#include "kernels/strided_slice/strided_slice.h"
#include "tinyaot/load_time.h"

namespace tinyaot {
namespace {

TINYAOT_LOAD_TIME Status validate(const void* raw, const OperandView* inputs, uint32_t num_inputs,
                                  const OperandView* outputs, uint32_t num_outputs) {
  const auto& p = *static_cast<const StridedSliceParams*>(raw);
  return validate_gather(p.source, p.input_elements, inputs, num_inputs, outputs, num_outputs);
}

Status run(const KernelArgs& args) {
  const auto& p = *static_cast<const StridedSliceParams*>(args.params);
  run_gather(p.source, static_cast<const int8_t*>(args.inputs[0].data),
             static_cast<int8_t*>(args.outputs[0].data));
  return Status::kOk;
}

}  // namespace

const KernelDescriptor kernel_strided_slice_s8_ref = {
    "strided_slice_s8_ref",
    "strided_slice",
    1,
    sizeof(StridedSliceParams),
    1,
    1,
    1,
    IsaClass::kScalar,
    "input:s8[input_elements] -> output:s8[box]; "
    "params=StridedSliceParams{StridedBox{rank,offset,dims[6],steps[6]},input_elements}",
    run,
    validate,
    nullptr,
};

}  // namespace tinyaot
