# MPS2 AN386, Cortex-M4 with FPU.
set(TINYAOT_BOARD_CPU_PARTNO 0xC24)  # CPUID.PARTNO the startup insists on
set(TINYAOT_QEMU_MACHINE mps2-an386)
set(TINYAOT_QEMU_ARGS "-cpu cortex-m4")
