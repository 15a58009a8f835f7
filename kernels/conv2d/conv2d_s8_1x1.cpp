// Pointwise CONV_2D (1x1 filter, stride 1, no padding): each output pixel
// is the same input pixel times a [channels, depth] matrix, so the kernel
// is a GEMM with no window arithmetic, no bounds checks and no scratch. The
// compiler folds input_offset * (sum of each channel's weights) into the
// bias and interleaves the weights of channel pairs, so that two channels x
// two pixels accumulate in registers (conv2d_gemm.h).
#include "kernels/common/output_step.h"
#include "kernels/common/quant.h"
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
  return is_conv2d_1x1_case(p) ? validate_gemm_quant(p, inputs) : Status::kBadParams;
}

template <Rounding R>
TINYAOT_MODE_LOOP void multiply(const Conv2dParams& p, const WeightedOperands& o) {
  // The input offset's share is in the bias: each input pixel is a segment
  // as it stands, no copy.
  const int32_t depth = p.input_depth;
  const int32_t pixels = p.batches * p.output_h * p.output_w;
  const int8_t* in = o.input;
  int8_t* out = o.output;
  int32_t pixel = 0;
  for (; pixel + 1 < pixels; pixel += 2, in += 2 * depth, out += 2 * p.output_depth) {
    const auto walk = [in, depth](auto&& f) { f(in, in + depth, depth); };
    conv2d_gemm_two_pixels<R>(p, walk, o.filter, o.quant, out, out + p.output_depth);
  }
  if (pixel < pixels) {
    const auto walk = [in, depth](auto&& f) { f(in, in, depth); };
    conv2d_gemm_one_pixel<R>(p, walk, o.filter, o.quant, out);
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

const KernelDescriptor kernel_conv2d_s8_1x1 = {
    "conv2d_s8_1x1",
    "conv2d",
    2,
    sizeof(Conv2dParams),
    3,
    3,
    1,
    IsaClass::kScalar,
    "input:s8[batches,input_h,input_w,input_depth], "
    "filter:s8[output_depth,1,1,input_depth](row pairs interleaved by 4, segment input_depth), "
    "quant:ChannelQuant[output_depth](bias+input_offset*row_sum) "
    "-> output:s8[batches,input_h,input_w,output_depth]; " TINYAOT_CONV2D_PARAMS_SIGNATURE
    "; case=1x1,stride1,nopad",
    run,
    validate,
    nullptr,
};

}  // namespace tinyaot
