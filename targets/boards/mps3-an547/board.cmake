# MPS3 AN547, Cortex-M55 with MVE (boots Secure).
set(TINYAOT_BOARD_CPU_PARTNO 0xD22)  # CPUID.PARTNO the startup insists on
set(TINYAOT_QEMU_MACHINE mps3-an547)
set(TINYAOT_QEMU_ARGS "-cpu cortex-m55")
