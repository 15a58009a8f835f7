// ADD and SUB on MVE, bit-exact with add_s8_ref / sub_s8_ref: four
// elements per vector (widening byte loads to int32 lanes), tail-predicated,
// for rows as is_add_sub_mve_case takes them (a scalar operand's value
// joins its per-row base). TFLite's math:
// the exact input (rescale 0.5) is (x + offset) * 2^19 by one VMLAS; the
// other is (x + offset) * 2^20 (one VMLAS) requantized by VQRDMULH and a
// rounding VRSHL (VQDMULH + VRSHL in single rounding); the sum or
// difference is requantized the same way, offset, clamped and stored by a
// narrowing VSTRB. An exact other input runs the same steps as
// (x + offset) * 2^21 by 2^30 with a right shift of one, which is exact.
// About 17 instructions per four elements against 16-21 per element for
// add_s8_flat.
#include "kernels/common/output_step.h"
#include "kernels/common/quant.h"
#include "kernels/elementwise/add_sub_cases.h"
#include "kernels/elementwise/elementwise.h"
#include "kernels/elementwise/elementwise_mve.h"
#include "tinyaot/load_time.h"

namespace tinyaot {
namespace {

// `e` is the exact input, `x` the other; raw = e_unit * (e + e_offset) +-
// requantize((x + x_offset) * x_unit, x_multiplier, x_shift).
struct Constants {
  int32_t e_unit, e_base;  // +-2^19 (negative when input 2 is exact in SUB), e_unit * offset
  int32_t x_unit, x_base;  // 2^20 or 2^21 (exact), x_unit * offset
  int32_t x_multiplier, x_shift;
  int32_t out_multiplier, out_shift, out_offset;
  int32_t act_min, act_max;
};

#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1)

template <Rounding R, bool kSubtract>
inline int32x4_t add_sub_x4(int32x4_t e, int32x4_t x, const Constants& k, int32x4_t e_unit,
                            int32x4_t x_unit, int32x4_t act_min, int32x4_t act_max) {
  const int32x4_t scaled_e = vmlasq_n_s32(e, e_unit, k.e_base);
  const int32x4_t scaled_x =
      requantize_mve_n<R>(vmlasq_n_s32(x, x_unit, k.x_base), k.x_multiplier, k.x_shift);
  const int32x4_t raw = kSubtract ? vsubq_s32(scaled_e, scaled_x) : vaddq_s32(scaled_e, scaled_x);
  const int32x4_t value = requantize_mve_n<R>(raw, k.out_multiplier, k.out_shift);
  return vminq_s32(vmaxq_s32(vaddq_n_s32(value, k.out_offset), act_min), act_max);
}

template <Rounding R, bool kSubtract>
TINYAOT_MODE_LOOP void add_sub_rows(const BroadcastShape& shape, const int8_t* e, const int8_t* x,
                                    int8_t* output, const Constants& constants) {
  const Constants all = constants;  // locals: stores through `out` cannot change them
  const bool e_scalar = is_row_scalar1(shape), x_scalar = is_row_scalar2(shape);
  const int32x4_t e_unit = vdupq_n_s32(e_scalar ? 0 : all.e_unit);
  const int32x4_t x_unit = vdupq_n_s32(x_scalar ? 0 : all.x_unit);
  const int32x4_t act_min = vdupq_n_s32(all.act_min);
  const int32x4_t act_max = vdupq_n_s32(all.act_max);
  broadcast_rows(shape, e, x, output,
                 [&](const int8_t* a, const int8_t* b, int8_t* out, int32_t n) {
                   // A scalar operand: its unit times its value joins the
                   // base, its lanes read the other row times 0.
                   Constants k = all;
                   if (e_scalar) {
                     k.e_base += all.e_unit * *a;
                     a = b;
                   } else if (x_scalar) {
                     k.x_base += all.x_unit * *b;
                     b = a;
                   }
                   const auto step = [&](int32x4_t a4, int32x4_t b4) {
                     return add_sub_x4<R, kSubtract>(a4, b4, k, e_unit, x_unit, act_min, act_max);
                   };
                   rows_x4(a, b, out, n, step);
                 });
}

#else

// Elsewhere (the host running a program planned for an MVE core): the same
// constants element by element through quant.h.
template <Rounding R, bool kSubtract>
TINYAOT_MODE_LOOP void add_sub_rows(const BroadcastShape& shape, const int8_t* e, const int8_t* x,
                                    int8_t* output, const Constants& k) {
  const int32_t step_e = is_row_scalar1(shape) ? 0 : 1, step_x = is_row_scalar2(shape) ? 0 : 1;
  broadcast_rows(
      shape, e, x, output, [&](const int8_t* a, const int8_t* b, int8_t* out, int32_t n) {
        for (int32_t i = 0; i < n; ++i) {
          const int32_t scaled_e = a[i * step_e] * k.e_unit + k.e_base;
          const int32_t scaled_x =
              requantize<R>(b[i * step_x] * k.x_unit + k.x_base, k.x_multiplier, k.x_shift);
          const int32_t raw = kSubtract ? scaled_e - scaled_x : scaled_e + scaled_x;
          const int32_t value = requantize<R>(raw, k.out_multiplier, k.out_shift) + k.out_offset;
          out[i] = static_cast<int8_t>(clamp_i32(value, k.act_min, k.act_max));
        }
      });
}

#endif

TINYAOT_LOAD_TIME Status validate(const void* raw, const OperandView* inputs, uint32_t num_inputs,
                                  const OperandView* outputs, uint32_t num_outputs) {
  const Status status = validate_add_sub(raw, inputs, num_inputs, outputs, num_outputs);
  if (status != Status::kOk) return status;
  return is_add_sub_mve_case(*static_cast<const AddSubParams*>(raw)) ? Status::kOk
                                                                     : Status::kBadParams;
}

template <int kSign>
Status run(const KernelArgs& args) {
  const auto& p = *static_cast<const AddSubParams*>(args.params);
  const auto* input1 = static_cast<const int8_t*>(args.inputs[0].data);
  const auto* input2 = static_cast<const int8_t*>(args.inputs[1].data);
  auto* output = static_cast<int8_t*>(args.outputs[0].data);

  // raw = scaled1 + kSign * scaled2 with the exact input as `e` (input 1
  // when both are): in SUB with input 2 exact, raw = scaled_x - scaled_e.
  const bool first_exact = is_exact_input_scale(p.input1_multiplier, p.input1_shift);
  const bool subtract_x = kSign < 0 && first_exact;
  const int32_t sign_e = kSign < 0 && !first_exact ? -1 : 1;
  const int32_t multiplier_x = first_exact ? p.input2_multiplier : p.input1_multiplier;
  const int32_t shift_x = first_exact ? p.input2_shift : p.input1_shift;
  const int32_t offset_x = first_exact ? p.input2_offset : p.input1_offset;
  const bool x_exact = is_exact_input_scale(multiplier_x, shift_x);
  Constants k;
  k.e_unit = sign_e * (int32_t{1} << 19);
  k.e_base = k.e_unit * (first_exact ? p.input1_offset : p.input2_offset);
  k.x_unit = int32_t{1} << (x_exact ? 21 : 20);
  k.x_base = k.x_unit * offset_x;
  k.x_multiplier = multiplier_x;
  k.x_shift = x_exact ? -1 : shift_x;
  k.out_multiplier = p.output_multiplier;
  k.out_shift = p.output_shift;
  k.out_offset = p.output_offset;
  k.act_min = p.act_min;
  k.act_max = p.act_max;

  // The walk's strides in the order e, x.
  BroadcastShape shape = p.shape;
  if (!first_exact) {
    for (int d = 0; d < kBroadcastRank; ++d) {
      shape.strides1[d] = p.shape.strides2[d];
      shape.strides2[d] = p.shape.strides1[d];
    }
  }
  const int8_t* e = first_exact ? input1 : input2;
  const int8_t* x = first_exact ? input2 : input1;
  with_rounding(args.rounding, [&](auto mode) {
    constexpr Rounding R = decltype(mode)::value;
    if (subtract_x) {
      add_sub_rows<R, true>(shape, e, x, output, k);
    } else {
      add_sub_rows<R, false>(shape, e, x, output, k);
    }
  });
  return Status::kOk;
}

}  // namespace

const KernelDescriptor kernel_add_s8_mve = {
    "add_s8_mve",
    "add",
    2,
    sizeof(AddSubParams),
    2,
    2,
    1,
    IsaClass::kMve,
    kAddSubSignature,
    run<+1>,
    validate,
    nullptr,
    kElementwiseInPlaceInputs,
};

const KernelDescriptor kernel_sub_s8_mve = {
    "sub_s8_mve",
    "sub",
    2,
    sizeof(AddSubParams),
    2,
    2,
    1,
    IsaClass::kMve,
    kAddSubSignature,
    run<-1>,
    validate,
    nullptr,
    kElementwiseInPlaceInputs,
};

}  // namespace tinyaot
