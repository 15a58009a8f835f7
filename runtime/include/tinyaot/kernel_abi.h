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
// not. Where operands lie the loader checks from the descriptor (overlap:
// in_place_inputs; alignment: the signature's element types).
using KernelValidateFn = Status (*)(const void* params, const OperandView* inputs,
                                    uint32_t num_inputs, const OperandView* outputs,
                                    uint32_t num_outputs);

// Bytes of scratch the variant needs for these parameters. The compiler
// plans exactly this; the runtime (with TINYAOT_RUNTIME_CHECKS) recomputes
// it and compares.
using KernelScratchFn = uint32_t (*)(const void* params);

// Bit i: operand i (an input or an output, counted apart), for the masks of
// a descriptor.
constexpr uint16_t operand_bit(uint32_t i) { return static_cast<uint16_t>(1u << i); }

// Operands (bit i: operand i) whose elements are 16 bits wide and those
// whose elements are 32 or 64 bits wide. A variant reads and writes such an
// element whole, so the loader refuses an arena operand off its boundary (2
// bytes, 4 bytes; M-profile LDRD needs no more than 4).
struct OperandAlignment {
  uint16_t halfword = 0;
  uint16_t word = 0;

  // Bytes operand `number`'s offset is a multiple of: 1, 2 or 4.
  constexpr uint32_t of(uint32_t number) const {
    return (word & operand_bit(number)) != 0 ? 4 : (halfword & operand_bit(number)) != 0 ? 2 : 1;
  }
};

// Alignment of one element of a signature's type name: "s16" and "i16" 2;
// "s32", "i32", "f32", "s64" 4 (as much as the cores need); other names 1.
// Of alternatives ("i8|i16|i32", chosen by a parameter) the widest.
constexpr uint32_t signature_element_alignment(const char* type) {
  uint32_t widest = 1;
  for (const char* t = type;; ++t) {
    const auto is = [t](const char* name) {
      uint32_t i = 0;
      for (; name[i] != 0; ++i)
        if (t[i] != name[i]) return false;
      return t[i] == '|' || t[i] == '[' || t[i] == ',' || t[i] == ' ' || t[i] == 0;
    };
    uint32_t alignment = 1;
    if (is("s16") || is("i16") || is("u16")) alignment = 2;
    if (is("s32") || is("i32") || is("u32") || is("f32") || is("s64") || is("i64")) alignment = 4;
    widest = alignment > widest ? alignment : widest;
    while (*t != 0 && *t != '|' && *t != '[' && *t != ',' && *t != ' ') ++t;
    if (*t != '|') return widest;
  }
}

// A variant's operands and parameter struct in words, kept as the FNV-1a
// hash of the text alone: the compiler computes it from the literal, so
// the text itself takes no flash in a firmware (it is only ever compared,
// through abi_fingerprint). The text is also the one place an operand's
// element type is written: the operand counts and alignment masks are read
// from it ("name:type[shape], ... -> name:type[shape], ...; scratch...;
// params=..."; commas inside [], {} and () do not separate operands).
struct KernelSignature {
  uint32_t hash = 2166136261u;
  uint8_t inputs = 0;  // operands listed before "->"
  uint8_t outputs = 0;
  OperandAlignment input_alignment;
  OperandAlignment output_alignment;

  constexpr KernelSignature(const char* text) {  // NOLINT: implicit
    for (const char* c = text; *c; ++c) hash = (hash ^ static_cast<uint8_t>(*c)) * 16777619u;
    int depth = 0;
    bool in_outputs = false;
    bool typed = false;  // the current operand's type was read
    uint32_t operand = 0;
    for (const char* c = text; *c; ++c) {
      if (*c == '[' || *c == '{' || *c == '(') {
        ++depth;
      } else if (*c == ']' || *c == '}' || *c == ')') {
        --depth;
      } else if (depth != 0) {
        continue;
      } else if (*c == ',') {
        ++operand;
        typed = false;
      } else if (*c == '-' && c[1] == '>') {
        inputs = static_cast<uint8_t>(operand + 1);
        in_outputs = true;
        operand = 0;
        typed = false;
        ++c;
      } else if (*c == ';') {
        break;  // scratch and parameters follow
      } else if (*c == ':' && !typed) {
        typed = true;
        OperandAlignment& masks = in_outputs ? output_alignment : input_alignment;
        const uint32_t alignment = signature_element_alignment(c + 1);
        if (alignment == 2) masks.halfword |= operand_bit(operand);
        if (alignment == 4) masks.word |= operand_bit(operand);
      }
    }
    if (in_outputs) outputs = static_cast<uint8_t>(operand + 1);
  }
};

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
  // "input:s8[...], filter:s8[...], quant:ChannelQuant[...] -> output:s8[...];
  //  params=Conv2dParams{...}" (kept as its hash and what is read from it,
  //  KernelSignature). Part of the ABI fingerprint.
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
};

// FNV-1a over name, operator, version, params size, operand counts, ISA
// class, the signature's hash and the operand masks (in place, halfword
// and word aligned): what the program records per kernel and the loader compares.
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
