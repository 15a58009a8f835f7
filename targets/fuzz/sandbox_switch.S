/* The fuzzing sandbox's way in and out (sandbox.h): a function runs in
 * unprivileged thread mode on its own stack (PSP) under the MPU; it leaves
 * through an exception: SVC when it returns, a fault, or the budget timer
 * (SysTick). tinyaot_sandbox_event (C) decides; leaving rebuilds a frame on
 * the main stack so that the exception returns to privileged code right
 * after the call, whatever state the sandboxed code was in.
 *
 * Thumb-2 (v7-M and v8-M mainline cores: the ones with an MPU and
 * unprivileged execution that tinyaot fuzzes). */
    .syntax unified
    .thumb

#if defined(__ARM_FP) || defined(__ARM_FEATURE_MVE)
#define TINYAOT_HAS_FPU 1
#endif

    .equ MPU_CTRL, 0xe000ed94
    .equ EXC_RETURN_THREAD_MSP, 0xfffffff9  /* basic frame; Secure on v8-M */
    .equ XPSR_THUMB, 0x01000000

/* Vector table installed while the fuzzer runs: every exception but reset
 * enters tinyaot_sandbox_exception, which passes those that do not come
 * from the sandbox to the board's Fault_Handler. 16 + 32 entries, aligned
 * as VTOR needs for that size. */
    .section .rodata.tinyaot_sandbox_vectors, "a", %progbits
    .balign 256
    .global tinyaot_sandbox_vectors
    .type tinyaot_sandbox_vectors, %object
tinyaot_sandbox_vectors:
    .word __stack_top
    .word Reset_Handler
    .rept 14 + 32
    .word tinyaot_sandbox_exception
    .endr
    .size tinyaot_sandbox_vectors, . - tinyaot_sandbox_vectors

    .text

/* uint32_t tinyaot_sandbox_enter(uint32_t (*fn)(void*), void* arg,
 *                                void* stack_top)
 * Returns the exit code tinyaot_sandbox_event chose (never 0). The MPU
 * regions must be set; MPU_CTRL gets tinyaot_sandbox_mpu_inside here. */
    .global tinyaot_sandbox_enter
    .type tinyaot_sandbox_enter, %function
    .thumb_func
tinyaot_sandbox_enter:
    push {r3-r11, lr}
#if defined(TINYAOT_HAS_FPU)
    vpush {d8-d15}
    vmrs r3, fpscr
    push {r3, r4}            /* FPSCR (MVE's LTPSIZE too), stack kept 8-aligned */
#endif
    mov r3, sp
    ldr r12, =tinyaot_sandbox_saved_msp
    str r3, [r12]
    msr psp, r2
    mov r4, r0
    mov r0, r1
    ldr r12, =MPU_CTRL
    ldr r3, =tinyaot_sandbox_mpu_inside
    ldr r3, [r3]
    str r3, [r12]
    dsb
    isb
    mrs r3, control
    orr r3, r3, #3           /* nPRIV: unprivileged; SPSEL: the process stack */
    msr control, r3
    isb
    blx r4
    svc #0                   /* returned: r0, stacked, is the function's result */
    b .
    .size tinyaot_sandbox_enter, . - tinyaot_sandbox_enter

/* Where a left sandbox resumes: thread mode, privileged, main stack as
 * tinyaot_sandbox_enter left it, r0 = exit code. */
    .type tinyaot_sandbox_resume, %function
    .thumb_func
tinyaot_sandbox_resume:
#if defined(TINYAOT_HAS_FPU)
    pop {r3, r4}
    vmsr fpscr, r3
    vpop {d8-d15}
#endif
    pop {r3-r11, pc}
    .size tinyaot_sandbox_resume, . - tinyaot_sandbox_resume

    .global tinyaot_sandbox_exception
    .type tinyaot_sandbox_exception, %function
    .thumb_func
tinyaot_sandbox_exception:
    and r0, lr, #0xc
    cmp r0, #0xc             /* thread mode on the process stack: the sandbox */
    beq 1f
    mrs r0, ipsr
    cmp r0, #15              /* a tick pending as the budget timer stopped */
    it eq
    bxeq lr
    b Fault_Handler          /* the firmware's own fault: the board reports it */
1:  ldr r0, =MPU_CTRL        /* privileged code runs on the default map */
    ldr r1, =tinyaot_sandbox_mpu_outside
    ldr r1, [r1]
    str r1, [r0]
    dsb
    isb
    push {r4, lr}
    mrs r0, ipsr
    mrs r1, psp
    bl tinyaot_sandbox_event /* 0: resume the sandbox; else leave with that code */
    pop {r4, lr}
    cbnz r0, 2f
    ldr r0, =MPU_CTRL
    ldr r1, =tinyaot_sandbox_mpu_inside
    ldr r1, [r1]
    str r1, [r0]
    dsb
    isb
    bx lr
2:  mrs r1, control
    bic r1, r1, #1           /* privileged again */
    msr control, r1
    isb
    ldr r1, =tinyaot_sandbox_saved_msp
    ldr r1, [r1]
    sub r1, r1, #32          /* a basic frame: r0-r3, r12, lr, pc, xPSR */
    movs r2, #0
    str r0, [r1, #0]
    str r2, [r1, #4]
    str r2, [r1, #8]
    str r2, [r1, #12]
    str r2, [r1, #16]
    str r2, [r1, #20]
    ldr r2, =tinyaot_sandbox_resume
    bic r2, r2, #1
    str r2, [r1, #24]
    mov r2, #XPSR_THUMB
    str r2, [r1, #28]
    msr msp, r1
    ldr lr, =EXC_RETURN_THREAD_MSP
    bx lr
    .size tinyaot_sandbox_exception, . - tinyaot_sandbox_exception

    .pool
