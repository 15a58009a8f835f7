# MPS2 AN385, Cortex-M3.
set(TINYAOT_BOARD_CPU_PARTNO 0xC23)  # CPUID.PARTNO the startup insists on
set(TINYAOT_QEMU_MACHINE mps2-an385)
set(TINYAOT_QEMU_ARGS "-cpu cortex-m3")
