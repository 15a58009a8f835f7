// Reference TRANSPOSE_CONV 16x8: TFLite Micro's scatter-then-requantize
// kernel for int16 activations and int8 weights, accumulating in the bias's
// width (kernels/common/int16x8.h) into a scratch of the whole output.
#include "kernels/common/int16x8.h"
#include "kernels/transpose_conv/transpose_conv.h"
#include "kernels/transpose_conv/transpose_conv_checks.h"

namespace tinyaot {
namespace {

TINYAOT_LOAD_TIME Status validate(const void* raw, const OperandView* inputs, uint32_t num_inputs,
                                  const OperandView* outputs, uint32_t num_outputs) {
  const auto& p = *static_cast<const TransposeConvParams*>(raw);
  if (num_inputs < 3 || num_outputs != 1) return Status::kBadParams;
  const TransposeConvSizes sizes = transpose_conv_sizes(p);
  if (sizes.input < 0 || sizes.filter < 0 || sizes.output < 0 ||
      transpose_conv_s16_ref_scratch_bytes(p) == UINT32_MAX)
    return Status::kBadParams;
  if (inputs[0].bytes != sizes.input * 2 || inputs[1].bytes != sizes.filter ||
      !is_channel_quant_operand(inputs[2], p.output_depth) || outputs[0].bytes != sizes.output * 2)
    return Status::kBadParams;
  if (p.stride_h < 1 || p.stride_w < 1 || p.pad_top < 0 || p.pad_left < 0)
    return Status::kBadParams;
  return is_int16x8_operation(p, inputs, num_inputs, p.output_depth) ? Status::kOk
                                                                     : Status::kBadParams;
}

uint32_t scratch_bytes(const void* raw) {
  return transpose_conv_s16_ref_scratch_bytes(*static_cast<const TransposeConvParams*>(raw));
}

// The scratch holds an Acc per output element (int64 slots; an int32
// accumulator uses the first half).
template <Rounding R, typename Acc>
TINYAOT_MODE_LOOP void transpose_convolve(const TransposeConvParams& p, const Int16x8Operands& o,
                                          Acc* acc) {
  const int32_t total = p.batches * p.output_h * p.output_w * p.output_depth;
  for (int32_t i = 0; i < total; ++i) acc[i] = 0;
  for (int32_t b = 0; b < p.batches; ++b) {
    for (int32_t in_y = 0; in_y < p.input_h; ++in_y) {
      // 64-bit: stride * position may exceed int32 for absurd (valid) strides.
      const int64_t origin_y = int64_t{in_y} * p.stride_h - p.pad_top;
      for (int32_t in_x = 0; in_x < p.input_w; ++in_x) {
        const int64_t origin_x = int64_t{in_x} * p.stride_w - p.pad_left;
        const int16_t* pixel =
            o.input + ((b * p.input_h + in_y) * p.input_w + in_x) * p.input_depth;
        for (int32_t f_y = 0; f_y < p.filter_h; ++f_y) {
          const int64_t out_y = origin_y + f_y;
          if (out_y < 0 || out_y >= p.output_h) continue;
          for (int32_t f_x = 0; f_x < p.filter_w; ++f_x) {
            const int64_t out_x = origin_x + f_x;
            if (out_x < 0 || out_x >= p.output_w) continue;
            Acc* target = acc + ((b * p.output_h + static_cast<int32_t>(out_y)) * p.output_w +
                                 static_cast<int32_t>(out_x)) *
                                    p.output_depth;
            for (int32_t oc = 0; oc < p.output_depth; ++oc) {
              const int8_t* weights =
                  o.filter + ((oc * p.filter_h + f_y) * p.filter_w + f_x) * p.input_depth;
              Acc sum = 0;
              for (int32_t ic = 0; ic < p.input_depth; ++ic)
                sum = accumulate(sum, pixel[ic], weights[ic]);
              target[oc] = accumulate(target[oc], sum, 1);
            }
          }
        }
      }
    }
  }
  for (int32_t i = 0; i < total; ++i)
    o.output[i] = int16x8_output_step<R>(acc[i], i % p.output_depth, o, p);
}

Status run(const KernelArgs& args) {
  const auto& p = *static_cast<const TransposeConvParams*>(args.params);
  if (args.scratch.data == nullptr || args.scratch.bytes < transpose_conv_s16_ref_scratch_bytes(p))
    return Status::kBadArgument;
  const Int16x8Operands o = int16x8_operands(args);
  with_int16x8_accumulator(args, o, [&](auto mode, auto accumulator) {
    using Acc = typename decltype(accumulator)::type;
    transpose_convolve<decltype(mode)::value>(p, o, static_cast<Acc*>(args.scratch.data));
  });
  return Status::kOk;
}

}  // namespace

uint32_t transpose_conv_s16_ref_scratch_bytes(const TransposeConvParams& params) {
  const int64_t elements = transpose_conv_sizes(params).output;
  // Sizes stay within int32 bytes.
  if (elements < 0 || elements > int64_t{INT32_MAX} / 8) return UINT32_MAX;
  return static_cast<uint32_t>(elements * 8);
}

const KernelDescriptor kernel_transpose_conv_s16_ref = {
    "transpose_conv_s16_ref",
    "transpose_conv_s16",
    1,
    sizeof(TransposeConvParams),
    3,
    4,
    1,
    IsaClass::kScalar,
    "input:s16[batches,input_h,input_w,input_depth], "
    "filter:s8[output_depth,filter_h,filter_w,input_depth], "
    "quant:ChannelQuant[output_depth], wide_bias:s64[output_depth]? -> "
    "output:s16[batches,output_h,output_w,output_depth]; "
    "scratch:s64[batches,output_h,output_w,output_depth]; "
    "params=TransposeConvParams{batches,input_h,input_w,input_depth,filter_h,filter_w,output_h,"
    "output_w,output_depth,stride_h,stride_w,pad_top,pad_left,input_offset,output_offset,act_min,"
    "act_max}",
    run,
    validate,
    scratch_bytes,
};

}  // namespace tinyaot
