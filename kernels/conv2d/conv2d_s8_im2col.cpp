// CONV_2D on every core, best where the input has few channels (a
// network's first layer: 1-3 channels and a wide window): two output
// pixels at a time, each window copied into scratch as one int8 column of
// filter_h * filter_w * input_depth values, so that the whole window is one
// segment of the 2x2 blocks (conv2d_gemm.h) instead of a short one per
// tap. The copy goes filter row by filter row (conv2d_fill_window: at most
// three runs a row, whole words), and a window that is already one run of
// input bytes of whole words (a strided 1x1 or 1xN window) is read where it
// lies, with no scratch at all when every window is. A tap outside the
// input is stored as the zero point, which contributes nothing since the
// compiler folds input_offset * (sum of the channel's weights) into the
// bias; the weights of channel pairs are interleaved by the compiler.
#include "kernels/common/output_step.h"
#include "kernels/common/quant.h"
#include "kernels/common/weighted_operands.h"
#include "kernels/conv2d/conv2d.h"
#include "kernels/conv2d/conv2d_cases.h"
#include "kernels/conv2d/conv2d_gemm.h"
#include "tinyaot/load_time.h"

namespace tinyaot {
namespace {

constexpr int32_t kColumns = 2;

// Every window a run of input bytes inside the input: no column is copied.
bool reads_input_only(const Conv2dParams& p) {
  return is_conv2d_run_window(p) && conv2d_windows_inside(p);
}

TINYAOT_SETUP uint32_t scratch_bytes(const void* raw) {
  const auto& p = *static_cast<const Conv2dParams*>(raw);
  const int64_t column = conv2d_column_length(p);
  if (column < 1 || column > kMaxIm2colColumn) return 0;  // validate refuses these
  if (reads_input_only(p)) return 0;
  return static_cast<uint32_t>(kColumns * conv2d_padded_column(p));
}

// The family's checks on the model's weight count, then the padded
// layout's size (conv2d_weight_bytes).
TINYAOT_LOAD_TIME Status validate(const void* raw, const OperandView* inputs, uint32_t num_inputs,
                                  const OperandView* outputs, uint32_t num_outputs) {
  const auto& p = *static_cast<const Conv2dParams*>(raw);
  if (num_inputs != 3 || !is_conv2d_im2col_case(p)) return Status::kBadParams;
  if (inputs[1].bytes != conv2d_weight_bytes(&kernel_conv2d_s8_im2col, p))
    return Status::kBadParams;
  const int64_t model_bytes = conv2d_column_length(p) * p.output_depth;
  if (model_bytes > UINT32_MAX) return Status::kBadParams;
  const OperandView as_model[3] = {
      inputs[0], {inputs[1].constant, static_cast<uint32_t>(model_bytes)}, inputs[2]};
  const Status status = validate_conv2d_im2col(raw, as_model, num_inputs, outputs, num_outputs);
  return status != Status::kOk ? status : validate_gemm_quant(p, inputs);
}

// The padded column of the window at `w`: where the window is a run of
// the input inside it, the input itself; otherwise its im2col copy in
// `column`. The column's padding is never written: it meets zero weights.
// Out of line: inlined into the blocks' loop it costs them registers.
__attribute__((noinline)) const int8_t* window_values(const Conv2dWindowCopy& c, bool runs,
                                                      const Conv2dWindowCursor& w, int8_t* column) {
  if (runs && w.y >= 0 && w.x >= 0 && w.y <= c.y_last && w.x <= c.x_last)
    return w.image + w.y * c.row_bytes + w.x * c.depth;
  conv2d_fill_window(c, w, column);
  return column;
}

template <Rounding R>
TINYAOT_MODE_LOOP void convolve(const Conv2dParams& p, const WeightedOperands& o, int8_t* first) {
  const int32_t padded = static_cast<int32_t>(conv2d_padded_column(p));
  // No scratch when every window is read in place (reads_input_only).
  int8_t* const second = first != nullptr ? first + padded : nullptr;
  const Conv2dWindowCopy copy = conv2d_window_copy(p);
  const bool runs = is_conv2d_run_window(p);
  const int32_t pixels = p.batches * p.output_h * p.output_w;
  Conv2dWindowCursor cursor = Conv2dWindowCursor::first(p, o.input);
  int8_t* out = o.output;
  int32_t pixel = 0;
  for (; pixel + 1 < pixels; pixel += kColumns, out += kColumns * p.output_depth) {
    const int8_t* const a = window_values(copy, runs, cursor, first);
    cursor.advance(p);
    const int8_t* const b = window_values(copy, runs, cursor, second);
    cursor.advance(p);
    const auto walk = [a, b, padded](auto&& segment) { segment(a, b, padded); };
    conv2d_gemm_two_pixels<R>(p, walk, o.filter, o.quant, out, out + p.output_depth);
  }
  if (pixel < pixels) {
    const int8_t* const a = window_values(copy, runs, cursor, first);
    const auto walk = [a, padded](auto&& segment) { segment(a, a, padded); };
    conv2d_gemm_one_pixel<R>(p, walk, o.filter, o.quant, out);
  }
}

Status run(const KernelArgs& args) {
  const auto& p = *static_cast<const Conv2dParams*>(args.params);
  const uint32_t need = scratch_bytes(&p);
  if ((need != 0 && args.scratch.data == nullptr) || args.scratch.bytes < need)
    return Status::kScratchMismatch;
  const WeightedOperands o = weighted_operands(args);
  auto* const columns = need != 0 ? static_cast<int8_t*>(args.scratch.data) : nullptr;
  with_any_rounding(args.rounding,
                    [&](auto mode) { convolve<decltype(mode)::value>(p, o, columns); });
  return Status::kOk;
}

}  // namespace

const KernelDescriptor kernel_conv2d_s8_im2col = {
    "conv2d_s8_im2col",
    "conv2d",
    3,
    sizeof(Conv2dParams),
    3,
    3,
    1,
    IsaClass::kScalar,
    "input:s8[batches,input_h,input_w,input_depth], "
    "filter:s8[output_depth,filter_h,filter_w,input_depth](rows padded with zeros to whole 4s, "
    "row pairs interleaved by 4), "
    "quant:ChannelQuant[output_depth](bias+input_offset*row_sum) "
    "-> output:s8[batches,output_h,output_w,output_depth]; "
    "scratch=s8[2,filter_h*filter_w*input_depth rounded up to 4](none when every window is one "
    "row of whole 4s inside the input); " TINYAOT_CONV2D_PARAMS_SIGNATURE,
    run,
    validate,
    scratch_bytes,
};

}  // namespace tinyaot
