// The pixel loop of depthwise_conv2d_s8_dsp_3x3 in assembly
// (depthwise_dsp_pixels.S, DSP cores only): one block of four channels,
// a run of output pixels down one column whose windows are `rows` x `cols`
// taps of a filter 3 taps wide. Per pixel: the sums start at the biases,
// 8 instructions a tap (the input word, one LDRD of the tap's widened
// weight pairs, two SXTAB16 adding the input offset, four SMLAxy), then
// the four output steps of quant.h's usual case (or, in mode onnx on a
// core with an FPU, onnx_requantize.h's float32 step), the packed clamp of
// output_step.h's clamp_pack4 and one word store.
//
// In assembly because the window needs 12 registers at once (four sums,
// the input, weight and column pointers, the offset, four temporaries):
// inline, a compiler that reserves r7 (frame pointer: -O0,
// -fno-omit-frame-pointer) or r9 (-ffixed-r9) cannot give them. The loop
// uses neither r7 nor r9, and saves the callee-saved registers it uses.
//
// The offsets below are the one description of DepthwisePixelRun that both
// the assembly and the C++ (static_asserts) read.
#pragma once

#include "kernels/common/fpu.h"  // TINYAOT_FPU_F32: the assembly reads it too

#define TINYAOT_DW_PIXELS_X 20         // const int8_t* x
#define TINYAOT_DW_PIXELS_CHANNELS 32  // DepthwisePixelSteps channels
#define TINYAOT_DW_PIXELS_OUTPUT 96    // output_offset, act_min4, act_max4, out, out_step, out_end
#define TINYAOT_DW_PIXELS_OUT 108      // int8_t* out
#define TINYAOT_DW_PIXELS_X_ADVANCE 120  // int32_t x_advance
#define TINYAOT_DW_PIXELS_ROW_STEP 124   // int32_t row_step

#if !defined(__ASSEMBLER__) && defined(__ARM_FEATURE_DSP) && __ARM_FEATURE_DSP
#include <stddef.h>
#include <stdint.h>

#include "kernels/common/quant.h"

