// Reference FULLY_CONNECTED 16x8: TFLite Micro's integer kernel for int16
// activations and int8 weights, accumulating in the bias's width
// (kernels/common/int16x8.h).
#include "kernels/common/int16x8.h"
#include "kernels/fully_connected/fully_connected.h"
#include "kernels/fully_connected/fully_connected_s16_rows.h"

namespace tinyaot {
namespace {

template <Rounding R, typename Acc>
TINYAOT_MODE_LOOP void multiply(const FullyConnectedParams& p, const Int16x8Operands& o) {
  for (int32_t b = 0; b < p.batches; ++b) {
    const int16_t* row = o.input + b * p.input_depth;
    for (int32_t u = 0; u < p.output_depth; ++u) {
      const int8_t* weights = o.filter + u * p.input_depth;
      Acc acc = 0;
      for (int32_t d = 0; d < p.input_depth; ++d) acc = accumulate(acc, row[d], weights[d]);
      o.output[b * p.output_depth + u] = int16x8_output_step<R>(acc, u, o, p);
    }
  }
}

Status run(const KernelArgs& args) {
  const auto& p = *static_cast<const FullyConnectedParams*>(args.params);
  const Int16x8Operands o = int16x8_operands(args);
  with_int16x8_accumulator(args, o, [&](auto mode, auto accumulator) {
    multiply<decltype(mode)::value, typename decltype(accumulator)::type>(p, o);
  });
  return Status::kOk;
}

}  // namespace

const KernelDescriptor kernel_fully_connected_s16_ref = {
    "fully_connected_s16_ref",
    "fully_connected_s16",
    1,
    sizeof(FullyConnectedParams),
    3,
    4,
    1,
    IsaClass::kScalar,
    TINYAOT_FULLY_CONNECTED_S16_SIGNATURE,
    run,
    validate_fully_connected_s16,
    nullptr,
};

}  // namespace tinyaot
