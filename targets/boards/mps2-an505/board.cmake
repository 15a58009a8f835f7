# MPS2 AN505, Cortex-M33 (TrustZone, boots Secure).
set(TINYAOT_BOARD_CPU_PARTNO 0xD21)  # CPUID.PARTNO the startup insists on
set(TINYAOT_QEMU_MACHINE mps2-an505)
set(TINYAOT_QEMU_ARGS "-cpu cortex-m33")
