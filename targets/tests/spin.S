/* tinyaot_spin(n): exactly 2 instructions per iteration (n >= 1), so the
 * instruction counter must report 2n plus a constant. */
    .syntax unified
    .thumb
    .text
    .global tinyaot_spin
    .type tinyaot_spin, %function
    .thumb_func
tinyaot_spin:
1:  subs r0, r0, #1
    bne 1b
    bx lr
    .size tinyaot_spin, . - tinyaot_spin
