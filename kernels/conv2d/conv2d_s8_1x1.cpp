// Pointwise CONV_2D (1x1 filter, stride 1, no padding): each output pixel
// is the same input pixel times a [channels, depth] matrix, so the kernel
// is a GEMM with no window arithmetic, no bounds checks and no scratch. The
// compiler folds input_offset * (sum of each channel's weights) into the
// bias; two pixels share each weight load.
#include "kernels/common/output_step.h"
#include "kernels/common/quant.h"
#include "kernels/common/weighted_operands.h"
#include "kernels/conv2d/conv2d.h"
#include "kernels/conv2d/conv2d_cases.h"

namespace tinyaot {
namespace {

Status validate(const void* raw, const OperandView* inputs, uint32_t num_inputs,
                const OperandView* outputs, uint32_t num_outputs) {
  const auto& p = *static_cast<const Conv2dParams*>(raw);
  const Status status = validate_conv2d_operands(p, inputs, num_inputs, outputs, num_outputs);
  if (status != Status::kOk) return status;
  return is_conv2d_1x1_case(p) ? Status::kOk : Status::kBadParams;
}

Status run(const KernelArgs& args) {
  const auto& p = *static_cast<const Conv2dParams*>(args.params);
  const WeightedOperands o = weighted_operands(args);

  // The input offset's share is in the bias: each input pixel is a column
  // as it stands, no copy.
  const int32_t depth = p.input_depth;
  const int32_t pixels = p.batches * p.output_h * p.output_w;
  with_rounding(args.rounding, [&](auto mode) {
    constexpr Rounding R = decltype(mode)::value;
    int32_t pixel = 0;
    for (; pixel + 1 < pixels; pixel += 2) {
      const int8_t* in = o.input + pixel * depth;
      conv2d_multiply_columns<R, int8_t>(p, in, in + depth, depth, o.filter, o.quant,
                                         o.output + pixel * p.output_depth);
    }
    if (pixel < pixels)
      conv2d_multiply_columns<R, int8_t>(p, o.input + pixel * depth, nullptr, depth, o.filter,
                                         o.quant, o.output + pixel * p.output_depth);
  });
  return Status::kOk;
}

}  // namespace

const KernelDescriptor kernel_conv2d_s8_1x1 = {
    "conv2d_s8_1x1",
    "conv2d",
    1,
    sizeof(Conv2dParams),
    3,
    3,
    1,
    IsaClass::kScalar,
    "input:s8[batches,input_h,input_w,input_depth], "
    "filter:s8[output_depth,1,1,input_depth], "
    "quant:ChannelQuant[output_depth](bias+input_offset*row_sum) "
    "-> output:s8[batches,input_h,input_w,output_depth]; "
    "params=Conv2dParams{batches,input_h,input_w,input_depth,filter_h,filter_w,filter_depth,"
    "output_h,output_w,output_depth,stride_h,stride_w,dilation_h,dilation_w,pad_top,pad_left,"
    "input_offset,output_offset,act_min,act_max}; case=1x1,stride1,nopad",
    run,
    validate,
    nullptr,
};

}  // namespace tinyaot
