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
// operands, nor hand it a value it cannot handle, so kernels never re-check
// per call. Must reject any parameter or constant value the kernel cannot
// handle, and any operand the kernel needs constant that is not.
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

struct KernelDescriptor {
  const char* name;       // variant: operator, type, shape case, ISA
  const char* op;         // operator family, e.g. "conv2d"
  uint16_t version;       // bump whenever params or operands change
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
};

// FNV-1a over name, operator, version, params size, operand counts, ISA
// class and the signature's hash: what the program records per kernel and
// the loader compares.
uint32_t abi_fingerprint(const KernelDescriptor& descriptor);

// The registry: every kernel variant this build holds, indexed by its id
// (see kernels/kernel_list.h). Returns nullptr for an unknown id.
const KernelDescriptor* find_kernel(uint32_t kernel_id);
uint32_t kernel_count();

}  // namespace tinyaot
