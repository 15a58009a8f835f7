# The loader fuzzer on emulated cores (targets/fuzz/, driven by
# soak-on-core.sh): a short round on M4 (DSP kernels) and on M55 (MVE
# kernels), label qemu, failing on any fault or guard-zone write. Added
# from tests/CMakeLists.txt; skipped (77) without QEMU or the Arm toolchain.

# Seeds the shared models lack: random single-operator models from the
# differential test's generator.
add_executable(tinyaot_fuzz_corpus ${CMAKE_CURRENT_LIST_DIR}/make_fuzz_corpus.cpp
                                   $<TARGET_OBJECTS:tinyaot_case_generator>)
target_include_directories(tinyaot_fuzz_corpus PRIVATE ${CMAKE_SOURCE_DIR}/tests)
target_link_libraries(tinyaot_fuzz_corpus PRIVATE tinyaot_compiler tinyaot_modelgen)
target_compile_options(tinyaot_fuzz_corpus PRIVATE ${TINYAOT_WARNINGS})
set_target_properties(tinyaot_fuzz_corpus PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR})

# Programs per round: about 20 s of QEMU on two host cores each (M55's MVE
# code emulates several times slower), after a first build of the
# firmware (-Os with the undefined-behaviour sanitizer, beside the QEMU
# matrix's builds) and of the corpus.
set(TINYAOT_QEMU_FUZZ_PROGRAMS_m4 10000)
set(TINYAOT_QEMU_FUZZ_PROGRAMS_m55 5000)
foreach(core m4 m55)
  add_test(NAME qemu_fuzz_${core}
           COMMAND ${CMAKE_CURRENT_LIST_DIR}/soak-on-core.sh --core ${core}
                   --programs ${TINYAOT_QEMU_FUZZ_PROGRAMS_${core}} --seed 1 --jobs 2
                   --tinyaot $<TARGET_FILE:tinyaot>
                   --corpus-tool $<TARGET_FILE:tinyaot_fuzz_corpus>
                   --shared ${CMAKE_SOURCE_DIR}/../shared --build-root ${CMAKE_BINARY_DIR}/arm
                   --out ${CMAKE_BINARY_DIR}/qemu-fuzz/${core})
  set_tests_properties(qemu_fuzz_${core} PROPERTIES TIMEOUT 600 SKIP_RETURN_CODE 77 PROCESSORS 2
                                                    LABELS qemu)
endforeach()
