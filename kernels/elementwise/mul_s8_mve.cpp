// MUL on MVE, bit-exact with mul_s8_ref: four elements per vector
// (widening byte loads to int32 lanes), tail-predicated, for rows as
// is_mul_mve_case takes them (same shapes, a row repeated such as a
// per-channel operand, or one value per row: a scalar operand, put second,
// joins as b times 0 plus its value and offset). Per four elements: the
// offsets added (VADD, VMLAS), one VMUL, the product requantized by
// VQRDMULH and a rounding VRSHL (VQDMULH + VRSHL in single rounding, see
// elementwise_mve.h), offset, clamp, one narrowing VSTRB.
#include "kernels/common/output_step.h"
#include "kernels/common/quant.h"
#include "kernels/elementwise/elementwise.h"
#include "kernels/elementwise/elementwise_mve.h"
#include "kernels/elementwise/mul_cases.h"
#include "tinyaot/load_time.h"

namespace tinyaot {
namespace {

#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1)

template <Rounding R>
inline int32x4_t mul_x4(int32x4_t a, int32x4_t b, int32x4_t b_unit, int32_t b_base,
                        const MulParams& p, int32x4_t act_min, int32x4_t act_max) {
  const int32x4_t product =
      vmulq_s32(vaddq_n_s32(a, p.input1_offset), vmlasq_n_s32(b, b_unit, b_base));
  const int32x4_t value = requantize_mve_n<R>(product, p.output_multiplier, p.output_shift);
  return vminq_s32(vmaxq_s32(vaddq_n_s32(value, p.output_offset), act_min), act_max);
}

template <Rounding R>
TINYAOT_MODE_LOOP void mul_rows(const MulParams& params, const int8_t* input1, const int8_t* input2,
                                int8_t* output) {
  const MulParams p = params;  // locals: stores through `out` cannot change them
  const int32x4_t act_min = vdupq_n_s32(p.act_min);
  const int32x4_t act_max = vdupq_n_s32(p.act_max);
  // Input 2 one value per row (run puts a scalar operand second): b + offset
  // is b times 0 plus (value + offset), its lanes reading input 1's row.
  const bool b_scalar = is_row_scalar2(p.shape);
  const int32x4_t b_unit = vdupq_n_s32(b_scalar ? 0 : 1);
  broadcast_rows(p.shape, input1, input2, output,
                 [&](const int8_t* a, const int8_t* b, int8_t* out, int32_t n) {
                   const int32_t b_base = b_scalar ? *b + p.input2_offset : p.input2_offset;
                   if (b_scalar) b = a;
                   const auto step = [&](int32x4_t a4, int32x4_t b4) {
                     return mul_x4<R>(a4, b4, b_unit, b_base, p, act_min, act_max);
                   };
                   rows_x4(a, b, out, n, step);
                 });
}

#else

// Elsewhere (the host running a program planned for an MVE core): the
// same rows element by element through quant.h.
template <Rounding R>
TINYAOT_MODE_LOOP void mul_rows(const MulParams& p, const int8_t* input1, const int8_t* input2,
                                int8_t* output) {
  const int32_t step2 = is_row_scalar2(p.shape) ? 0 : 1;
  broadcast_rows(p.shape, input1, input2, output,
                 [&](const int8_t* a, const int8_t* b, int8_t* out, int32_t n) {
                   for (int32_t i = 0; i < n; ++i) {
                     const int32_t product =
                         (a[i] + p.input1_offset) * (b[i * step2] + p.input2_offset);
                     out[i] = output_step<R>(product, 0, p.output_multiplier, p.output_shift,
                                             p.output_offset, p.act_min, p.act_max);
                   }
                 });
}

#endif

TINYAOT_LOAD_TIME Status validate(const void* raw, const OperandView* inputs, uint32_t num_inputs,
                                  const OperandView* outputs, uint32_t num_outputs) {
  const Status status = validate_mul(raw, inputs, num_inputs, outputs, num_outputs);
  if (status != Status::kOk) return status;
  return is_mul_mve_case(*static_cast<const MulParams*>(raw)) ? Status::kOk : Status::kBadParams;
}

Status run(const KernelArgs& args) {
  MulParams p = *static_cast<const MulParams*>(args.params);
  const auto* input1 = static_cast<const int8_t*>(args.inputs[0].data);
  const auto* input2 = static_cast<const int8_t*>(args.inputs[1].data);
  auto* output = static_cast<int8_t*>(args.outputs[0].data);
  if (is_row_scalar1(p.shape)) {  // the product commutes: the scalar operand second
    const int8_t* first = input1;
    input1 = input2;
    input2 = first;
    const int32_t offset = p.input1_offset;
    p.input1_offset = p.input2_offset;
    p.input2_offset = offset;
    for (int d = 0; d < kBroadcastRank; ++d) {
      const int32_t stride = p.shape.strides1[d];
      p.shape.strides1[d] = p.shape.strides2[d];
      p.shape.strides2[d] = stride;
    }
  }
  with_rounding(args.rounding,
                [&](auto mode) { mul_rows<decltype(mode)::value>(p, input1, input2, output); });
  return Status::kOk;
}

}  // namespace

const KernelDescriptor kernel_mul_s8_mve = {
    "mul_s8_mve",
    "mul",
    2,
    sizeof(MulParams),
    2,
    2,
    1,
    IsaClass::kMve,
    kMulSignature,
    run,
    validate,
    nullptr,
    kElementwiseInPlaceInputs,
};

}  // namespace tinyaot
