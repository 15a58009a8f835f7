// Reference TRANSPOSE_CONV: TFLite Micro's scatter-then-requantize integer
// semantics. Sums are order-independent under two's-complement wrapping, so
// the loop nest is free to gather each filter tap's input-channel sum first.
#include "kernels/common/output_step.h"
#include "kernels/common/quant.h"
#include "kernels/common/validate.h"
#include "kernels/transpose_conv/transpose_conv.h"
#include "kernels/transpose_conv/transpose_conv_checks.h"
#include "tinyaot/load_time.h"

namespace tinyaot {
namespace {

int64_t output_elements(const TransposeConvParams& p) {
  const int32_t dims[] = {p.batches, p.output_h, p.output_w, p.output_depth};
  return checked_elements(dims, 4);
}

TINYAOT_LOAD_TIME Status validate(const void* raw, const OperandView* inputs, uint32_t num_inputs,
                                  const OperandView* outputs, uint32_t num_outputs) {
  const auto& p = *static_cast<const TransposeConvParams*>(raw);
  if (num_inputs != 3 || num_outputs != 1) return Status::kBadParams;
  const TransposeConvSizes sizes = transpose_conv_sizes(p);
  int64_t scratch_size;
  if (sizes.input < 0 || sizes.filter < 0 || sizes.output < 0 ||
      !checked_mul(sizes.output, sizeof(int32_t), &scratch_size))
    return Status::kBadParams;
  if (inputs[0].bytes != sizes.input || inputs[1].bytes != sizes.filter ||
      !is_channel_quant_operand(inputs[2], p.output_depth) || outputs[0].bytes != sizes.output)
    return Status::kBadParams;
  return is_transpose_conv_params(p) ? Status::kOk : Status::kBadParams;
}

uint32_t scratch_bytes(const void* raw) {
  return transpose_conv_s8_ref_scratch_bytes(*static_cast<const TransposeConvParams*>(raw));
}

Status run(const KernelArgs& args) {
  const auto& p = *static_cast<const TransposeConvParams*>(args.params);
  const uint32_t need = transpose_conv_s8_ref_scratch_bytes(p);
  if (args.scratch.data == nullptr || args.scratch.bytes < need) return Status::kBadArgument;
  // Scratch is word-aligned (the loader), as the int32 accumulator needs.
  const auto* input = static_cast<const int8_t*>(args.inputs[0].data);
  const auto* filter = static_cast<const int8_t*>(args.inputs[1].data);
  const auto* quant = static_cast<const ChannelQuant*>(args.inputs[2].data);
  auto* output = static_cast<int8_t*>(args.outputs[0].data);
  auto* acc = static_cast<int32_t*>(args.scratch.data);

  const int32_t total = static_cast<int32_t>(output_elements(p));
  for (int32_t i = 0; i < total; ++i) acc[i] = 0;

  for (int32_t b = 0; b < p.batches; ++b) {
    for (int32_t in_y = 0; in_y < p.input_h; ++in_y) {
      // 64-bit: stride * position may exceed int32 for absurd (valid) strides.
      const int64_t origin_y = int64_t{in_y} * p.stride_h - p.pad_top;
      for (int32_t in_x = 0; in_x < p.input_w; ++in_x) {
        const int64_t origin_x = int64_t{in_x} * p.stride_w - p.pad_left;
        const int8_t* pixel = input + ((b * p.input_h + in_y) * p.input_w + in_x) * p.input_depth;
        for (int32_t f_y = 0; f_y < p.filter_h; ++f_y) {
          const int64_t out_y = origin_y + f_y;
          if (out_y < 0 || out_y >= p.output_h) continue;
          for (int32_t f_x = 0; f_x < p.filter_w; ++f_x) {
            const int64_t out_x = origin_x + f_x;
            if (out_x < 0 || out_x >= p.output_w) continue;
            int32_t* target = acc + ((b * p.output_h + static_cast<int32_t>(out_y)) * p.output_w +
                                     static_cast<int32_t>(out_x)) *
                                        p.output_depth;
            for (int32_t oc = 0; oc < p.output_depth; ++oc) {
              const int8_t* weights =
                  filter + ((oc * p.filter_h + f_y) * p.filter_w + f_x) * p.input_depth;
              int32_t sum = 0;
              for (int32_t ic = 0; ic < p.input_depth; ++ic)
                sum = wrapping_add(sum, (pixel[ic] + p.input_offset) * weights[ic]);
              target[oc] = wrapping_add(target[oc], sum);
            }
          }
        }
      }
    }
  }

  with_any_rounding(args.rounding, [&](auto mode) {
    for (int32_t i = 0; i < total; ++i)
      output[i] = output_step<decltype(mode)::value>(acc[i], quant[i % p.output_depth], p);
  });
  return Status::kOk;
}

}  // namespace

uint32_t transpose_conv_s8_ref_scratch_bytes(const TransposeConvParams& params) {
  const int64_t elements = output_elements(params);
  // Same bound as validate(): sizes stay within int32.
  if (elements < 0 || elements > int64_t{INT32_MAX} / 4) return UINT32_MAX;
  return static_cast<uint32_t>(elements * 4);
}

const KernelDescriptor kernel_transpose_conv_s8_ref = {
    "transpose_conv_s8_ref",
    "transpose_conv",
    1,
    sizeof(TransposeConvParams),
    3,
    3,
    1,
    IsaClass::kScalar,
    "input:s8[batches,input_h,input_w,input_depth], "
    "filter:s8[output_depth,filter_h,filter_w,input_depth], "
    "quant:ChannelQuant[output_depth] -> output:s8[batches,output_h,output_w,output_depth]; "
    "scratch:s32[batches,output_h,output_w,output_depth]; "
    "params=TransposeConvParams{batches,input_h,input_w,input_depth,filter_h,filter_w,output_h,"
    "output_w,output_depth,stride_h,stride_w,pad_top,pad_left,input_offset,output_offset,act_min,"
    "act_max}",
    run,
    validate,
    scratch_bytes,
};

}  // namespace tinyaot
