// DEPTHWISE_CONV_2D 16x8, depth multiplier 1, for every core without MVE:
// the window clipped once per pixel, four channels' sums in registers
// (depthwise_conv2d_s16_channels.h); on DSP cores the compiler's
// SMLABB/SMLAL take a MAC in one instruction. Bit-exact with
// depthwise_conv2d_s16_ref.
#include "kernels/depthwise_conv2d/depthwise_conv2d_s16_channels.h"

namespace tinyaot {
namespace {

// Four channels a block: with two int64 sums GCC 12 takes 18.5
// instructions a MAC on a 3x3 layer (M4, QEMU), with four 15.7.
constexpr int kBlockChannels = 4;

template <Rounding R, typename Acc>
TINYAOT_MODE_LOOP void convolve(const DepthwiseConv2dParams& p, const Int16x8Operands& o) {
  for_each_depthwise_s16_block<kBlockChannels>(
      p, o.input, o.output,
      [&](const DepthwiseTaps& taps, int32_t first, int32_t count, int16_t* out) {
        if (count == kBlockChannels) {
          Acc acc[kBlockChannels] = {};
          depthwise_s16_sums<Acc, kBlockChannels>(p, o.filter, taps, first, acc);
          for (int c = 0; c < kBlockChannels; ++c)
            out[first + c] = int16x8_output_step<R>(acc[c], first + c, o, p);
          return;
        }
        for (int32_t c = first; c < first + count; ++c) {
          Acc acc[1] = {};
          depthwise_s16_sums<Acc, 1>(p, o.filter, taps, c, acc);
          out[c] = int16x8_output_step<R>(acc[0], c, o, p);
        }
      });
}

Status run(const KernelArgs& args) {
  const auto& p = *static_cast<const DepthwiseConv2dParams*>(args.params);
  const Int16x8Operands o = int16x8_operands(args);
  with_int16x8_accumulator(args, o, [&](auto mode, auto accumulator) {
    convolve<decltype(mode)::value, typename decltype(accumulator)::type>(p, o);
  });
  return Status::kOk;
}

}  // namespace

const KernelDescriptor kernel_depthwise_conv2d_s16_scalar = {
    "depthwise_conv2d_s16_scalar",
    "depthwise_conv2d_s16",
    1,
    sizeof(DepthwiseConv2dParams),
    3,
    4,
    1,
    IsaClass::kScalar,
    TINYAOT_DEPTHWISE_CONV2D_S16_SIGNATURE,
    run,
    validate_depthwise_conv2d_s16_fast,
    nullptr,
};

}  // namespace tinyaot
