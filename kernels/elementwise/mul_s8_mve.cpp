// MUL on MVE, bit-exact with mul_s8_ref: four elements per vector
// (widening byte loads to int32 lanes), tail-predicated, for rows
// contiguous in both inputs (is_mul_mve_case: same shapes, or a row
// repeated such as a per-channel operand). Per four elements: both offsets
// added (VADD), one VMUL, the product requantized by VQRDMULH and a
// rounding VRSHL (VQDMULH + VRSHL in single rounding, see
// elementwise_mve.h), offset, clamp, one narrowing VSTRB.
#include "kernels/common/output_step.h"
#include "kernels/common/quant.h"
#include "kernels/elementwise/elementwise.h"
#include "kernels/elementwise/elementwise_mve.h"
#include "kernels/elementwise/mul_cases.h"

namespace tinyaot {
namespace {

#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1)

template <Rounding R>
inline int32x4_t mul_x4(int32x4_t a, int32x4_t b, const MulParams& p, int32x4_t act_min,
                        int32x4_t act_max) {
  const int32x4_t product =
      vmulq_s32(vaddq_n_s32(a, p.input1_offset), vaddq_n_s32(b, p.input2_offset));
  const int32x4_t value = requantize_mve_n<R>(product, p.output_multiplier, p.output_shift);
  return vminq_s32(vmaxq_s32(vaddq_n_s32(value, p.output_offset), act_min), act_max);
}

template <Rounding R>
TINYAOT_MODE_LOOP void mul_rows(const MulParams& params, const int8_t* input1, const int8_t* input2,
                                int8_t* output) {
  const MulParams p = params;  // locals: stores through `out` cannot change them
  const int32x4_t act_min = vdupq_n_s32(p.act_min);
  const int32x4_t act_max = vdupq_n_s32(p.act_max);
  broadcast_rows(
      p.shape, input1, input2, output,
      [&](const int8_t* a, const int8_t* b, int8_t* out, int32_t n) {
        for (; n >= 4; n -= 4, a += 4, b += 4, out += 4)
          vstrbq_s32(out, mul_x4<R>(vldrbq_s32(a), vldrbq_s32(b), p, act_min, act_max));
        if (n > 0) {
          const mve_pred16_t lanes = vctp32q(static_cast<uint32_t>(n));
          vstrbq_p_s32(
              out, mul_x4<R>(vldrbq_z_s32(a, lanes), vldrbq_z_s32(b, lanes), p, act_min, act_max),
              lanes);
        }
      });
}

#else

// Elsewhere (the host running a program planned for an MVE core): the
// same rows element by element through quant.h.
template <Rounding R>
TINYAOT_MODE_LOOP void mul_rows(const MulParams& p, const int8_t* input1, const int8_t* input2,
                                int8_t* output) {
  broadcast_rows(p.shape, input1, input2, output,
                 [&](const int8_t* a, const int8_t* b, int8_t* out, int32_t n) {
                   for (int32_t i = 0; i < n; ++i) {
                     const int32_t product = (a[i] + p.input1_offset) * (b[i] + p.input2_offset);
                     out[i] = output_step<R>(product, 0, p.output_multiplier, p.output_shift,
                                             p.output_offset, p.act_min, p.act_max);
                   }
                 });
}

#endif

Status validate(const void* raw, const OperandView* inputs, uint32_t num_inputs,
                const OperandView* outputs, uint32_t num_outputs) {
  const Status status = validate_mul(raw, inputs, num_inputs, outputs, num_outputs);
  if (status != Status::kOk) return status;
  return is_mul_mve_case(*static_cast<const MulParams*>(raw)) ? Status::kOk : Status::kBadParams;
}

Status run(const KernelArgs& args) {
  const auto& p = *static_cast<const MulParams*>(args.params);
  const auto* input1 = static_cast<const int8_t*>(args.inputs[0].data);
  const auto* input2 = static_cast<const int8_t*>(args.inputs[1].data);
  auto* output = static_cast<int8_t*>(args.outputs[0].data);
  with_rounding(args.rounding,
                [&](auto mode) { mul_rows<decltype(mode)::value>(p, input1, input2, output); });
  return Status::kOk;
}

}  // namespace

const KernelDescriptor kernel_mul_s8_mve = {
    "mul_s8_mve",   "mul",         1,   sizeof(MulParams), 2,       2, 1,
    IsaClass::kMve, kMulSignature, run, validate,          nullptr,
};

}  // namespace tinyaot
