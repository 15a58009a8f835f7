// FULLY_CONNECTED for cores without DSP instructions (Cortex-M0, M3): four
// units per pass over the input row (fully_connected_rows.h), their weights
// interleaved by the compiler (fully_connected_blocks.h), so each input
// value is loaded once for four multiply-accumulates and the weights of a
// group are read at immediate offsets from one pointer.
//
// The weights are stored as offset binary, u = w + 128 (0..255): Cortex-M0
// has LDRB with an immediate offset but LDRSB only with a register one, so
// a signed weight would cost a load and a sign extension. Then
//   sum_d x_d * w_d = sum_d x_d * u_d - 128 * sum_d x_d,
// and the second term is the same for every unit of an input row: each
// sum starts from it, computed once per row. On M0 a MAC is then LDRB,
// MULS, ADD; on M3 LDRB and MLA. The input offset's share is in the bias.
#include "kernels/common/output_step.h"
#include "kernels/common/quant.h"
#include "kernels/common/validate.h"
#include "kernels/common/weighted_operands.h"
#include "kernels/fully_connected/fully_connected.h"
#include "kernels/fully_connected/fully_connected_blocks.h"
#include "kernels/fully_connected/fully_connected_checks.h"
#include "kernels/fully_connected/fully_connected_rows.h"

namespace tinyaot {
namespace {

// sum += x * u, kept in program order: an empty asm on the sum stops GCC
// from reassociating a group's four products into a tree (a MUL and an
// extra ADD per row per group, and on Cortex-M0 spilled registers, since
// all four inputs are then live at once).
inline void mac(uint32_t& sum, int32_t x, uint8_t u) {
  sum += static_cast<uint32_t>(x * u);
  __asm__("" : "+r"(sum));
}

struct OffsetBinaryDot {
  // -128 * the sum of the row's inputs (wrapping, as the accumulator).
  static uint32_t start(const int8_t* in, int32_t depth) {
    uint32_t sum = 0;
    for (int32_t d = 0; d < depth; ++d) sum += static_cast<uint32_t>(int32_t{in[d]});
    return 0u - sum * static_cast<uint32_t>(kFcOffsetBinary);
  }

  static void block(const int8_t* in, const int8_t* weights, int32_t depth, uint32_t start,
                    uint32_t* acc) {
    const uint8_t* u = reinterpret_cast<const uint8_t*>(weights);
    const int32_t whole = depth - depth % kFcGroupDepth;
    const int8_t* const whole_end = in + whole;
    uint32_t s0 = start, s1 = start, s2 = start, s3 = start;
    // Depth by depth within the group, so one input value is live at a
    // time (Cortex-M0 has eight low registers).
    for (; in != whole_end; in += kFcGroupDepth, u += kFcBlockRows * kFcGroupDepth) {
#pragma GCC unroll 4
      for (int32_t k = 0; k < kFcGroupDepth; ++k) {
        const int32_t x = in[k];
        mac(s0, x, u[k]);
        mac(s1, x, u[kFcGroupDepth + k]);
        mac(s2, x, u[2 * kFcGroupDepth + k]);
        mac(s3, x, u[3 * kFcGroupDepth + k]);
      }
    }
    const int32_t tail = depth - whole;
    for (int32_t k = 0; k < tail; ++k) {
      const int32_t x = in[k];
      s0 += static_cast<uint32_t>(x * u[k]);
      s1 += static_cast<uint32_t>(x * u[tail + k]);
      s2 += static_cast<uint32_t>(x * u[2 * tail + k]);
      s3 += static_cast<uint32_t>(x * u[3 * tail + k]);
    }
    acc[0] = s0;
    acc[1] = s1;
    acc[2] = s2;
    acc[3] = s3;
  }

  static uint32_t row(const int8_t* in, const int8_t* weights, int32_t depth, uint32_t start) {
    const uint8_t* u = reinterpret_cast<const uint8_t*>(weights);
    uint32_t sum = start;
    for (int32_t d = 0; d < depth; ++d) sum += static_cast<uint32_t>(in[d] * u[d]);
    return sum;
  }
};

Status run(const KernelArgs& args) {
  const auto& p = *static_cast<const FullyConnectedParams*>(args.params);
  const WeightedOperands o = weighted_operands(args);
  with_any_rounding(args.rounding, [&](auto mode) {
    multiply_blocked<OffsetBinaryDot, decltype(mode)::value>(p, o.input, o.filter, o.quant,
                                                             o.output);
  });
  return Status::kOk;
}

}  // namespace

const KernelDescriptor kernel_fully_connected_s8_blocked = {
    "fully_connected_s8_blocked",
    "fully_connected",
    1,
    sizeof(FullyConnectedParams),
    3,
    3,
    1,
    IsaClass::kScalar,
    "input:s8[batches,input_depth], "
    "filter:u8[output_depth,input_depth]{w+128, blocks of 4 units x groups of 4 depths}, "
    "quant:ChannelQuant[output_depth]{bias+=input_offset*sum(filter[o])} "
    "-> output:s8[batches,output_depth]; "
    "params=FullyConnectedParams{batches,input_depth,output_depth,input_offset,"
    "output_offset,act_min,act_max}",
    run,
    validate_blocked_fully_connected_operands,
    nullptr,
};

}  // namespace tinyaot
