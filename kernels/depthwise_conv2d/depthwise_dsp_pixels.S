/* The pixel loops of depthwise_conv2d_s8_dsp_3x3 (depthwise_dsp_pixels.h):
 * void tinyaot_depthwise_dsp_pixels_<rows>x<cols>_<double|single>(
 *     DepthwisePixelRun* run)
 * for windows of 2 or 3 rows of 2 or 3 taps of a filter 3 taps wide, in
 * either of TFLite's rounding modes, and _onnx in mode onnx on cores with
 * an FPU (TINYAOT_FPU_F32). Unified syntax, for GNU as and clang's
 * integrated assembler alike; empty on cores without the DSP extension. */
#include "depthwise_dsp_pixels.h"

#if defined(__ARM_FEATURE_DSP) && __ARM_FEATURE_DSP

    .syntax unified
    .thumb

/* The window's registers. r7 and r9 stay untouched: a build may reserve
 * them (frame pointer, platform register). */
sum0    .req r0
sum1    .req r1
sum2    .req r2
sum3    .req r3
weights .req r4     /* widened weight pairs, one tap (8 bytes) after another */
input   .req r5     /* the current row's first tap */
column  .req r6     /* input bytes to the next tap in a row */
offset2 .req r8     /* the input offset in both halves */
word    .req r10    /* four input channels of a tap */
w02     .req r11    /* the tap's weights of channels 0 and 2 */
w13     .req r12    /* and of channels 1 and 3 */
half    .req lr     /* channels (0, 2) or (1, 3) of `word`, offset added */

/* The stack frame below the saved registers: the run's channel constants
 * (its pointer + TINYAOT_DW_PIXELS_CHANNELS) and the row step. */
#define FRAME_CHANNELS 0
#define FRAME_ROW_STEP 4
#define FRAME_BYTES 8

