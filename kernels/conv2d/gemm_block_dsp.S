/* tinyaot_gemm_block_2x2_dsp: gemm_block_dsp.h says what it computes and
 * why it is assembly. Per chunk of four values: the two input words, each
 * widened into its even and odd bytes (SXTB16, SXTB16 ROR 8), then each
 * weight word of the pair widened the same way, half by half, into two
 * SMLAD each: 20 instructions for 16 MACs, the loop unrolled twice (its
 * end test, 3 instructions, once per two chunks). Unified syntax, for GNU
 * as and clang's integrated assembler alike; empty on cores without the
 * DSP extension.
 *
 * Registers in the loop:
 *   r0, r1, r2, r3   the sums: w0 . a, w0 . b, w1 . a, w1 . b
 *   r4, r5           the next input word of pixel a, of pixel b
 *   r6               the next weight word (w0's chunk, then w1's)
 *   r7, r8           pixel a's even and odd halves
 *   r10, r11         pixel b's even and odd halves
 *   r12              a weight word
 *   lr               its even or odd half
 * r9 (the platform register) and sp are never written but by the frame;
 * r4-r8, r10 and r11 are restored (AAPCS). */
#include "gemm_block_dsp.h"

#if defined(__ARM_FEATURE_DSP) && __ARM_FEATURE_DSP

    .syntax unified
    .thumb

/* One LDMIA reads a segment: a, b, length in that order, 12 bytes. */
.if TINYAOT_GEMM_SEGMENT_A != 0 || TINYAOT_GEMM_SEGMENT_B != 4 || TINYAOT_GEMM_SEGMENT_LENGTH != 8 || TINYAOT_GEMM_SEGMENT_BYTES != 12
    .error "GemmSegment is not the layout the LDMIA reads"
.endif

/* The frame below the saved registers: the end of the current segment's
 * whole chunks (in pixel a's input) and its length, then the arguments
 * segments, end and acc as they came. */
#define WHOLE_END 0
#define LENGTH 4
#define CURSOR 12
#define SEGMENTS_END 16
#define ACC 20
#define FRAME_BYTES 24

/* Four values of both pixels times four of each weight row. */
.macro CHUNK
    ldr r8, [r4], #4
    ldr r11, [r5], #4
    sxtb16 r7, r8
    sxtb16 r8, r8, ror #8
    sxtb16 r10, r11
    sxtb16 r11, r11, ror #8
    ldr r12, [r6], #4
    sxtb16 lr, r12
    smlad r0, lr, r7, r0
    smlad r1, lr, r10, r1
    sxtb16 lr, r12, ror #8
    smlad r0, lr, r8, r0
    smlad r1, lr, r11, r1
    ldr r12, [r6], #4
    sxtb16 lr, r12
    smlad r2, lr, r7, r2
    smlad r3, lr, r10, r3
    sxtb16 lr, r12, ror #8
    smlad r2, lr, r8, r2
    smlad r3, lr, r11, r3
.endm

    .section .text.tinyaot_gemm_block_2x2_dsp, "ax", %progbits
    .global tinyaot_gemm_block_2x2_dsp
    .type tinyaot_gemm_block_2x2_dsp, %function
    .thumb_func
    .p2align 2
tinyaot_gemm_block_2x2_dsp:
    push {r4, r5, r6, r7, r8, r10, r11, lr}
    push {r1, r2, r3}               /* CURSOR, SEGMENTS_END, ACC */
    sub sp, sp, #(FRAME_BYTES - 12)
    mov r6, r0
    ldm r3, {r0, r1, r2, r3}
.Lsegment:
    ldr r12, [sp, #CURSOR]
    ldmia r12!, {r4, r5, lr}        /* a, b, length (GemmSegment) */
    str r12, [sp, #CURSOR]
    str lr, [sp, #LENGTH]
    bics r12, lr, #3
    beq .Lrest
    add r12, r4, r12
    str r12, [sp, #WHOLE_END]
    /* An odd number of chunks enters at the second. */
    tst lr, #4
    bne .Lsecond
.Lfirst:
    CHUNK
.Lsecond:
    CHUNK
    ldr r12, [sp, #WHOLE_END]
    cmp r4, r12
    bne .Lfirst
.Lrest:
    /* The last length % 4 values, one MLA per product: w0's remainder at
     * r6, w1's right after it. */
    ldr lr, [sp, #LENGTH]
    ands lr, lr, #3
    beq .Lnext
    mov r11, lr
.Lrest_value:
    ldrsb r7, [r4], #1
    ldrsb r8, [r5], #1
    ldrsb r10, [r6, r11]
    ldrsb r12, [r6], #1
    mla r0, r12, r7, r0
    mla r1, r12, r8, r1
    mla r2, r10, r7, r2
    mla r3, r10, r8, r3
    subs lr, lr, #1
    bne .Lrest_value
    add r6, r6, r11
.Lnext:
    ldr r12, [sp, #CURSOR]
    ldr lr, [sp, #SEGMENTS_END]
    cmp r12, lr
    bne .Lsegment
    ldr r12, [sp, #ACC]
    stm r12, {r0, r1, r2, r3}
    mov r0, r6
    add sp, sp, #FRAME_BYTES
    pop {r4, r5, r6, r7, r8, r10, r11, pc}
    .size tinyaot_gemm_block_2x2_dsp, . - tinyaot_gemm_block_2x2_dsp

#endif
