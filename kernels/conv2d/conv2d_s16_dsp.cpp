// CONV_2D 16x8 for DSP cores (M4/M7/M33): SMLAD/SMLALD on int16 pairs, the weights widened by
// SXTB16 (kernels/common/dot_s16x8.h), the window's rows as contiguous runs (conv2d_s16_windows.h).
// Bit-exact with conv2d_s16_ref; the weights as the model has them, no scratch.
#include "kernels/conv2d/conv2d_s16_windows.h"

namespace tinyaot {

const KernelDescriptor kernel_conv2d_s16_dsp = {
    "conv2d_s16_dsp",
    "conv2d_s16",
    1,
    sizeof(Conv2dParams),
    3,
    4,
    1,
    IsaClass::kDsp,
    TINYAOT_CONV2D_S16_SIGNATURE,
    run_conv2d_s16<DspDot>,
    validate_conv2d_s16,
    nullptr,
};

}  // namespace tinyaot
