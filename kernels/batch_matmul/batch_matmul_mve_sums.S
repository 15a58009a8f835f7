/* tinyaot_bmm_mve_sums, tinyaot_bmm_mve_gathered_sums: what they compute
 * and why they are assembly is in batch_matmul_mve_sums.h.
 *
 * Registers, per A vector:
 *   r0, r2, r4, r6     the sums with w[0..3]; r8 the sum of x
 *   r1                 the next block of x
 *   r3, r5, r7, r10    the next blocks of w[0..3]
 *   lr                 blocks left (WLS/LE), then a scratch register
 *   r11                gathered: group->advance, then group->rest
 *   r12                the group
 *   q0                 the block of x; q1 a block of w
 *   q2                 gathered: one gather; q3, q4 the offsets even, odd
 * r9 (the platform register) is never written; r4-r8, r10, r11 and
 * d8, d9 (q4) are restored (AAPCS). */
#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1)

#include "kernels/batch_matmul/batch_matmul_mve_sums.h"

    .syntax unified
    .thumb

/* The frame: the four arguments as they came. */
#define FRAME_A 0
#define FRAME_COUNT 4
#define FRAME_GROUP 8
#define FRAME_SUMS 12

/* x's block in q0 against the next block of each B vector, and the
 * block's own sum. */
.macro four_columns
    vldrb.8 q1, [r3], #16
    vmladava.s8 r0, q0, q1
    vldrb.8 q1, [r5], #16
    vmladava.s8 r2, q0, q1
    vldrb.8 q1, [r7], #16
    vmladava.s8 r4, q0, q1
    vldrb.8 q1, [r10], #16
    vmladava.s8 r6, q0, q1
    vaddva.s8 r8, q0
.endm

/* The same for the last values: the B loads predicated by P0 (VCTP.8 of
 * the count; x's masked lanes are 0 already). */
.macro four_column_tails
    vpst
    vldrbt.8 q1, [r3]
    vmladava.s8 r0, q0, q1
    vpst
    vldrbt.8 q1, [r5]
    vmladava.s8 r2, q0, q1
    vpst
    vldrbt.8 q1, [r7]
    vmladava.s8 r4, q0, q1
    vpst
    vldrbt.8 q1, [r10]
    vmladava.s8 r6, q0, q1
    vaddva.s8 r8, q0
.endm

/* Per A vector: the B pointers, the block count and x from the frame and
 * the group, the sums zeroed. */
.macro start_vector
    ldr     r12, [sp, #FRAME_GROUP]
    ldm     r12, {r3, r5, r7, r10}
    ldr     lr, [r12, #TINYAOT_BMM_GROUP_BLOCKS]
    ldr     r1, [sp, #FRAME_A]
    movs    r0, #0
    movs    r2, #0
    movs    r4, #0
    movs    r6, #0
    mov     r8, r0
.endm

/* The five sums stored, x and the count stepped; back to \again while A
 * vectors are left. */
.macro end_vector again
    ldr     r12, [sp, #FRAME_SUMS]
    stmia   r12!, {r0, r2, r4, r6, r8}
    str     r12, [sp, #FRAME_SUMS]
    ldr     r12, [sp, #FRAME_GROUP]
    ldrd    r1, r11, [sp, #FRAME_A]
    ldr     r12, [r12, #TINYAOT_BMM_GROUP_A_STEP]
    add     r1, r1, r12
    subs    r11, r11, #1
    strd    r1, r11, [sp, #FRAME_A]
    bne     \again
.endm

    .section .text.tinyaot_bmm_mve_sums, "ax", %progbits
    .global tinyaot_bmm_mve_sums
    .type tinyaot_bmm_mve_sums, %function
    .thumb_func
    .p2align 2
tinyaot_bmm_mve_sums:
    push    {r4-r8, r10, r11, lr}
    push    {r0-r3}
.Lvector:
    start_vector
    wls     lr, lr, .Ltail
.Lblock:
    vldrb.8 q0, [r1], #16
    four_columns
    le      lr, .Lblock
.Ltail:
    ldr     r11, [r12, #TINYAOT_BMM_GROUP_REST]
    cmp     r11, #0
    beq     .Lstore
    vctp.8  r11
    vpst
    vldrbt.8 q0, [r1]
    four_column_tails
.Lstore:
    end_vector .Lvector
    add     sp, sp, #16
    pop     {r4-r8, r10, r11, pc}
    .size tinyaot_bmm_mve_sums, . - tinyaot_bmm_mve_sums

    .section .text.tinyaot_bmm_mve_gathered_sums, "ax", %progbits
    .global tinyaot_bmm_mve_gathered_sums
    .type tinyaot_bmm_mve_gathered_sums, %function
    .thumb_func
    .p2align 2
tinyaot_bmm_mve_gathered_sums:
    push    {r4-r8, r10, r11, lr}
    vpush   {d8-d9}
    push    {r0-r3}
    vldrw.u32 q3, [r2, #TINYAOT_BMM_GROUP_EVEN]
    vldrw.u32 q4, [r2, #TINYAOT_BMM_GROUP_ODD]
.Lgathered_vector:
    start_vector
    ldr     r11, [r12, #TINYAOT_BMM_GROUP_ADVANCE]
    wls     lr, lr, .Lgathered_tail
.Lgathered_block:
    vldrb.s16 q2, [r1, q3]
    vmovnb.i16 q0, q2
    vldrb.s16 q2, [r1, q4]
    vmovnt.i16 q0, q2
    add     r1, r1, r11
    four_columns
    le      lr, .Lgathered_block
.Lgathered_tail:
    ldr     r11, [r12, #TINYAOT_BMM_GROUP_REST]
    cmp     r11, #0
    beq     .Lgathered_store
    /* k even: (rest + 1) / 2 lanes; k odd: rest / 2; masked lanes load 0. */
    add     lr, r11, #1
    lsr     lr, lr, #1
    vctp.16 lr
    vpst
    vldrbt.s16 q2, [r1, q3]
    vmovnb.i16 q0, q2
    lsr     lr, r11, #1
    vctp.16 lr
    vpst
    vldrbt.s16 q2, [r1, q4]
    vmovnt.i16 q0, q2
    vctp.8  r11
    four_column_tails
.Lgathered_store:
    end_vector .Lgathered_vector
    add     sp, sp, #16
    vpop    {d8-d9}
    pop     {r4-r8, r10, r11, pc}
    .size tinyaot_bmm_mve_gathered_sums, . - tinyaot_bmm_mve_gathered_sums

#endif
