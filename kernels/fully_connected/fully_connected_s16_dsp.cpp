// FULLY_CONNECTED 16x8 for DSP cores (M4/M7/M33): SMLAD/SMLALD on int16 pairs, the weights widened
// by SXTB16 (kernels/common/dot_s16x8.h), a block of units per pass over the inputs
// (fully_connected_s16_rows.h). Bit-exact with fully_connected_s16_ref; the weights as the model
// has them.
#include "kernels/fully_connected/fully_connected_s16_rows.h"

namespace tinyaot {

const KernelDescriptor kernel_fully_connected_s16_dsp = {
    "fully_connected_s16_dsp",
    "fully_connected_s16",
    1,
    sizeof(FullyConnectedParams),
    3,
    4,
    1,
    IsaClass::kDsp,
    TINYAOT_FULLY_CONNECTED_S16_SIGNATURE,
    run_fully_connected_s16<DspDot>,
    validate_fully_connected_s16,
    nullptr,
};

}  // namespace tinyaot
