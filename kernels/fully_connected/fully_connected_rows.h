// The loop of FULLY_CONNECTED's row-blocked variants (freestanding,
// header-only), one template for the DSP and the scalar one: per input row,
// each block of four units (fully_connected_blocks.h) is accumulated in one
// pass over the input, each input value loaded once for the four units;
// the units past the last block run one by one. The input offset is in the
// bias (kernel_sums.h). `Dot` is the variant's arithmetic:
//   Dot::start(row, depth): every sum's starting value for that input row;
//   Dot::block(row, weights, depth, start, acc): acc[r] = start + the dot
//     product of the row with unit r of the block at `weights`;
//   Dot::row(row, weights, depth, start): start + one lone unit's product.
#pragma once

#include <stdint.h>

#include "kernels/common/output_step.h"
#include "kernels/common/quant.h"
#include "kernels/fully_connected/fully_connected.h"
#include "kernels/fully_connected/fully_connected_blocks.h"

namespace tinyaot {

template <typename Dot, Rounding R>
TINYAOT_MODE_LOOP void multiply_blocked(const FullyConnectedParams& p, const int8_t* input,
                                        const int8_t* filter, const ChannelQuant* quant,
                                        int8_t* output) {
  // A local copy: stores through `output` (int8_t*) may alias `p`, so GCC
  // would reload the output offset and activation range for every output
  // (ad01: 0.6% fewer instructions on M4 and M3, 0.4% more on M0).
  const FullyConnectedParams q = p;
  const int32_t depth = p.input_depth;
  const int32_t units = p.output_depth;
  const int32_t blocked = fc_blocked_units(units);
  for (int32_t b = 0; b < p.batches; ++b) {
    const int8_t* row = input + b * depth;
    int8_t* out = output + b * units;
    const uint32_t start = Dot::start(row, depth);
    const int8_t* weights = filter;
    int32_t o = 0;
    for (; o < blocked; o += kFcBlockRows, weights += kFcBlockRows * depth) {
      uint32_t acc[kFcBlockRows];
      Dot::block(row, weights, depth, start, acc);
      for (int32_t r = 0; r < kFcBlockRows; ++r)
        out[o + r] = fast_output_step<R>(acc[r], quant[o + r], q);
    }
    for (; o < units; ++o, weights += depth)
      out[o] = fast_output_step<R>(Dot::row(row, weights, depth, start), quant[o], q);
  }
}

}  // namespace tinyaot
