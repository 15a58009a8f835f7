# BBC micro:bit, Cortex-M0. The two -global options enlarge flash to 1 MiB and RAM to 256 KiB (an RP2040-class M0+ part has 264 KiB).
set(TINYAOT_BOARD_CPU_PARTNO 0xC20)  # CPUID.PARTNO the startup insists on
set(TINYAOT_QEMU_MACHINE microbit)
set(TINYAOT_QEMU_ARGS "-global nrf51-soc.flash-size=1048576 -global nrf51-soc.sram-size=262144")
