// CONV_2D for DSP cores (CMSIS-NN's layout): two output pixels at a time,
// each window is copied into scratch as an int16 column of
// filter_h * filter_w * input_depth values (input + input_offset), then
// every filter row is multiplied with both columns. A tap outside the input
// is stored as 0, which is what the reference's skipped tap contributes
// (zero point + offset), so the multiply loop has no branches.
#include "kernels/common/output_step.h"
#include "kernels/common/quant.h"
#include "kernels/common/weighted_operands.h"
#include "kernels/conv2d/conv2d.h"
#include "kernels/conv2d/conv2d_cases.h"

namespace tinyaot {
namespace {

constexpr int32_t kColumns = 2;

uint32_t scratch_bytes(const void* raw) {
  const int64_t column = conv2d_column_length(*static_cast<const Conv2dParams*>(raw));
  if (column < 1 || column > kMaxIm2colColumn) return 0;  // validate refuses these
  return static_cast<uint32_t>(kColumns * column * int64_t{sizeof(int16_t)});
}

// A tap outside the input contributes 0; inside, input + input_offset
// widened to int16, one value at a time.
void fill_column(const Conv2dParams& p, const int8_t* input, int32_t pixel, int16_t* column) {
  conv2d_fill_column<int16_t>(p, input, pixel, column, 0,
                              [&](int8_t x) { return static_cast<int16_t>(x + p.input_offset); });
}

Status run(const KernelArgs& args) {
  const auto& p = *static_cast<const Conv2dParams*>(args.params);
  const WeightedOperands o = weighted_operands(args);
  const uint32_t need = scratch_bytes(&p);
  if (args.scratch.data == nullptr || args.scratch.bytes < need) return Status::kScratchMismatch;

  const int32_t length = static_cast<int32_t>(conv2d_column_length(p));
  int16_t* const first = static_cast<int16_t*>(args.scratch.data);
  int16_t* const second = first + length;
  const int32_t pixels = p.batches * p.output_h * p.output_w;
  with_rounding(args.rounding, [&](auto mode) {
    constexpr Rounding R = decltype(mode)::value;
    int32_t pixel = 0;
    for (; pixel + 1 < pixels; pixel += kColumns) {
      fill_column(p, o.input, pixel, first);
      fill_column(p, o.input, pixel + 1, second);
      conv2d_multiply_columns<R, int16_t>(p, first, second, length, o.filter, o.quant,
                                          o.output + pixel * p.output_depth);
    }
    if (pixel < pixels) {
      fill_column(p, o.input, pixel, first);
      conv2d_multiply_columns<R, int16_t>(p, first, nullptr, length, o.filter, o.quant,
                                          o.output + pixel * p.output_depth);
    }
  });
  return Status::kOk;
}

}  // namespace

const KernelDescriptor kernel_conv2d_s8_im2col_dsp = {
    "conv2d_s8_im2col_dsp",
    "conv2d",
    1,
    sizeof(Conv2dParams),
    3,
    3,
    1,
    IsaClass::kDsp,
    "input:s8[batches,input_h,input_w,input_depth], "
    "filter:s8[output_depth,filter_h,filter_w,input_depth], "
    "quant:ChannelQuant[output_depth] -> output:s8[batches,output_h,output_w,output_depth]; "
    "scratch=s16[2,filter_h*filter_w*input_depth]; "
    "params=Conv2dParams{batches,input_h,input_w,input_depth,filter_h,filter_w,filter_depth,"
    "output_h,output_w,output_depth,stride_h,stride_w,dilation_h,dilation_w,pad_top,pad_left,"
    "input_offset,output_offset,act_min,act_max}",
    run,
    validate_conv2d_im2col,
    scratch_bytes,
};

}  // namespace tinyaot
