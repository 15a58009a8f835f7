# CTest script: the runtime library must reference no heap or exception
# machinery. Usage: cmake -DNM=<nm> -DLIBRARY=<libtinyaot_runtime.a> -P check_symbols.cmake
if(NOT NM OR NOT LIBRARY)
  message(FATAL_ERROR "usage: cmake -DNM=nm -DLIBRARY=lib.a -P check_symbols.cmake")
endif()
execute_process(COMMAND ${NM} -u ${LIBRARY} OUTPUT_VARIABLE listing ERROR_VARIABLE errors
                RESULT_VARIABLE result)
if(NOT result EQUAL 0)
  message(FATAL_ERROR "${NM} -u ${LIBRARY} failed: ${errors}")
endif()

set(forbidden_exact
    malloc calloc realloc free aligned_alloc posix_memalign memalign valloc strdup
    __cxa_throw __cxa_rethrow __cxa_allocate_exception __cxa_begin_catch
    __gxx_personality_v0 _Unwind_Resume __cxa_guard_acquire __cxa_atexit)
string(REPLACE "\n" ";" lines "${listing}")
set(object "?")
set(undefined_count 0)
set(offenders "")
foreach(line IN LISTS lines)
  if(line MATCHES "^(.+):$")
    set(object "${CMAKE_MATCH_1}")
    continue()
  endif()
  if(NOT line MATCHES "^ *U +([^ ]+)$")
    continue()
  endif()
  set(symbol "${CMAKE_MATCH_1}")
  math(EXPR undefined_count "${undefined_count} + 1")
  # Instrumentation the sanitizer build adds (e.g. __asan_stack_malloc_N).
  if(symbol MATCHES "^(__asan_|__ubsan_|__sanitizer_|__sancov_|__tsan_|__msan_)")
    continue()
  endif()
  list(FIND forbidden_exact "${symbol}" index)
  # operator new/new[]/delete/delete[] in every overload; std::__throw_*.
  if(NOT index EQUAL -1 OR symbol MATCHES "^_Z(nw|na|dl|da)" OR symbol MATCHES "^_ZSt[0-9]+__throw_")
    string(APPEND offenders "  ${object}: ${symbol}\n")
  endif()
endforeach()

if(undefined_count EQUAL 0)
  message(FATAL_ERROR "no undefined symbols listed for ${LIBRARY}: is it the right file?")
endif()
if(offenders)
  message(FATAL_ERROR "the runtime references heap or exception symbols:\n${offenders}")
endif()
message(STATUS "runtime: ${undefined_count} undefined references, none to heap or exceptions")