namespace tinyaot {

// One output channel's requantization constants as the loop's step takes
// them (requantize_detail::right_shift_by_rounding, with the shift's
// complement and, in single rounding, the words of its constant k ready):
//   double: multiplier, rounding term 2^(s-1), unused, s - 1;
//   single: multiplier, k's low word, k's high word, s - 1.
struct DepthwisePixelChannel {
  int32_t multiplier;
  uint32_t c1, c2;
  int32_t shift_right_minus_1;
};

// The four channels' step constants: in TFLite's modes one
// DepthwisePixelChannel each; in mode onnx the four float32 multipliers'
// bits (ChannelQuant::multiplier) side by side, one VLDM for the four
// steps. The same 64 bytes either way, so the fields after them keep
// their offsets.
union DepthwisePixelSteps {
  DepthwisePixelChannel channel[4];
  uint32_t onnx_multiplier[4];
};

// The steps of the block of four channels from q[0].
template <Rounding R>
inline DepthwisePixelSteps depthwise_pixel_steps(const ChannelQuant* q) {
  DepthwisePixelSteps steps;
  if constexpr (R == Rounding::kOnnx) {
    for (int j = 0; j < 4; ++j) steps.onnx_multiplier[j] = static_cast<uint32_t>(q[j].multiplier);
  } else {
    for (int j = 0; j < 4; ++j) {
      const uint32_t rounding = static_cast<uint32_t>(requantize_detail::rounding_term(q[j].shift));
      steps.channel[j] =
          R == Rounding::kDouble
              ? DepthwisePixelChannel{q[j].multiplier, rounding, 0, ~q[j].shift}
              : DepthwisePixelChannel{q[j].multiplier, rounding << 31, rounding >> 1, ~q[j].shift};
    }
  }
  return steps;
}

// A run for the loop: the words up to `channels` are what each pixel
// reloads (one LDMDB), the rest what its output step reads. The loop
// advances x and out; out_end is an address (one past the last pixel's
// outputs), compared, never dereferenced.
struct DepthwisePixelRun {
  uint32_t bias[4];   // the sums' start: the block's four biases
  const uint32_t* w;  // widened weights at the window's first tap
  const int8_t* x;    // the next pixel's first tap, input channel c0
  int32_t col_step;   // input bytes to the next tap in a row
  uint32_t offset2;   // the input offset in both int16 halves
  DepthwisePixelSteps channels;
  int32_t output_offset;
  uint32_t act_min4, act_max4;  // the bounds in every byte (PackedRange)
  int8_t* out;                  // the next pixel's four outputs
  int32_t out_step;             // output bytes to the next pixel
  uintptr_t out_end;
  int32_t x_advance;  // input bytes from a window's last row to the next pixel's first
  int32_t row_step;   // input bytes to the next row of taps
};
static_assert(offsetof(DepthwisePixelRun, x) == TINYAOT_DW_PIXELS_X, "");
static_assert(offsetof(DepthwisePixelRun, channels) == TINYAOT_DW_PIXELS_CHANNELS, "");
static_assert(offsetof(DepthwisePixelRun, output_offset) == TINYAOT_DW_PIXELS_OUTPUT, "");
static_assert(offsetof(DepthwisePixelRun, out) == TINYAOT_DW_PIXELS_OUT, "");
static_assert(offsetof(DepthwisePixelRun, x_advance) == TINYAOT_DW_PIXELS_X_ADVANCE, "");
static_assert(offsetof(DepthwisePixelRun, row_step) == TINYAOT_DW_PIXELS_ROW_STEP, "");

// Every pixel of the run (at least one), rows x cols taps each.
using DepthwisePixelsFn = void (*)(DepthwisePixelRun* run);

extern "C" {
void tinyaot_depthwise_dsp_pixels_2x2_double(DepthwisePixelRun* run);
void tinyaot_depthwise_dsp_pixels_2x3_double(DepthwisePixelRun* run);
void tinyaot_depthwise_dsp_pixels_3x2_double(DepthwisePixelRun* run);
void tinyaot_depthwise_dsp_pixels_3x3_double(DepthwisePixelRun* run);
void tinyaot_depthwise_dsp_pixels_2x2_single(DepthwisePixelRun* run);
void tinyaot_depthwise_dsp_pixels_2x3_single(DepthwisePixelRun* run);
void tinyaot_depthwise_dsp_pixels_3x2_single(DepthwisePixelRun* run);
void tinyaot_depthwise_dsp_pixels_3x3_single(DepthwisePixelRun* run);
#if defined(TINYAOT_FPU_F32)
void tinyaot_depthwise_dsp_pixels_2x2_onnx(DepthwisePixelRun* run);
void tinyaot_depthwise_dsp_pixels_2x3_onnx(DepthwisePixelRun* run);
void tinyaot_depthwise_dsp_pixels_3x2_onnx(DepthwisePixelRun* run);
void tinyaot_depthwise_dsp_pixels_3x3_onnx(DepthwisePixelRun* run);
#endif
}

// Whether mode R has the loops: TFLite's modes always, mode onnx with an
// FPU (without one, the kernel takes its C++ loops, whose step is the
// integer emulation).
#if defined(TINYAOT_FPU_F32)
constexpr bool kOnnxDepthwisePixels = true;
#else
constexpr bool kOnnxDepthwisePixels = false;
#endif
template <Rounding R>
constexpr bool kHasDepthwisePixels = R != Rounding::kOnnx || kOnnxDepthwisePixels;

// The loop for windows of `rows` x `cols` taps (2 or 3 each) in mode R
// (kHasDepthwisePixels<R>).
template <Rounding R>
inline DepthwisePixelsFn depthwise_pixels_fn(int32_t rows, int32_t cols) {
  if constexpr (R == Rounding::kDouble) {
    if (rows == 3)
      return cols == 3 ? tinyaot_depthwise_dsp_pixels_3x3_double
                       : tinyaot_depthwise_dsp_pixels_3x2_double;
    return cols == 3 ? tinyaot_depthwise_dsp_pixels_2x3_double
                     : tinyaot_depthwise_dsp_pixels_2x2_double;
  } else if constexpr (R == Rounding::kSingle) {
    if (rows == 3)
      return cols == 3 ? tinyaot_depthwise_dsp_pixels_3x3_single
                       : tinyaot_depthwise_dsp_pixels_3x2_single;
    return cols == 3 ? tinyaot_depthwise_dsp_pixels_2x3_single
                     : tinyaot_depthwise_dsp_pixels_2x2_single;
  } else {
    static_assert(kHasDepthwisePixels<R>, "no onnx pixel loops without an FPU");
#if defined(TINYAOT_FPU_F32)
    if (rows == 3)
      return cols == 3 ? tinyaot_depthwise_dsp_pixels_3x3_onnx
                       : tinyaot_depthwise_dsp_pixels_3x2_onnx;
    return cols == 3 ? tinyaot_depthwise_dsp_pixels_2x3_onnx
                     : tinyaot_depthwise_dsp_pixels_2x2_onnx;
#else
    return nullptr;
#endif
  }
}

}  // namespace tinyaot
#endif
