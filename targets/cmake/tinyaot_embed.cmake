# Embedding a compiled program in a firmware image, the way a product
# ships it: the .tao bytes become a const array in a .rodata section that
# the board's linker script places in flash / code memory.
#
#   include(tinyaot_embed.cmake)
#   tinyaot_embed_program(program_c ${CMAKE_SOURCE_DIR}/model.tao)
#   add_executable(app.elf main.cpp ${program_c})
#
# The source defines
#   const uint8_t tinyaot_program[] __attribute__((aligned(16)));
#   const uint32_t tinyaot_program_bytes;
# and is regenerated whenever the .tao file changes.
set(_TINYAOT_EMBED_DIR ${CMAKE_CURRENT_LIST_DIR})

function(tinyaot_embed_program out_var tao_file)
  get_filename_component(tao_file "${tao_file}" ABSOLUTE)
  get_filename_component(stem "${tao_file}" NAME_WE)
  set(source "${CMAKE_CURRENT_BINARY_DIR}/embedded/${stem}_program.c")
  add_custom_command(
    OUTPUT "${source}"
    COMMAND ${CMAKE_COMMAND} -DINPUT=${tao_file} -DOUTPUT=${source} -P
            ${_TINYAOT_EMBED_DIR}/tao_to_c.cmake
    DEPENDS "${tao_file}" "${_TINYAOT_EMBED_DIR}/tao_to_c.cmake"
    COMMENT "Embedding ${stem}.tao"
    VERBATIM)
  set(${out_var} "${source}" PARENT_SCOPE)
endfunction()
