// ADD and SUB of two inputs of the output's own shape (no broadcast), bit-
// exact with add_s8_ref / sub_s8_ref: one flat loop, every constant derived
// once per call, the input with the larger scale rescaled by a shift alone
// (add_sub_cases.h), the other and the output by the forms of
// add_sub_flat_math.h (one SMMLAR each on DSP cores, SMLAL on Armv7-M, two
// 32-bit products and quant.h's halves on Armv6-M). Parameters are copied
// into locals: an int8 store may alias them as far as the compiler knows.
// In rounding mode onnx, with the lowering's onnx parameters, onnxruntime's
// float32 chains in one flat loop instead (add_sub_onnx.h), decided by a
// fixed-point estimate for all but the elements near a tie (four lanes a
// step when built for MVE).
#include "kernels/common/output_step.h"
#include "kernels/common/quant.h"
#include "kernels/elementwise/add_sub_cases.h"
#include "kernels/elementwise/add_sub_flat_math.h"
#include "kernels/elementwise/elementwise.h"
#include "tinyaot/load_time.h"

namespace tinyaot {
namespace {

using add_sub_flat::clamp_output;
using add_sub_flat::kHasLongMultiply;
using add_sub_flat::kHasSsat;

template <bool B>
struct BoolConstant {
  static constexpr bool value = B;
};

// Everything the loop needs, from the params: `e` is the exact input
// (scaled value (x + offset) * 2^19), `x` the other one.
struct Constants {
  // On cores with a long multiply values are kept doubled (2^20 per unit
  // of an exact input), else as TFLite's (2^19).
  int32_t e_base;  // the exact input's offset times its unit, signed
  int32_t x_base;  // exact other input: likewise; else offset * 2^21 (long) or offset
  int32_t x_multiplier, x_high, x_low, x_round, x_shift;
  int32_t out_multiplier, out_base, out_shift, out_offset;
  int32_t act_min, act_max;
};

constexpr int kUnitShift = kHasLongMultiply ? 20 : 19;

// DSP cores unroll their full-range loops by two (see add_sub_loop); on
// M3 that gained nothing.
#if defined(__ARM_FEATURE_DSP)
constexpr bool kUnrollPairs = true;
#else
constexpr bool kUnrollPairs = false;
#endif

// Cores without a long multiply run an exact other input as a rescale
// (high 2^20, low 0, shift 1: (v * 2^20 + 1 - [v < 0]) >> 1 = v * 2^19
// in both modes), so they need no loop of their own for it.
constexpr bool kExactLoop = kHasLongMultiply;

template <Rounding R, bool kFullRange, bool kOtherExact, int kSignE, int kSignX>
TINYAOT_MODE_LOOP void add_sub_loop(const int8_t* e, const int8_t* x, int8_t* out, int32_t count,
                                    const Constants& constants) {
  const Constants k = constants;  // locals: stores through `out` cannot change them
  constexpr int32_t kUnit = int32_t{1} << kUnitShift;
  const auto element = [&](int32_t i) {
    const int32_t scaled_e = kSignE * e[i] * kUnit + k.e_base;
    int32_t scaled_x;
    if constexpr (kOtherExact) {
      scaled_x = kSignX * x[i] * kUnit + k.x_base;
    } else if constexpr (kHasLongMultiply) {
      const int32_t x2 = x[i] * (int32_t{1} << 21) + k.x_base;
      scaled_x = kSignX * 2 * add_sub_flat::scale_long<R>(x2, k.x_multiplier, k.x_round, k.x_shift);
    } else {
      scaled_x = kSignX * add_sub_flat::scale_split<R>(x[i] + k.x_base, k.x_high, k.x_low,
                                                       k.x_round, k.x_shift);
    }
    const int32_t raw = scaled_e + scaled_x;
    int32_t value;
    if constexpr (kHasLongMultiply) {
      value = add_sub_flat::scale_long<R>(raw, k.out_multiplier, k.out_base, k.out_shift);
    } else {
      value = requantize_detail::right_shift_by_halves<R>(raw, k.out_multiplier, -k.out_shift) +
              k.out_offset;
    }
    out[i] = clamp_output<kFullRange>(value, k.act_min, k.act_max);
  };
  if constexpr (kFullRange && kUnrollPairs) {
    // Two elements a pass: GCC 12 keeps one register too few for this
    // loop on M4 and spills the output pointer and a multiplier; per two
    // elements that, and the loop's compare, are paid once (21 -> 16
    // instructions an element; the clamped loops are not unrolled: flash).
#pragma GCC unroll 2
    for (int32_t i = 0; i < count; ++i) element(i);
  } else {
    for (int32_t i = 0; i < count; ++i) element(i);
  }
}

TINYAOT_LOAD_TIME Status validate(const void* raw, const OperandView* inputs, uint32_t num_inputs,
                                  const OperandView* outputs, uint32_t num_outputs) {
  const Status status = validate_add_sub(raw, inputs, num_inputs, outputs, num_outputs);
  if (status != Status::kOk) return status;
  const auto& p = *static_cast<const AddSubParams*>(raw);
  return is_add_sub_flat_case(p) || is_add_sub_onnx_flat_case(p) ? Status::kOk : Status::kBadParams;
}

template <int kSign>
Status run(const KernelArgs& args) {
  const auto& p = *static_cast<const AddSubParams*>(args.params);
  const auto* input1 = static_cast<const int8_t*>(args.inputs[0].data);
  const auto* input2 = static_cast<const int8_t*>(args.inputs[1].data);
  auto* output = static_cast<int8_t*>(args.outputs[0].data);
  const int32_t count = static_cast<int32_t>(args.outputs[0].bytes);
  // validate takes either case; which one the parameters hold must match
  // the program's mode. Asked through with_any_rounding so that a build
  // for one mode (TINYAOT_ROUNDING_ONLY) compiles only its own loops.
  const bool onnx = with_any_rounding(
      args.rounding, [](auto mode) { return decltype(mode)::value == Rounding::kOnnx; });
  if (onnx) {
    if (!is_add_sub_onnx_flat_case(p)) return Status::kBadParams;
    onnx_add_sub_flat<kSign>(input1, input2, output, count, p);
    return Status::kOk;
  }
  if (!is_add_sub_flat_case(p)) return Status::kBadParams;

  // raw = s1 * scaled1 + s2 * scaled2 (s1 = 1, s2 = kSign), with the exact
  // input as `e` (input 1 when both are).
  const bool first_exact = is_exact_input_scale(p.input1_multiplier, p.input1_shift);
  const bool other_exact =
      kExactLoop && is_exact_input_scale(first_exact ? p.input2_multiplier : p.input1_multiplier,
                                         first_exact ? p.input2_shift : p.input1_shift);
  const int32_t sign_e = first_exact ? 1 : kSign;
  const int32_t sign_x = first_exact ? kSign : 1;
  const int32_t offset_e = first_exact ? p.input1_offset : p.input2_offset;
  const int32_t offset_x = first_exact ? p.input2_offset : p.input1_offset;
  const int32_t multiplier_x = first_exact ? p.input2_multiplier : p.input1_multiplier;
  const int32_t shift_x = -(first_exact ? p.input2_shift : p.input1_shift);

  Constants k{};
  k.e_base = sign_e * offset_e * (int32_t{1} << kUnitShift);
  if (other_exact) {
    k.x_base = sign_x * offset_x * (int32_t{1} << kUnitShift);
  } else {
    const bool exact = is_exact_input_scale(multiplier_x, -shift_x);
    k.x_base = kHasLongMultiply ? offset_x * (int32_t{1} << 21) : offset_x;
    k.x_multiplier = multiplier_x;
    k.x_high = exact ? int32_t{1} << 20 : multiplier_x >> 11;
    k.x_low = exact ? 0 : multiplier_x & ((int32_t{1} << 11) - 1);
    k.x_shift = exact ? 1 : shift_x;
    k.x_round = int32_t{1} << (k.x_shift - 1);
  }
  k.out_multiplier = p.output_multiplier;
  k.out_shift = -p.output_shift;
  k.out_base = (int32_t{1} << (k.out_shift - 1)) + p.output_offset * (int32_t{1} << k.out_shift);
  k.out_offset = p.output_offset;
  k.act_min = p.act_min;
  k.act_max = p.act_max;

  const int8_t* e = first_exact ? input1 : input2;
  const int8_t* x = first_exact ? input2 : input1;
  const bool full_range = p.act_min == -128 && p.act_max == 127;
  with_rounding(args.rounding, [&](auto mode) {
    constexpr Rounding R = decltype(mode)::value;
    const auto loop = [&](auto full) {
      constexpr bool kFull = decltype(full)::value;
      if (kExactLoop && other_exact) {
        // Both exact: input 1 is `e`, so only the second can be subtracted.
        add_sub_loop<R, kFull, true, 1, kSign>(e, x, output, count, k);
      } else if (kSign > 0 || first_exact) {
        add_sub_loop<R, kFull, false, 1, kSign>(e, x, output, count, k);
      } else {
        add_sub_loop<R, kFull, false, -1, 1>(e, x, output, count, k);
      }
    };
    if (kHasSsat && full_range) {
      loop(BoolConstant<true>{});
    } else {
      loop(BoolConstant<false>{});
    }
  });
  return Status::kOk;
}

}  // namespace

const KernelDescriptor kernel_add_s8_flat = {
    "add_s8_flat",
    "add",
    2,
    sizeof(AddSubParams),
    2,
    2,
    1,
    IsaClass::kScalar,
    kAddSubSignature,
    run<+1>,
    validate,
    nullptr,
    kElementwiseInPlaceInputs,
};

const KernelDescriptor kernel_sub_s8_flat = {
    "sub_s8_flat",
    "sub",
    2,
    sizeof(AddSubParams),
    2,
    2,
    1,
    IsaClass::kScalar,
    kAddSubSignature,
    run<-1>,
    validate,
    nullptr,
    kElementwiseInPlaceInputs,
};

}  // namespace tinyaot
