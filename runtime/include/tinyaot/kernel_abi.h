// The contract between the runtime core and a kernel variant.
//
// The core knows no operator: it hands a kernel its parameter struct (built
// by the compiler and stored in the program), its operands and its scratch,
// all already resolved to addresses inside the arena or the constants. Every
// kernel family describes each variant once with a KernelDescriptor; the
// compiler and the runtime both link these descriptors, so the scratch the
// compiler plans and the scratch the kernel needs come from one function,
// and the program's ABI table and the runtime's registry from one
// definition.
#pragma once

#include <stdint.h>

#include "tinyaot/load_time.h"
#include "tinyaot/status.h"
#include "tinyaot/target.h"

namespace tinyaot {

// One operand of an operation. Inputs are read-only by convention (they may
// point into constants held in flash); outputs and scratch always lie in the
// arena (the loader checks this).
struct Operand {
  void* data;
  uint32_t bytes;
};

struct KernelArgs {
  const void* params;  // the variant's own parameter struct
  const Operand* inputs;
  uint32_t num_inputs;
  const Operand* outputs;
  uint32_t num_outputs;
  Operand scratch;  // {nullptr, 0} when the variant needs none
  Rounding rounding;
};

using KernelRunFn = Status (*)(const KernelArgs& args);

// What a kernel's validate sees of an operand before anything runs: its
// size, and its contents when the program holds it as a constant (nullptr
// for an operand in the arena, whose contents only exist at run time).
struct OperandView {
  const void* constant;
  uint32_t bytes;
};

// Checks a parameter struct against the operands it will be given: their
// sizes, and the values of those that are constants (per-channel shifts,
// say). The loader calls it once for every operation before anything runs:
// a program that passes cannot make the kernel read or write outside its
// operands, nor hand it a value it cannot handle, nor make it form an
// index that overflows its type (every product and sum of parameters any
// variant of the family computes, DSP and MVE ones included), so kernels
// never re-check per call. Must reject any parameter or constant value the
// kernel cannot handle, and any operand the kernel needs constant that is
// not. Where operands lie (overlap, alignment) the loader checks from the
// descriptor's masks below.
using KernelValidateFn = Status (*)(const void* params, const OperandView* inputs,
                                    uint32_t num_inputs, const OperandView* outputs,
                                    uint32_t num_outputs);

// Bytes of scratch the variant needs for these parameters. The compiler
// plans exactly this; the runtime (with TINYAOT_RUNTIME_CHECKS) recomputes
// it and compares.
using KernelScratchFn = uint32_t (*)(const void* params);

// A variant's operands and parameter struct in words, kept as the FNV-1a
// hash of the text alone: the compiler computes it from the literal, so
// the text itself takes no flash in a firmware (it is only ever compared,
// through abi_fingerprint).
struct KernelSignature {
  uint32_t hash;
  constexpr KernelSignature(const char* text) : hash(2166136261u) {  // NOLINT: implicit
    for (; *text; ++text) hash = (hash ^ static_cast<uint8_t>(*text)) * 16777619u;
  }
};

// Bit i: operand i (an input or an output, counted apart), for the masks of
// a descriptor.
constexpr uint16_t operand_bit(uint32_t i) { return static_cast<uint16_t>(1u << i); }

struct KernelDescriptor {
  const char* name;  // variant: operator, type, shape case, ISA
  const char* op;    // operator family, e.g. "conv2d"
  // Bump whenever params or operands change, the masks below included.
  uint16_t version;
  uint16_t params_bytes;  // sizeof(the parameter struct)
  uint8_t min_inputs;
  uint8_t max_inputs;
  uint8_t num_outputs;
  IsaClass isa;
  // Operands and parameter struct in words, e.g.
  // "input:s8, filter:s8, channel_quant:ChannelQuant -> output:s8;
  //  params=Conv2dParams" (kept as its hash). Part of the ABI fingerprint.
  KernelSignature signature;
  KernelRunFn run;
  KernelValidateFn validate;
  KernelScratchFn scratch_bytes;  // nullptr: the variant needs no scratch
  // Inputs the output may lie on, both starting at the same byte
  // (operand_bit(i) for input i): the output has as many elements as the
  // input, none wider than the input's (float32 -> int8 narrows), and the
  // variant reads elements 0..j of such an input before it writes element
  // j of the output, so every byte it writes belongs to input elements
  // already read. No other arena operands of an
  // operation share a byte (inputs with outputs or scratch, outputs with
  // each other or scratch; inputs may share with inputs, they are only
  // read): the loader refuses a program where they do, and the planner
  // writes an output over an input only where this mask allows.
  uint16_t in_place_inputs = 0;
  // Operands in the arena the variant reads or writes as 32-bit elements
  // (float32, int32): the loader refuses one whose offset is not a
  // multiple of 4. Constants and scratch are word-aligned for every
  // variant (program_format.h, the loader).
  uint16_t word_aligned_inputs = 0;
  uint16_t word_aligned_outputs = 0;
};

// FNV-1a over name, operator, version, params size, operand counts, ISA
// class, the signature's hash and the operand masks (in place, word
// aligned): what the program records per kernel and the loader compares.
// The masks are part of it because the compiler plans the arena by them:
// a program planned against other masks is refused by name
// (`tinyaot verify --runtime` sees it from the manifest alone), even where
// its operands would pass the loader's own overlap and alignment checks.
uint32_t abi_fingerprint(const KernelDescriptor& descriptor);

// The registry: every kernel variant this build holds, indexed by its id
// (see kernels/kernel_list.h). Returns nullptr for an unknown id.
const KernelDescriptor* find_kernel(uint32_t kernel_id);
uint32_t kernel_count();

}  // namespace tinyaot
