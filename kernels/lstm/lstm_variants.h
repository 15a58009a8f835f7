// Which weight layout each UNIDIRECTIONAL_SEQUENCE_LSTM variant takes, and
// the model's weights put in it (freestanding, header-only): what the
// lowering and the sweeps ask, apart from lstm_layout.h so that the
// kernels' headers name no variant's descriptor.
#pragma once

#include <stdint.h>

#include "kernels/common/gemm_mve_layout.h"
#include "kernels/fully_connected/fully_connected_blocks.h"
#include "kernels/lstm/lstm.h"
#include "kernels/lstm/lstm_layout.h"

namespace tinyaot {

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
