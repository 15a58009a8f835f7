# The toolchain matrix (toolchain-matrix.sh): kws, vww and resnet exported as
# one library, built into a firmware of a user's own with every compiler
# and flag set of issue 17 (GCC -O0 -Og -O1 -O2 -O3 -Os, -O2 with a frame
# pointer, -O2 -ffixed-r9; clang -O0 -O2 -Os -Oz) and run bit-exact under
# QEMU, one test per core, label toolchains. Added from tests/CMakeLists.txt;
# skipped (77) without QEMU, clang, the Arm toolchain or ../shared.
foreach(core m0 m4 m33 m55)
  add_test(NAME toolchains_${core}
           COMMAND ${CMAKE_CURRENT_LIST_DIR}/toolchain-matrix.sh --core ${core} --jobs 2
                   --tinyaot $<TARGET_FILE:tinyaot> --shared ${CMAKE_SOURCE_DIR}/../shared
                   --out ${CMAKE_BINARY_DIR}/toolchains/${core})
  set_tests_properties(toolchains_${core} PROPERTIES TIMEOUT 900 SKIP_RETURN_CODE 77 PROCESSORS 2
                                                     LABELS toolchains)
endforeach()
