// Pointwise CONV_2D for MVE cores (1x1 filter, any stride, no padding,
// every window inside the input): each output pixel is one input pixel's
// channels, read where they lie (the input row walk steps stride_w pixels
// a column and stride_h rows a row), times the [output_depth, input_depth]
// weights in the layout of kernels/common/gemm_mve_layout.h: gemm_mve.h, four output
// channels per input load with VMLADAVA, predicated tails for any depth,
// the output step four channels a vector. No im2col copy, no scratch; the
// input offset's share is in the bias (folded by the compiler).
#include "kernels/common/gemm_mve.h"
#include "kernels/common/output_step.h"
#include "kernels/common/weighted_operands.h"
#include "kernels/conv2d/conv2d.h"
#include "kernels/conv2d/conv2d_cases.h"
#include "kernels/conv2d/conv2d_gemm.h"
#include "tinyaot/load_time.h"

namespace tinyaot {
namespace {

TINYAOT_LOAD_TIME Status validate(const void* raw, const OperandView* inputs, uint32_t num_inputs,
                                  const OperandView* outputs, uint32_t num_outputs) {
  const auto& p = *static_cast<const Conv2dParams*>(raw);
  const Status status = validate_conv2d_operands(p, inputs, num_inputs, outputs, num_outputs);
  if (status != Status::kOk) return status;
  return is_conv2d_pointwise_case(p) ? validate_gemm_quant(p, inputs) : Status::kBadParams;
}

template <Rounding R>
TINYAOT_MODE_LOOP void multiply(const Conv2dParams& p, const WeightedOperands& o) {
  const int32_t depth = p.input_depth, channels = p.output_depth;
  const int32_t image_bytes = p.input_h * p.input_w * depth;
  const OutputRange range = output_range(p);
  if (p.stride_h == 1 && p.stride_w == 1 && p.output_h == p.input_h && p.output_w == p.input_w) {
    // Every input pixel in order: one run over all the batches.
    const GemmInput all = {o.input, 1, 0, p.batches * p.output_h * p.output_w, depth};
    gemm_rows<R>(all, depth, o.filter, o.quant, channels, range, o.output);
    return;
  }
  const int32_t output_bytes = p.output_h * p.output_w * channels;
  for (int32_t b = 0; b < p.batches; ++b) {
    const GemmInput image = {o.input + b * image_bytes, p.output_h, p.stride_h * p.input_w * depth,
                             p.output_w, p.stride_w * depth};
    gemm_rows<R>(image, depth, o.filter, o.quant, channels, range, o.output + b * output_bytes);
  }
}

Status run(const KernelArgs& args) {
  const WeightedOperands o = weighted_operands(args);
  with_any_rounding(args.rounding, [&](auto mode) {
    multiply<decltype(mode)::value>(*static_cast<const Conv2dParams*>(args.params), o);
  });
  return Status::kOk;
}

}  // namespace

const KernelDescriptor kernel_conv2d_s8_1x1_mve = {
    "conv2d_s8_1x1_mve",
    "conv2d",
    1,
    sizeof(Conv2dParams),
    3,
    3,
    1,
    IsaClass::kMve,
    "input:s8[batches,input_h,input_w,input_depth], "
    "filter:s8[output_depth,1,1,input_depth](row quads interleaved by 16), "
    "quant:ChannelQuant[output_depth]{bias+=input_offset*sum(filter[o])} "
    "-> output:s8[batches,output_h,output_w,output_depth]; " TINYAOT_CONV2D_PARAMS_SIGNATURE
    "; case=1x1,any stride,nopad,inside",
    run,
    validate,
    nullptr,
};

}  // namespace tinyaot
