// How each UNIDIRECTIONAL_SEQUENCE_LSTM variant takes its gates' weights
// (freestanding, header-only, host and device), written once: the
// compiler stores them so, the sweeps reorder their random weights so
// (lstm_variants.h), and the kernels read them so.
//
// The reference takes the model's [4][units][depth] matrices as they are.
// The DSP variant takes each gate's matrix in FULLY_CONNECTED's blocked
// layout (fully_connected_blocks.h), the MVE variant in the layout of the
// MVE matrix multiplies (gemm_mve_layout.h): the same dot products as the
// fully connected variants of their cores. Both start each gate's matrix
// at a multiple of 4 bytes (the DSP dot product loads a block's weights as
// aligned word pairs), the padding between gates zero.
#pragma once

#include <stdint.h>

#include "kernels/lstm/lstm.h"

namespace tinyaot {

enum class LstmWeightLayout : uint8_t { kModel, kDspBlocks, kMveGroups };

// Bytes from one gate's matrix [rows][depth] to the next one's.
inline int64_t lstm_gate_stride(LstmWeightLayout layout, int32_t rows, int32_t depth) {
  const int64_t bytes = int64_t{rows} * depth;
  return layout == LstmWeightLayout::kModel ? bytes : (bytes + 3) & ~int64_t{3};
}

}  // namespace tinyaot
