// conv2d_s8_window_mve's window pairs: two adjacent windows inside the
// input, whose rows are one segment each (dilation_w 1), summed together
// so that each weight block is loaded once for both (window_mve_pair.S).
//
// tinyaot_window_mve_pair_sums(a, b, weights, counts, row_skip, groups,
//                              sums_a, sums_b)
// For each of `groups` groups of four output channels (their weights one
// after the other from `weights` on, in the layout of window_mve_layout.h)
// stores the four channels' raw sums over window a at sums_a[0..3] and over
// window b at sums_b[0..3], then steps both by four. A window is
// (counts >> 16) + 1 rows of (counts & 0xFFFF) blocks of 16 bytes, the
// next row's first block row_skip bytes past the row's last. Every count
// at least 1 (rows, blocks < 2^16); every block of both windows readable.
//
// Assembly because the loop needs every core register but r9: VMLADAVA
// adds only into even registers, eight sums take all eight (lr among
// them), so there is no LE loop and the counters live in odd registers.
// Inline, the sums pinned there, the loop wrote r7 and r9, which the frame
// pointer (-O0, -fno-omit-frame-pointer) and the platform register
// (-ffixed-r9, RWPI) reserve; GCC 12, left to allocate them, spilled sums
// inside the loop.
#pragma once

#include <stdint.h>

#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1)
extern "C" void tinyaot_window_mve_pair_sums(const int8_t* a, const int8_t* b,
                                             const int8_t* weights, uint32_t counts,
                                             intptr_t row_skip, int32_t groups, int32_t* sums_a,
                                             int32_t* sums_b);
#endif
