# MPS2 AN500, Cortex-M7 with double-precision FPU.
set(TINYAOT_BOARD_CPU_PARTNO 0xC27)  # CPUID.PARTNO the startup insists on
set(TINYAOT_QEMU_MACHINE mps2-an500)
set(TINYAOT_QEMU_ARGS "-cpu cortex-m7")
