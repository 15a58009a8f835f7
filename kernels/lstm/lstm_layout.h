// How each UNIDIRECTIONAL_SEQUENCE_LSTM variant takes its gates' weights
// (freestanding, header-only, host and device), written once: the
// compiler stores them so, the sweeps reorder their random weights so,
// and the kernels read them so.
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

#include "kernels/common/gemm_mve_layout.h"
#include "kernels/fully_connected/fully_connected_blocks.h"
#include "kernels/lstm/lstm.h"

namespace tinyaot {

enum class LstmWeightLayout : uint8_t { kModel, kDspBlocks, kMveGroups };

// Bytes from one gate's matrix [rows][depth] to the next one's.
inline int64_t lstm_gate_stride(LstmWeightLayout layout, int32_t rows, int32_t depth) {
  const int64_t bytes = int64_t{rows} * depth;
  return layout == LstmWeightLayout::kModel ? bytes : (bytes + 3) & ~int64_t{3};
}

// The model's four matrices [4][rows][depth] as a variant of `layout`
// reads them (`ordered`: 4 * lstm_gate_stride bytes).
inline void order_lstm_weights(LstmWeightLayout layout, int32_t rows, int32_t depth,
                               const int8_t* model, int8_t* ordered) {
  const int64_t stride = lstm_gate_stride(layout, rows, depth);
  const int64_t bytes = int64_t{rows} * depth;
  for (int32_t gate = 0; gate < kLstmGateCount; ++gate) {
    const int8_t* from = model + gate * bytes;
    int8_t* to = ordered + gate * stride;
    if (layout == LstmWeightLayout::kDspBlocks)
      order_fully_connected_weights(rows, depth, FcWeightCode::kSigned, from, to);
    else if (layout == LstmWeightLayout::kMveGroups)
      order_mve_weights(from, rows, depth, to);
    else
      for (int64_t i = 0; i < bytes; ++i) to[i] = from[i];
    for (int64_t i = bytes; i < stride; ++i) to[i] = 0;
  }
}

// The layout `kernel` takes (any LSTM variant).
inline LstmWeightLayout lstm_weight_layout(const KernelDescriptor* kernel) {
  if (kernel == &kernel_unidirectional_lstm_s8_dsp) return LstmWeightLayout::kDspBlocks;
  if (kernel == &kernel_unidirectional_lstm_s8_mve) return LstmWeightLayout::kMveGroups;
  return LstmWeightLayout::kModel;
}

}  // namespace tinyaot
