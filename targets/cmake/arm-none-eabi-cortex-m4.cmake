# Cortex-M4 toolchain: see arm-none-eabi.cmake.
set(TINYAOT_CORE cortex-m4)
include(${CMAKE_CURRENT_LIST_DIR}/arm-none-eabi.cmake)
