// CONV_2D 16x8 for MVE cores (M55): VMLADAVA/VMLALDAVA.S16 on eight depths a vector, the weights
// widened to int16 lanes by the load (kernels/common/dot_s16x8.h), the window's rows as contiguous
// runs (conv2d_s16_windows.h). Bit-exact with conv2d_s16_ref; the weights as the model has them, no
// scratch.
#include "kernels/conv2d/conv2d_s16_windows.h"

namespace tinyaot {

const KernelDescriptor kernel_conv2d_s16_mve = {
    "conv2d_s16_mve",
    "conv2d_s16",
    1,
    sizeof(Conv2dParams),
    3,
    4,
    1,
    IsaClass::kMve,
    TINYAOT_CONV2D_S16_SIGNATURE,
    run_conv2d_s16<MveDot>,
    validate_conv2d_s16,
    nullptr,
};

}  // namespace tinyaot
