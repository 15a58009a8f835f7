// MUL in rounding mode onnx: onnxruntime's QLinearMul (qlmul.cpp, its
// pure C++ path; tests/onnx_ops/README.md), the chain of QLinearAdd
// (add_sub_onnx.h) with a product: both operands dequantized, a = f32(sa *
// f32(qa - za)), b likewise, c = f32(f32(a * b) / sc) clamped to [lo - zc,
// hi - zc], q = rint(f32(c + zc)). The lowering stores sa's and sb's bits
// in MulParams' input scale fields and sc's in output_multiplier. On a core
// without an FPU the float operations are the compiler's soft-float calls:
// no model we know multiplies large tensors, so mul_s8_ref runs it alone.
#pragma once

#include <stdint.h>

#include "kernels/common/onnx_requantize.h"
#include "kernels/elementwise/elementwise.h"

namespace tinyaot {

inline int8_t onnx_mul(int8_t a, int8_t b, const MulParams& p) {
  const float x = rounded_product(float_of_bits(static_cast<uint32_t>(p.input1_scale_bits)) *
                                  static_cast<float>(a + p.input1_offset));
  const float y = rounded_product(float_of_bits(static_cast<uint32_t>(p.input2_scale_bits)) *
                                  static_cast<float>(b + p.input2_offset));
  const float c =
      rounded_product(x * y) / float_of_bits(static_cast<uint32_t>(p.output_multiplier));
  const float lo = static_cast<float>(p.act_min - p.output_offset);
  const float hi = static_cast<float>(p.act_max - p.output_offset);
  // Written so that a NaN (only from scale bits no compiler writes) takes
  // lo: no float outside the int8 range reaches the conversion.
  const float clamped = !(c > lo) ? lo : (!(c < hi) ? hi : c);
  return static_cast<int8_t>(round_half_to_even(clamped + static_cast<float>(p.output_offset)));
}

}  // namespace tinyaot
