# A user's build is a release build: configures the tree with no options at
# all (as `cmake -S . -B build` does) and fails unless the cache says
# Release without sanitizers. Run by CTest with -DSOURCE=... -DWORK=...
file(REMOVE_RECURSE "${WORK}")
execute_process(COMMAND "${CMAKE_COMMAND}" -S "${SOURCE}" -B "${WORK}"
                RESULT_VARIABLE result OUTPUT_VARIABLE output ERROR_VARIABLE output)
if(NOT result EQUAL 0)
  message(FATAL_ERROR "a default configure failed:\n${output}")
endif()
file(STRINGS "${WORK}/CMakeCache.txt" build_type REGEX "^CMAKE_BUILD_TYPE:")
file(STRINGS "${WORK}/CMakeCache.txt" sanitize REGEX "^TINYAOT_SANITIZE:")
if(NOT build_type MATCHES "=Release$")
  message(FATAL_ERROR "a default build is not Release: ${build_type}")
endif()
if(NOT sanitize MATCHES "=OFF$")
  message(FATAL_ERROR "a default build has sanitizers: ${sanitize}")
endif()
if(NOT output MATCHES "tinyaot: Release build, sanitizers OFF")
  message(FATAL_ERROR "the configure does not report a release build without sanitizers:\n${output}")
endif()
file(REMOVE_RECURSE "${WORK}")
message(STATUS "default build: Release, sanitizers OFF")
