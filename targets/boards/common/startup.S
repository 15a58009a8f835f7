/* Vector table, reset handler and fault entry for every board.
 *
 * The reset handler does only what must happen before any compiled code
 * runs: point VTOR at our table, enable the FPU/MVE (GCC may emit FP or
 * MVE instructions anywhere, even in copy loops), set the v8-M stack
 * limit, and paint the stack so its high-water mark can be measured.
 * Everything else is C++ (tinyaot_board_start in startup.cpp).
 *
 * Written in the v6-M subset (low registers, no IT blocks) so the same
 * file assembles for Cortex-M0 through M55. */
    .syntax unified
    .thumb

#if defined(__ARM_ARCH_8M_MAIN__) || defined(__ARM_ARCH_8M_BASE__) || \
    defined(__ARM_ARCH_8_1M_MAIN__)
#define TINYAOT_HAS_MSPLIM 1
#endif
#if defined(__ARM_FP) || defined(__ARM_FEATURE_MVE)
#define TINYAOT_HAS_FPU 1
#endif

    .equ STACK_PAINT, 0x5ac5a5c3  /* tinyaot_stack_pattern in startup.cpp */

    .section .vectors, "a", %progbits
    .global tinyaot_vectors
    .type tinyaot_vectors, %object
tinyaot_vectors:
    .word __stack_top
    .word Reset_Handler
    /* NMI .. SysTick: nothing here is expected, so every one reports. */
    .rept 14
    .word Fault_Handler
    .endr
    /* No interrupt is enabled; an unexpected one still reports. */
    .rept 32
    .word Fault_Handler
    .endr
    .size tinyaot_vectors, . - tinyaot_vectors

    .text
    .global Reset_Handler
    .type Reset_Handler, %function
    .thumb_func
Reset_Handler:
#if !defined(__ARM_ARCH_6M__)
    ldr r0, =0xe000ed08      /* VTOR (the M0 has none; its table is at 0) */
    ldr r1, =tinyaot_vectors
    str r1, [r0]
#endif
#if defined(TINYAOT_HAS_FPU)
    ldr r0, =0xe000ed88      /* CPACR: full access to CP10/CP11 */
    ldr r1, [r0]
    ldr r2, =(0xf << 20)
    orrs r1, r1, r2
    str r1, [r0]
    dsb
    isb
#endif
#if defined(TINYAOT_HAS_MSPLIM)
    ldr r0, =__stack_limit
    msr msplim, r0
#endif
    ldr r0, =__stack_limit
    mov r1, sp
    ldr r2, =STACK_PAINT
1:  cmp r0, r1
    bhs 2f
    str r2, [r0]
    adds r0, r0, #4
    b 1b
2:  bl tinyaot_board_start   /* never returns */
    b .
    .size Reset_Handler, . - Reset_Handler

/* Any exception: pick up the stacked PC and LR from whichever stack was in
 * use, then continue on a fresh stack (the faulting one may be the
 * problem) in tinyaot_fault_report(pc, lr, exc_return, ipsr). A frame
 * outside the stack region (overflow below RAM) is not read: a second
 * fault here would lock the core up. */
    .global Fault_Handler
    .type Fault_Handler, %function
    .thumb_func
Fault_Handler:
    mov r2, lr
    movs r0, #4
    tst r0, r2
    bne 1f
    mrs r0, msp
    b 2f
1:  mrs r0, psp
2:  ldr r3, =tinyaot_fault_frame
    str r0, [r3]
    ldr r3, =__stack_limit
    cmp r0, r3
    blo 3f
    ldr r3, =__stack_top
    subs r3, r3, #32
    cmp r0, r3
    bhi 3f
    ldr r1, [r0, #20]
    ldr r0, [r0, #24]
    b 4f
3:  movs r0, #0
    movs r1, #0
4:  mrs r3, ipsr
#if defined(TINYAOT_HAS_MSPLIM)
    movs r4, #0
    msr msplim, r4
#endif
    ldr r4, =__stack_top
    mov sp, r4
    bl tinyaot_fault_report  /* never returns */
    b .
    .size Fault_Handler, . - Fault_Handler

    .pool
