// The 2x2 block of the convolution variants on a DSP core, in assembly
// (gemm_block_dsp.S): two output channels x two output pixels over a list
// of segments, the same sums as gemm_blocks.h's portable loop.
//
// tinyaot_gemm_block_2x2_dsp(pair, segments, end, acc)
// For each segment from `segments` up to `end` (at least one), in order:
// acc[0] += w0 . a, acc[1] += w0 . b, acc[2] += w1 . a, acc[3] += w1 . b
// over the segment's `length` values (wrapping), w0 and w1 the channel
// pair's weights interleaved at `pair` (interleave_row_pairs: chunks of
// four, then both rows' remainders), 2 * length bytes per segment.
// Returns the pair's weights after the last segment.
//
// Assembly because the loop needs 13 registers (four sums, three
// pointers, four widened input halves, a weight word and its half) even
// with its end kept in the frame: every core register but r9, sp and pc.
// A compiler that reserves r7 as frame pointer (clang at every level, GCC
// at -O0 or -fno-omit-frame-pointer) has 13 only by taking r9, 12 under
// -ffixed-r9, and chooses its own spills: clang 14 spilled four values
// per chunk (30 instructions per 16 MACs where this loop takes 21.5). The
// loop never touches r9 (the platform register under -ffixed-r9 or RWPI)
// and saves r7 like any callee-saved register: it is a leaf, so only a
// frame-pointer unwinder stopped inside it would see a stale r7.
//
// The offsets below are the one description of GemmSegment that both the
// assembly and the C++ (static_asserts) read.
#pragma once

#define TINYAOT_GEMM_SEGMENT_A 0
#define TINYAOT_GEMM_SEGMENT_B 4
#define TINYAOT_GEMM_SEGMENT_LENGTH 8
#define TINYAOT_GEMM_SEGMENT_BYTES 12

#if !defined(__ASSEMBLER__) && defined(__ARM_FEATURE_DSP) && __ARM_FEATURE_DSP
#include <stddef.h>
#include <stdint.h>

namespace tinyaot {

// One segment of both pixels' reductions: `length` raw int8 values at a
// and at b.
struct GemmSegment {
  const int8_t* a;
  const int8_t* b;
  int32_t length;
};
static_assert(offsetof(GemmSegment, a) == TINYAOT_GEMM_SEGMENT_A, "");
static_assert(offsetof(GemmSegment, b) == TINYAOT_GEMM_SEGMENT_B, "");
static_assert(offsetof(GemmSegment, length) == TINYAOT_GEMM_SEGMENT_LENGTH, "");
static_assert(sizeof(GemmSegment) == TINYAOT_GEMM_SEGMENT_BYTES, "");

}  // namespace tinyaot

extern "C" const int8_t* tinyaot_gemm_block_2x2_dsp(const int8_t* pair,
                                                    const tinyaot::GemmSegment* segments,
                                                    const tinyaot::GemmSegment* end, uint32_t* acc);
#endif
