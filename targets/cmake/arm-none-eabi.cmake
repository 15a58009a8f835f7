# Cross toolchain for bare-metal Cortex-M with newlib-nano. The core comes
# from TINYAOT_CORE (set by the per-core wrappers arm-none-eabi-<core>.cmake,
# or on the command line); the compiler from TINYAOT_COMPILER:
#   gcc    arm-none-eabi-gcc (the default);
#   clang  Debian's clang (--target=arm-none-eabi: the compiler inside Arm
#          Compiler 6 and the LLVM Embedded Toolchain for Arm) with the GNU
#          toolchain's newlib and libstdc++ headers, linked by
#          arm-none-eabi-g++ (its newlib-nano and libgcc).
#
# Code generation flags only; the optimization level is the project's
# TINYAOT_OPT (targets/CMakeLists.txt), so one toolchain serves -Os
# builds and -O2 benchmark builds.
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR arm)

# try_compile re-reads this file in a fresh scope: hand it the core.
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES TINYAOT_CORE TINYAOT_COMPILER)
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

if(NOT TINYAOT_COMPILER)
  set(TINYAOT_COMPILER gcc)
endif()
if(TINYAOT_COMPILER STREQUAL "gcc")
  set(CMAKE_C_COMPILER arm-none-eabi-gcc)
  set(CMAKE_CXX_COMPILER arm-none-eabi-g++)
  set(CMAKE_ASM_COMPILER arm-none-eabi-gcc)
  set(_tinyaot_compile_flags "${_tinyaot_cpu_flags}")
elseif(TINYAOT_COMPILER STREQUAL "clang")
  find_program(_tinyaot_gxx arm-none-eabi-g++ REQUIRED)
  set(CMAKE_C_COMPILER clang)
  set(CMAKE_CXX_COMPILER clang++)
  set(CMAKE_ASM_COMPILER clang)
  # The GNU toolchain's header folders for this core's multilib, in its own
  # order, without GCC's builtin headers (clang has its own stdint.h,
  # arm_acle.h and arm_mve.h).
  separate_arguments(_tinyaot_cpu_list UNIX_COMMAND "${_tinyaot_cpu_flags}")
  execute_process(COMMAND ${_tinyaot_gxx} ${_tinyaot_cpu_list} -xc++ -E -v -
                  INPUT_FILE /dev/null OUTPUT_QUIET ERROR_VARIABLE _tinyaot_gxx_search)
  string(REGEX REPLACE ".*#include <...> search starts here:\n(.*)End of search list.*" "\\1"
                       _tinyaot_gxx_search "${_tinyaot_gxx_search}")
  string(REGEX REPLACE "\n" ";" _tinyaot_gxx_search "${_tinyaot_gxx_search}")
  # -fshort-enums: the size of an enum as arm-none-eabi-gcc and the GNU
  # toolchain's libraries have it (AAPCS, bare metal).
  set(_tinyaot_compile_flags "--target=arm-none-eabi -fshort-enums ${_tinyaot_cpu_flags}")
  # Unaligned word access where the core has it (not v6-M): the default of
  # arm-none-eabi-gcc, Arm Compiler 6 and clang 19 on. Clang 14 assumes
  # strict alignment on bare metal, which turns every word the kernels read
  # through memcpy into four byte loads (kws on M4: 2.1x the instructions).
  if(NOT TINYAOT_CORE STREQUAL "cortex-m0")
    string(APPEND _tinyaot_compile_flags " -munaligned-access")
  endif()
  foreach(dir IN LISTS _tinyaot_gxx_search)
    string(STRIP "${dir}" dir)
    if(dir AND NOT dir MATCHES "/gcc/arm-none-eabi/[^/]+/include(-fixed)?$")
      get_filename_component(dir "${dir}" REALPATH)
      string(APPEND _tinyaot_compile_flags " -isystem ${dir}")
    endif()
  endforeach()
  # arm-none-eabi-g++ links (newlib-nano, libgcc): no clang flag on its line.
  foreach(lang C CXX)
    set(CMAKE_${lang}_LINK_EXECUTABLE
        "${_tinyaot_gxx} <CMAKE_${lang}_LINK_FLAGS> <LINK_FLAGS> <OBJECTS> -o <TARGET> <LINK_LIBRARIES>")
  endforeach()
else()
  message(FATAL_ERROR "TINYAOT_COMPILER is gcc or clang, not '${TINYAOT_COMPILER}'")
endif()
set(CMAKE_OBJCOPY arm-none-eabi-objcopy CACHE FILEPATH "")
set(CMAKE_SIZE arm-none-eabi-size CACHE FILEPATH "")
set(CMAKE_NM arm-none-eabi-nm CACHE FILEPATH "")
# No host-style executable can be linked without our startup and script.
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)

set(_tinyaot_common "${_tinyaot_compile_flags} -ffunction-sections -fdata-sections")
set(CMAKE_C_FLAGS_INIT "${_tinyaot_common}")
set(CMAKE_CXX_FLAGS_INIT
    "${_tinyaot_common} -fno-exceptions -fno-rtti -fno-threadsafe-statics -fno-use-cxa-atexit -fno-unwind-tables -fno-asynchronous-unwind-tables")
set(CMAKE_ASM_FLAGS_INIT "${_tinyaot_compile_flags}")
# Our own startup (no crt0); newlib-nano only for memcpy and friends. No
# nosys.specs on purpose: a stray malloc or printf fails to link.
set(CMAKE_EXE_LINKER_FLAGS_INIT "${_tinyaot_cpu_flags} --specs=nano.specs -nostartfiles -Wl,--gc-sections")
if(TINYAOT_COMPILER STREQUAL "clang")
  # clang marks its objects' stacks non-executable (.note.GNU-stack), the
  # GNU toolchain's newlib objects say nothing, and ld then warns about
  # each; a bare-metal stack is not executable anyway.
  string(APPEND CMAKE_EXE_LINKER_FLAGS_INIT " -Wl,-z,noexecstack")
endif()

set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
