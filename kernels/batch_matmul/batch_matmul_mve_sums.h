// batch_matmul_s8_mve's inner loop, in assembly (batch_matmul_mve_sums.S):
// the raw sums of A vectors against a group of four contiguous B vectors.
//
// tinyaot_bmm_mve_sums(a, count, group, sums), and
// tinyaot_bmm_mve_gathered_sums(a, count, group, sums) for a depth-major A:
// for each of `count` A vectors x, the first at a, each group->a_step bytes
// past the one before, stores
//   sums[0..3] = x . w[0], x . w[1], x . w[2], x . w[3]   sums[4] = sum of x
// over the depth (wrapping, as the hardware's accumulators) and steps sums
// by kBmmMveSums. A vector is read 16 values a block: its next 16 bytes, or
// (gathered) two VLDRB.S16 gathers at the offsets group->even and
// group->odd from the block's first byte, narrowed into one vector by
// VMOVNB/VMOVNT, the next block group->advance bytes on. group->blocks
// whole blocks under WLS/LE: 11 instructions a block (15 gathered); then
// the last group->rest (< 16) values in one pass predicated by VCTP.
//
// Assembly because the block loop needs eleven core registers with the
// count in lr (five sums in even registers, as VMLADAVA and VADDVA
// require, x and four B pointers): as inline assembly GCC 12 found no
// allocation at -O0, at -Og, or at -O2 with -fno-omit-frame-pointer
// ("'asm' operand has impossible constraints"). One call serves up to a
// chunk of A vectors, so the call's cost is shared.
//
// The group's layout is shared with the assembly through the offsets
// below (checked against the struct here).
#pragma once

#define TINYAOT_BMM_GROUP_W 0
#define TINYAOT_BMM_GROUP_BLOCKS 16
#define TINYAOT_BMM_GROUP_REST 20
#define TINYAOT_BMM_GROUP_A_STEP 24
#define TINYAOT_BMM_GROUP_ADVANCE 28
#define TINYAOT_BMM_GROUP_EVEN 32
#define TINYAOT_BMM_GROUP_ODD 48

#if !defined(__ASSEMBLER__) && defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1)

#include <arm_mve.h>
#include <stddef.h>
#include <stdint.h>

namespace tinyaot {

// Words stored per A vector: four column sums and the vector's own sum.
constexpr int32_t kBmmMveSums = 5;

struct BmmMveGroup {
  const int8_t* w[4];    // the four B vectors (a short group repeats its last)
  int32_t blocks;        // whole blocks of 16 values
  int32_t rest;          // values past them, 0..15
  int32_t a_step;        // bytes from one A vector to the next
  int32_t advance;       // gathered: bytes from one block of an A vector to the next
  uint16x8_t even, odd;  // gathered: byte offsets of a block's k even, k odd
};

static_assert(offsetof(BmmMveGroup, w) == TINYAOT_BMM_GROUP_W &&
                  offsetof(BmmMveGroup, blocks) == TINYAOT_BMM_GROUP_BLOCKS &&
                  offsetof(BmmMveGroup, rest) == TINYAOT_BMM_GROUP_REST &&
                  offsetof(BmmMveGroup, a_step) == TINYAOT_BMM_GROUP_A_STEP &&
                  offsetof(BmmMveGroup, advance) == TINYAOT_BMM_GROUP_ADVANCE &&
                  offsetof(BmmMveGroup, even) == TINYAOT_BMM_GROUP_EVEN &&
                  offsetof(BmmMveGroup, odd) == TINYAOT_BMM_GROUP_ODD,
              "batch_matmul_mve_sums.S reads BmmMveGroup at these offsets");

}  // namespace tinyaot

extern "C" void tinyaot_bmm_mve_sums(const int8_t* a, int32_t count,
                                     const tinyaot::BmmMveGroup* group, int32_t* sums);
extern "C" void tinyaot_bmm_mve_gathered_sums(const int8_t* a, int32_t count,
                                              const tinyaot::BmmMveGroup* group, int32_t* sums);

#endif
