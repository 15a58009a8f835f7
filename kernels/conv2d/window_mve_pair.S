/* tinyaot_window_mve_pair_sums: window_mve_pair.h says what it computes
 * and why it is assembly. Per block of both windows: two input loads, four
 * weight loads (one pointer, offsets 16, 32, 48, then 0 post-indexed by 64)
 * and eight VMLADAVA.S8, 128 MACs in 16 instructions with SUBS/BNE.
 *
 * Registers in the loops:
 *   r0, r2, r4, r6     window a's sums of channels 0..3
 *   r8, r10, r12, lr   window b's sums of channels 0..3
 *   r1, r3             the next input block of window a, of window b
 *   r5                 the next weight block
 *   r11                counts: rows left after the current one (high half,
 *                      the row loop ends when it borrows), blocks (low)
 *   r7                 blocks left in the row, then the row skip
 *   q0, q1             the input blocks; q2-q5 the four weight blocks
 * r9 (the platform register) and sp are never written but by the frame;
 * r4-r8, r10, r11 and d8-d11 (q4, q5) are restored (AAPCS). */
#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1)

    .syntax unified
    .thumb

/* The frame below the saved registers: the arguments a, b, weights and
 * counts as they came, then (past 16 + 32 + 32 bytes of frame) the
 * arguments passed on the stack. */
#define WINDOWS 0
#define COUNTS 12
#define ROW_SKIP 80
#define GROUPS 84
#define SUMS_A 88
#define SUMS_B 92

    .section .text.tinyaot_window_mve_pair_sums, "ax", %progbits
    .global tinyaot_window_mve_pair_sums
    .type tinyaot_window_mve_pair_sums, %function
    .thumb_func
    .p2align 2
tinyaot_window_mve_pair_sums:
    push    {r4-r8, r10, r11, lr}
    vpush   {d8-d11}
    push    {r0-r3}
    mov     r5, r2
.Lgroup:
    ldrd    r1, r3, [sp, #WINDOWS]
    ldr     r11, [sp, #COUNTS]
    movs    r0, #0
    movs    r2, #0
    movs    r4, #0
    movs    r6, #0
    mov     r8, r0
    mov     r10, r0
    mov     r12, r0
    mov     lr, r0
.Lrow:
    uxth    r7, r11
.Lblock:
    vldrb.8 q0, [r1], #16
    vldrb.8 q3, [r5, #16]
    vldrb.8 q1, [r3], #16
    vldrb.8 q4, [r5, #32]
    vmladava.s8 r2, q0, q3
    vmladava.s8 r10, q1, q3
    vldrb.8 q5, [r5, #48]
    vmladava.s8 r4, q0, q4
    vmladava.s8 r12, q1, q4
    vldrb.8 q2, [r5], #64
    vmladava.s8 r6, q0, q5
    vmladava.s8 lr, q1, q5
    vmladava.s8 r0, q0, q2
    vmladava.s8 r8, q1, q2
    subs    r7, r7, #1
    bne     .Lblock
    ldr     r7, [sp, #ROW_SKIP]
    add     r1, r1, r7
    add     r3, r3, r7
    subs    r11, r11, #0x10000
    bhs     .Lrow
    ldr     r7, [sp, #SUMS_A]
    stmia   r7!, {r0, r2, r4, r6}
    str     r7, [sp, #SUMS_A]
    ldr     r7, [sp, #SUMS_B]
    stmia   r7!, {r8, r10, r12, lr}
    str     r7, [sp, #SUMS_B]
    ldr     r7, [sp, #GROUPS]
    subs    r7, r7, #1
    str     r7, [sp, #GROUPS]
    bne     .Lgroup
    add     sp, sp, #16
    vpop    {d8-d11}
    pop     {r4-r8, r10, r11, pc}
    .size tinyaot_window_mve_pair_sums, . - tinyaot_window_mve_pair_sums

#endif
