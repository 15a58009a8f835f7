// The tinyaot runtime: validate a program completely, then run it inside
// one caller-provided arena. No heap, no exceptions, no static constructors.
#pragma once

#include <stdint.h>

#include "tinyaot/kernel_abi.h"
#include "tinyaot/program_format.h"
#include "tinyaot/status.h"

namespace tinyaot {

// A validated view of a program: pointers into the caller's bytes (which
// may be in flash); nothing is copied. Only load_program fills it.
struct Program {
  const uint8_t* base;
  const ProgramHeader* header;
  const IoDesc* inputs;
  const IoDesc* outputs;
  const OpRecord* ops;
  const BufferRef* operands;
  const AbiEntry* kernels;
  const uint8_t* params;
  const uint8_t* constants;
  const StateRegion* state_regions;
};

// The ISA class this runtime build serves. An embedded build derives it
// from the compiler's predefined macros and refuses programs planned for
// another class; the host build (TINYAOT_HOST_RUNTIME, set for x86 and
// friends) carries portable versions of every variant and accepts all.
bool runtime_accepts_any_isa();
IsaClass runtime_isa();

// Validates everything a program claims (header, sections, checksum,
// target, every operation's kernel, ABI, operands and parameters) before
// anything runs. `data` must be 16-byte aligned. A refusal is logged
// (set_log_hook) naming `model`, in the words `tinyaot verify --runtime`
// uses (refusal_text.h).
Status load_program(const void* data, uint32_t bytes, Program* program,
                    const char* model = "program");

// Runs every operation in order. The arena must be 16-byte aligned and at
// least header->arena_bytes long; inputs must already be in place. A
// program with state (num_state_regions > 0) carries it from one run to
// the next in the arena: call reset_state before the first run on an
// arena, and again to start a new stream.
Status run_program(const Program& program, uint8_t* arena, uint32_t arena_bytes);

// Sets every state region of the arena to its reset value (TFLite Micro's
// Reset()); does nothing for a program without state.
Status reset_state(const Program& program, uint8_t* arena, uint32_t arena_bytes);

// Where input/output `index` lives in the arena.
inline uint8_t* input_data(const Program& program, uint8_t* arena, uint32_t index) {
  return arena + program.inputs[index].arena_offset;
}
inline uint8_t* output_data(const Program& program, uint8_t* arena, uint32_t index) {
  return arena + program.outputs[index].arena_offset;
}

// Bytes of fixed runtime state while a program runs (everything else the
// program needs is the arena or constants in the program).
uint32_t runtime_context_bytes();

}  // namespace tinyaot
