// The row-blocked weight layout of FULLY_CONNECTED's DSP and scalar
// variants (freestanding, header-only), written once: the compiler stores
// the weights so, the sweeps reorder their random weights so, and the
// kernels (fully_connected_blocked.h) read them so.
//
// The units go in blocks of kFcBlockRows (4) rows, the units past the last
// whole block one by one. Within a block, the depth goes in groups of
// kFcGroupDepth (4): per group the four weights of the block's first row,
// the four of its second, and so on, then each row's last depth % 4
// weights. One pointer thus walks the block, one aligned 16-byte load per
// group: the loop widens one input word and reads four rows' words. A lone
// row is its model row. Same size as the model's [units][depth].
#pragma once

#include <stdint.h>

#include "kernels/common/gemm_mve_layout.h"
#include "kernels/fully_connected/fully_connected.h"

namespace tinyaot {

constexpr int32_t kFcBlockRows = 4;
constexpr int32_t kFcGroupDepth = 4;

// Units in whole blocks; the rest run one by one.
inline int32_t fc_blocked_units(int32_t units) { return units - units % kFcBlockRows; }

// Where weight [unit][d] of a [units][depth] matrix goes.
inline int32_t fc_block_position(int32_t units, int32_t depth, int32_t unit, int32_t d) {
  const bool blocked = unit < fc_blocked_units(units);
  const int32_t rows = blocked ? kFcBlockRows : 1;
  const int32_t row = blocked ? unit % kFcBlockRows : 0;
  const int32_t group = d - d % kFcGroupDepth;
  const int32_t width = depth - group < kFcGroupDepth ? depth - group : kFcGroupDepth;
  return (unit - row) * depth + group * rows + row * width + d % kFcGroupDepth;
}

// How a variant's weights are stored besides their order: as the model's
// int8, or as offset binary (w + 128, an unsigned byte) for cores whose
// only cheap byte load with an immediate offset zero-extends (Cortex-M0).
enum class FcWeightCode : uint8_t { kSigned, kOffsetBinary };

constexpr int32_t kFcOffsetBinary = 128;

// Model-order weights [units][depth] into the layout above, coded as asked
// (`ordered` as large as `model`).
inline void order_fully_connected_weights(int32_t units, int32_t depth, FcWeightCode code,
                                          const int8_t* model, int8_t* ordered) {
  const int32_t add = code == FcWeightCode::kOffsetBinary ? kFcOffsetBinary : 0;
  for (int32_t unit = 0; unit < units; ++unit)
    for (int32_t d = 0; d < depth; ++d)
      ordered[fc_block_position(units, depth, unit, d)] =
          static_cast<int8_t>(static_cast<uint8_t>(model[unit * depth + d] + add));
}

// The variants that take their weights in the blocked layout, and how they
// code them (the lowering and the sweeps ask these).
inline bool fully_connected_variant_blocks_weights(const KernelDescriptor* kernel) {
  return kernel == &kernel_fully_connected_s8_dsp || kernel == &kernel_fully_connected_s8_blocked;
}

inline FcWeightCode fully_connected_weight_code(const KernelDescriptor* kernel) {
  return kernel == &kernel_fully_connected_s8_blocked ? FcWeightCode::kOffsetBinary
                                                      : FcWeightCode::kSigned;
}

// Whether `kernel` reads its weights in another order than the model's:
// the blocked layout above, or the MVE variant's (gemm_mve_layout.h).
inline bool fully_connected_variant_orders_weights(const KernelDescriptor* kernel) {
  return fully_connected_variant_blocks_weights(kernel) || kernel == &kernel_fully_connected_s8_mve;
}

// The model's weights [units][depth] as `kernel` reads them (`ordered` as
// large as `model`).
inline void order_fully_connected_weights(const KernelDescriptor* kernel, int32_t units,
                                          int32_t depth, const int8_t* model, int8_t* ordered) {
  if (kernel == &kernel_fully_connected_s8_mve) {
    order_mve_weights(model, units, depth, ordered);
  } else if (fully_connected_variant_blocks_weights(kernel)) {
    order_fully_connected_weights(units, depth, fully_connected_weight_code(kernel), model,
                                  ordered);
  } else {
    for (int64_t i = 0; i < int64_t{units} * depth; ++i) ordered[i] = model[i];
  }
}

}  // namespace tinyaot
