# Cortex-M3 toolchain: see arm-none-eabi.cmake.
set(TINYAOT_CORE cortex-m3)
include(${CMAKE_CURRENT_LIST_DIR}/arm-none-eabi.cmake)
