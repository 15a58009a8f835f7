// CONV_2D for MVE cores: four output pixels at a time, each window copied
// into scratch as an int8 column of raw input values, then every filter
// row is multiplied with the four columns. The input offset is not added
// per tap: the compiler folded input_offset * sum(filter[o]) into each
// channel's bias (kernels/common/kernel_sums.h). A tap outside the input is
// stored as the input zero point (-input_offset), whose product with the
// folded term cancels exactly as the reference's skipped tap.
#include "kernels/common/dot_s8.h"
#include "kernels/common/output_step.h"
#include "kernels/common/quant.h"
#include "kernels/common/weighted_operands.h"
#include "kernels/conv2d/conv2d.h"
#include "kernels/conv2d/conv2d_cases.h"

namespace tinyaot {
namespace {

constexpr int32_t kColumns = 4;

uint32_t scratch_bytes(const void* raw) {
  const int64_t column = conv2d_column_length(*static_cast<const Conv2dParams*>(raw));
  if (column < 1 || column > kMaxIm2colColumn) return 0;  // validate refuses these
  // Whole 16-byte vectors, so a tail load of the last column stays inside.
  return static_cast<uint32_t>((kColumns * column + 15) / 16 * 16);
}

// Raw int8 values; a tap outside the input is the input zero point, whose
// product cancels against the folded bias term (validate keeps
// input_offset in [-127, 128], so the zero point is int8).
void fill_column(const Conv2dParams& p, const int8_t* input, int32_t pixel, int8_t* column) {
  conv2d_fill_column(p, input, pixel, column);
}

template <Rounding R>
TINYAOT_MODE_LOOP void convolve(const Conv2dParams& p, const int8_t* input, const int8_t* filter,
                                const ChannelQuant* quant, int8_t* columns, int8_t* output) {
  const int32_t length = static_cast<int32_t>(conv2d_column_length(p));
  const int32_t pixels = p.batches * p.output_h * p.output_w;
  for (int32_t pixel = 0; pixel < pixels; pixel += kColumns) {
    const int32_t count = pixels - pixel < kColumns ? pixels - pixel : kColumns;
    for (int32_t j = 0; j < count; ++j) fill_column(p, input, pixel + j, columns + j * length);
    int8_t* out = output + pixel * p.output_depth;
    const int8_t* weights = filter;
    for (int32_t o = 0; o < p.output_depth; ++o, weights += length) {
      uint32_t acc[kColumns] = {0, 0, 0, 0};
      if (count == kColumns) {
        dot_s8_four(weights, columns, length, acc);
      } else {
        for (int32_t k = 0; k < length; ++k) {
          const int32_t w = weights[k];
          for (int32_t j = 0; j < count; ++j)
            acc[j] += static_cast<uint32_t>(columns[j * length + k] * w);
        }
      }
      for (int32_t j = 0; j < count; ++j)
        out[j * p.output_depth + o] = output_step<R>(acc[j], quant[o], p);
    }
  }
}

Status run(const KernelArgs& args) {
  const auto& p = *static_cast<const Conv2dParams*>(args.params);
  const WeightedOperands o = weighted_operands(args);
  const uint32_t need = scratch_bytes(&p);
  if (args.scratch.data == nullptr || args.scratch.bytes < need) return Status::kScratchMismatch;
  int8_t* const columns = static_cast<int8_t*>(args.scratch.data);
  with_rounding(args.rounding, [&](auto mode) {
    convolve<decltype(mode)::value>(p, o.input, o.filter, o.quant, columns, o.output);
  });
  return Status::kOk;
}

}  // namespace

const KernelDescriptor kernel_conv2d_s8_im2col_mve = {
    "conv2d_s8_im2col_mve",
    "conv2d",
    1,
    sizeof(Conv2dParams),
    3,
    3,
    1,
    IsaClass::kMve,
    "input:s8[batches,input_h,input_w,input_depth], "
    "filter:s8[output_depth,filter_h,filter_w,input_depth], "
    "quant:ChannelQuant[output_depth]{bias+=input_offset*sum(filter[o])} "
    "-> output:s8[batches,output_h,output_w,output_depth]; "
    "scratch=s8[align16(4*filter_h*filter_w*input_depth)]; " TINYAOT_CONV2D_PARAMS_SIGNATURE,
    run,
    validate_conv2d_im2col,
    scratch_bytes,
};

}  // namespace tinyaot
