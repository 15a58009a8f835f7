// AVERAGE_POOL_2D in rounding mode onnx: onnxruntime's QLinearAveragePool
// (qlinear_pool.cc, tests/onnx_ops/README.md), a float32 chain where
// TFLite's is an integer average: each cell dequantized, d = f32(s * f32(q
// - z)), the window's cells summed in float32 in row-major order, avg =
// f32(sum / count) over the cells inside the input (count_include_pad 0,
// the only kind imported), q = clamp(rint(f32(f32(avg / s) + z))). Input
// and output share their quantization (pool_params). On a core without an
// FPU these are the compiler's soft-float calls. The reference of the
// family: the faster variants take the chain's result from integer sums
// (onnx_average.h).
#include "kernels/pooling/onnx_average.h"
#include "kernels/pooling/pool_walk.h"
#include "kernels/pooling/pooling.h"

namespace tinyaot {
namespace {

Status run(const KernelArgs& args) {
  const auto& onnx = *static_cast<const AvgPool2dOnnxParams*>(args.params);
  const OnnxPoolChain chain(onnx);
  const int32_t channels = onnx.pool.channels;
  for_each_pool_window(onnx.pool, static_cast<const int8_t*>(args.inputs[0].data),
                       static_cast<int8_t*>(args.outputs[0].data),
                       [&](const PoolWindow& w, int8_t* out) {
                         for (int32_t c = 0; c < channels; ++c)
                           out[c] = chain.window_output(w, channels, c);
                       });
  return Status::kOk;
}

}  // namespace

const KernelDescriptor kernel_avg_pool2d_s8_onnx = {
    "avg_pool2d_s8_onnx",
    "avg_pool2d_onnx",  // another arithmetic, not a variant of avg_pool2d
    1,
    sizeof(AvgPool2dOnnxParams),
    1,
    1,
    1,
    IsaClass::kScalar,
    TINYAOT_AVG_POOL2D_ONNX_SIGNATURE,
    run,
    validate_avg_pool2d_onnx,
    nullptr,
};

}  // namespace tinyaot