/* Tap `tap` (0, 1, 2) of the current row. */
.macro TAP tap
  .if \tap == 0
    ldr word, [input]
  .elseif \tap == 1
    ldr word, [input, column]
  .else
    ldr word, [input, column, lsl #1]
  .endif
    ldrd w02, w13, [weights], #8
    sxtab16 half, offset2, word
    smlabb sum0, half, w02, sum0
    smlatt sum2, half, w02, sum2
    sxtab16 half, offset2, word, ror #8
    smlabb sum1, half, w13, sum1
    smlatt sum3, half, w13, sum3
.endm

/* A row of `cols` taps; `last` is 1 on the window's last row. A row of 2
 * taps is the filter's first or last two: its third weight pair is
 * skipped (a window's columns start at its first tap). */
.macro ROW cols, last
    TAP 0
    TAP 1
  .if \cols == 3
    TAP 2
  .elseif \last == 0
    add weights, weights, #8
  .endif
  .if \last == 0
    ldr word, [sp, #FRAME_ROW_STEP]
    add input, input, word
  .endif
.endm

/* The output step of one channel, its sum in `sum`: quant.h's
 * right_shift_by_rounding. Constants (DepthwisePixelChannel) by an LDM
 * that leaves lr at the next channel's; r12 holds 2^30. */
.macro STEP_DOUBLE sum
    ldmia lr!, {r4, r5, r6, r8}     /* multiplier, 2^(s-1), -, s - 1 */
    add r6, r5, \sum, asr #31       /* u = 2^(s-1) - [sum < 0] */
    orr r10, r12, r6, lsl #31       /* k low = u << 31 | 2^30 */
    lsr r6, r6, #1                  /* k high = u >> 1 */
    smlal r10, r6, \sum, r4
    asr \sum, r6, r8
.endm

.macro STEP_SINGLE sum
    ldmia lr!, {r4, r5, r6, r8}     /* multiplier, k low, k high, s - 1 */
    smlal r5, r6, \sum, r4
    asr \sum, r6, r8
.endm

/* Mode onnx's four steps, the sums in r0-r3: onnx_requantize.h's FPU
 * path, each sum converted to float32, times its channel's m (the four
 * side by side: DepthwisePixelSteps), rounded half to even by VCVTR (the
 * FPSCR's mode, never changed from reset's), saturating to int32. lr is
 * at the steps and ends at output_offset. The step's integer clamp to
 * [kOnnxStepMin, kOnnxStepMax] is left out: the offset is added
 * saturating (QADD, in PIXELS) and the value then saturated to int8,
 * which gives the same int8. s0-s7 are caller-saved. */
.macro STEPS_ONNX
    vmov s0, s1, r0, r1
    vmov s2, s3, r2, r3
    vldm lr, {s4-s7}
    add lr, lr, #(TINYAOT_DW_PIXELS_OUTPUT - TINYAOT_DW_PIXELS_CHANNELS)
    vcvt.f32.s32 s0, s0
    vcvt.f32.s32 s1, s1
    vcvt.f32.s32 s2, s2
    vcvt.f32.s32 s3, s3
    vmul.f32 s0, s0, s4
    vmul.f32 s1, s1, s5
    vmul.f32 s2, s2, s6
    vmul.f32 s3, s3, s7
    vcvtr.s32.f32 s0, s0
    vcvtr.s32.f32 s1, s1
    vcvtr.s32.f32 s2, s2
    vcvtr.s32.f32 s3, s3
    vmov r0, r1, s0, s1
    vmov r2, r3, s2, s3
.endm

.macro PIXELS rows, cols, rounding
    .section .text.tinyaot_depthwise_dsp_pixels_\rows\()x\cols\()_\rounding,"ax",%progbits
    .global tinyaot_depthwise_dsp_pixels_\rows\()x\cols\()_\rounding
    .type tinyaot_depthwise_dsp_pixels_\rows\()x\cols\()_\rounding, %function
    .thumb_func
    .p2align 2
tinyaot_depthwise_dsp_pixels_\rows\()x\cols\()_\rounding:
    push {r4, r5, r6, r8, r10, r11, lr}
    ldr r1, [r0, #TINYAOT_DW_PIXELS_ROW_STEP]
    add r0, r0, #TINYAOT_DW_PIXELS_CHANNELS
    push {r0, r1}                   /* FRAME_CHANNELS, FRAME_ROW_STEP */
1:  /* A pixel: the biases, weights, input, column step and offset are the
     * eight words before the channels. */
    ldr r10, [sp, #FRAME_CHANNELS]
    ldmdb r10, {r0, r1, r2, r3, r4, r5, r6, r8}
  .if \rows == 3
    ROW \cols, 0
  .endif
    ROW \cols, 0
    ROW \cols, 1
    /* Past the window only the sums (r0-r3) and the input pointer stay
     * live; the other registers take the roles below, by number. The next
     * pixel's input: from this window's last row. */
    ldr lr, [sp, #FRAME_CHANNELS]
    ldr r4, [lr, #(TINYAOT_DW_PIXELS_X_ADVANCE - TINYAOT_DW_PIXELS_CHANNELS)]
    add r5, r5, r4
    str r5, [lr, #(TINYAOT_DW_PIXELS_X - TINYAOT_DW_PIXELS_CHANNELS)]
  .ifc \rounding, double
    mov r12, #0x40000000
    STEP_DOUBLE r0
    STEP_DOUBLE r1
    STEP_DOUBLE r2
    STEP_DOUBLE r3
  .endif
  .ifc \rounding, single
    STEP_SINGLE r0
    STEP_SINGLE r1
    STEP_SINGLE r2
    STEP_SINGLE r3
  .endif
  .ifc \rounding, onnx
    STEPS_ONNX
  .endif
    /* lr is at output_offset: the offset, the packed bounds, out, out_step,
     * out_end. The offset added (saturating in mode onnx), then
     * output_step.h's clamp_pack4: each value saturated to int8 and
     * inserted into one word, then both bounds on the four bytes. */
    ldm lr, {r4, r5, r6, r8, r10, r11}
  .ifc \rounding, onnx
    qadd r0, r0, r4
    qadd r1, r1, r4
    qadd r2, r2, r4
    qadd r3, r3, r4
  .else
    add r0, r0, r4
    add r1, r1, r4
    add r2, r2, r4
    add r3, r3, r4
  .endif
    ssat r0, #8, r0
    ssat r1, #8, r1
    ssat r2, #8, r2
    ssat r3, #8, r3
    bfi r0, r1, #8, #8
    bfi r0, r2, #16, #8
    bfi r0, r3, #24, #8
    ssub8 r1, r0, r5
    sel r0, r0, r5
    ssub8 r1, r0, r6
    sel r0, r6, r0
    str r0, [r8]
    add r8, r8, r10
    str r8, [lr, #(TINYAOT_DW_PIXELS_OUT - TINYAOT_DW_PIXELS_OUTPUT)]
    cmp r8, r11
    bne 1b
    add sp, sp, #FRAME_BYTES
    pop {r4, r5, r6, r8, r10, r11, pc}
    .size tinyaot_depthwise_dsp_pixels_\rows\()x\cols\()_\rounding, . - tinyaot_depthwise_dsp_pixels_\rows\()x\cols\()_\rounding
.endm

    PIXELS 2, 2, double
    PIXELS 2, 3, double
    PIXELS 3, 2, double
    PIXELS 3, 3, double
    PIXELS 2, 2, single
    PIXELS 2, 3, single
    PIXELS 3, 2, single
    PIXELS 3, 3, single
#if defined(TINYAOT_FPU_F32)
    PIXELS 2, 2, onnx
    PIXELS 2, 3, onnx
    PIXELS 3, 2, onnx
    PIXELS 3, 3, onnx
#endif

#endif
