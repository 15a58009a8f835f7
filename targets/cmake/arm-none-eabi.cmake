# Cross toolchain for bare-metal Cortex-M with arm-none-eabi-gcc and
# newlib-nano. The core comes from TINYAOT_CORE (set by the per-core
# wrappers arm-none-eabi-<core>.cmake, or on the command line).
#
# Code generation flags only; the optimization level is the project's
# TINYAOT_OPT (targets/CMakeLists.txt), so one toolchain serves -Os
# builds and -O2 benchmark builds.
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR arm)

# try_compile re-reads this file in a fresh scope: hand it the core.
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES TINYAOT_CORE)
if(NOT TINYAOT_CORE)
  message(FATAL_ERROR "set TINYAOT_CORE (cortex-m0, -m3, -m4, -m7, -m33 or -m55)")
endif()

# Float ABI per core: hard where the core has an FPU (and on M55, whose
# MVE GCC silently drops under -mfloat-abi=soft).
if(TINYAOT_CORE STREQUAL "cortex-m0")
  set(_tinyaot_cpu_flags "-mcpu=cortex-m0 -mfloat-abi=soft")
elseif(TINYAOT_CORE STREQUAL "cortex-m3")
  set(_tinyaot_cpu_flags "-mcpu=cortex-m3 -mfloat-abi=soft")
elseif(TINYAOT_CORE STREQUAL "cortex-m4")
  set(_tinyaot_cpu_flags "-mcpu=cortex-m4 -mfloat-abi=hard -mfpu=fpv4-sp-d16")
elseif(TINYAOT_CORE STREQUAL "cortex-m7")
  set(_tinyaot_cpu_flags "-mcpu=cortex-m7 -mfloat-abi=hard -mfpu=fpv5-d16")
elseif(TINYAOT_CORE STREQUAL "cortex-m33")
  set(_tinyaot_cpu_flags "-mcpu=cortex-m33 -mfloat-abi=hard -mfpu=fpv5-sp-d16")
elseif(TINYAOT_CORE STREQUAL "cortex-m55")
  set(_tinyaot_cpu_flags "-mcpu=cortex-m55 -mfloat-abi=hard")
else()
  message(FATAL_ERROR "unsupported TINYAOT_CORE '${TINYAOT_CORE}'")
endif()
string(APPEND _tinyaot_cpu_flags " -mthumb")

set(CMAKE_C_COMPILER arm-none-eabi-gcc)
set(CMAKE_CXX_COMPILER arm-none-eabi-g++)
set(CMAKE_ASM_COMPILER arm-none-eabi-gcc)
set(CMAKE_OBJCOPY arm-none-eabi-objcopy CACHE FILEPATH "")
set(CMAKE_SIZE arm-none-eabi-size CACHE FILEPATH "")
set(CMAKE_NM arm-none-eabi-nm CACHE FILEPATH "")
# No host-style executable can be linked without our startup and script.
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)

set(_tinyaot_common "${_tinyaot_cpu_flags} -ffunction-sections -fdata-sections")
set(CMAKE_C_FLAGS_INIT "${_tinyaot_common}")
set(CMAKE_CXX_FLAGS_INIT
    "${_tinyaot_common} -fno-exceptions -fno-rtti -fno-threadsafe-statics -fno-use-cxa-atexit -fno-unwind-tables -fno-asynchronous-unwind-tables")
set(CMAKE_ASM_FLAGS_INIT "${_tinyaot_cpu_flags}")
# Our own startup (no crt0); newlib-nano only for memcpy and friends. No
# nosys.specs on purpose: a stray malloc or printf fails to link.
set(CMAKE_EXE_LINKER_FLAGS_INIT "${_tinyaot_cpu_flags} --specs=nano.specs -nostartfiles -Wl,--gc-sections")

set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
