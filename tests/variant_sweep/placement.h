// Where a sweep case's operands lie (freestanding, header-only): at every
// base the loader accepts, and with an output written over an input where
// the variant declares that input safe in place (kernel_abi.h).
//
// The loader's rules (runtime/loader.cpp, program_format.h): the arena
// starts on kArenaAlignment (16) bytes and an activation may start at any
// of its bytes, unless the variant declares the operand word-aligned;
// constants and scratch start on a word (the constants region on 16
// bytes). So a kernel meets every residue of its activations' bases mod 16,
// and every multiple of 4 mod 16 for the others; the sweep's buffers are
// 16-byte aligned, and a case places each operand at such an offset.
#pragma once

#include <stdint.h>

#include "tinyaot/program_format.h"

namespace tinyaot::sweep {

constexpr uint32_t kPlacementSlack = kArenaAlignment;  // bases 0..15 past a buffer's start
constexpr uint32_t kWordBytes = 4;

// Byte offsets of a case's operands from their buffers' starts, and the
// input the output is written over.
struct Placement {
  uint32_t input = 0;   // input 0, an activation
  uint32_t filter = 0;  // input 1: weights, a table, or an activation
  uint32_t quant = 0;   // per-channel constants
  uint32_t extra = 0;   // a pad row or column terms
  uint32_t output = 0;
  uint32_t scratch = 0;
  int32_t in_place = -1;  // the input whose bytes the output lies on, or -1
};

// Case `index`'s offset for an arena operand: each run of 16 cases meets
// all 16 residues (`step` odd), and the runs shift by `drift` so that two
// operands' offsets pair differently from one run to the next. Rounded
// down to the operand's element alignment (its signature's type).
inline uint32_t arena_offset(uint32_t index, uint32_t step, uint32_t drift, uint32_t alignment) {
  const uint32_t offset = (index * step + (index / kPlacementSlack) * drift) % kPlacementSlack;
  return offset - offset % alignment;
}

// Likewise for a constant or the scratch: every multiple of 4 in each run
// of four cases, `shift` apart from the others.
inline uint32_t word_offset(uint32_t index, uint32_t shift) {
  return ((index + shift) % (kPlacementSlack / kWordBytes)) * kWordBytes;
}

// Case 0 of every sweep has every operand at its buffer's start and no
// operand in place (tests that take case 0 apart rely on it); then the
// sequence above.
inline Placement place_operands(uint32_t index, bool filter_in_arena,
                                const KernelSignature& signature) {
  Placement at;
  if (index == 0) return at;
  at.input = arena_offset(index, 1, 0, signature.input_alignment.of(0));
  at.filter = filter_in_arena ? arena_offset(index, 3, 1, signature.input_alignment.of(1))
                              : word_offset(index, 1);
  at.quant = word_offset(index, 2);
  at.extra = word_offset(index, 3);
  at.output = arena_offset(index, 5, 1, signature.output_alignment.of(0));
  at.scratch = word_offset(index / 4, 0);
  return at;
}

// Which input, if any, case `index` writes its output over: none, input 0
// and input 1 in turn (the offsets above meet each choice at every
// residue), each where the variant declares it safe in place and it has
// the output's size, as the planner requires.
inline int32_t in_place_input(uint32_t index, uint16_t in_place_inputs, const bool same_size[2]) {
  const int32_t choice = static_cast<int32_t>(index % 3) - 1;
  if (choice < 0 || (in_place_inputs & (1u << choice)) == 0 || !same_size[choice]) return -1;
  return choice;
}

}  // namespace tinyaot::sweep
