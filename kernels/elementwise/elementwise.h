// Binary int8 elementwise operators with numpy-style broadcasting: ADD, SUB,
// MUL, MAXIMUM, MINIMUM, with TFLite Micro's integer arithmetic.
//
// Every variant takes operands input1 s8, input2 s8 -> output s8, sized by
// the BroadcastShape in its parameters (see broadcast.h).
#pragma once

#include <stdint.h>

#include "kernels/elementwise/add_sub_onnx_fast.h"
#include "kernels/elementwise/broadcast.h"
#include "tinyaot/kernel_abi.h"

namespace tinyaot {

// ADD and SUB: both inputs are brought to a common scale (twice the larger
// input scale, with 20 bits of headroom), added or subtracted, then
// rescaled to the output.
struct AddSubParams {
  BroadcastShape shape;
  int32_t input1_offset;  // -zero point
  int32_t input2_offset;
  int32_t output_offset;  // +zero point
  int32_t left_shift;     // 20 for int8
  int32_t input1_multiplier;
  int32_t input1_shift;  // <= 0
  int32_t input2_multiplier;
  int32_t input2_shift;  // <= 0
  int32_t output_multiplier;
  int32_t output_shift;  // <= 0
  int32_t act_min;
  int32_t act_max;
  // Rounding mode onnx: the flat variants' estimate (add_sub_onnx_fast.h);
  // all 0 otherwise.
  OnnxAddSubFast onnx_fast;
};

// MUL: (in1 + offset1) * (in2 + offset2) rescaled by in1*in2/out scale.
struct MulParams {
  BroadcastShape shape;
  int32_t input1_offset;
  int32_t input2_offset;
  int32_t output_offset;
  int32_t output_multiplier;  // mode onnx: the output scale's float32 bits
  int32_t output_shift;       // mode onnx: 0
  int32_t act_min;
  int32_t act_max;
  // Mode onnx only (mul_onnx.h): the inputs' float32 scales as bits; 0 in
  // TFLite's modes.
  int32_t input1_scale_bits;
  int32_t input2_scale_bits;
};

// MAXIMUM / MINIMUM: inputs and output share one quantization, so the raw
// int8 values compare as the real values do.
struct MinMaxParams {
  BroadcastShape shape;
};

// The checks every ADD / SUB variant makes (operand sizes, the ranges that
// keep the reference's int32 arithmetic exact) and the signature they share.
TINYAOT_LOAD_TIME Status validate_add_sub(const void* params, const OperandView* inputs,
                                          uint32_t num_inputs, const OperandView* outputs,
                                          uint32_t num_outputs);
inline constexpr char kAddSubSignature[] =
    "input1:s8[broadcast], input2:s8[broadcast] -> output:s8[dims]; "
    "params=AddSubParams{shape{dims[6],strides1[6],strides2[6]},input1_offset,input2_offset,"
    "output_offset,left_shift,input1_multiplier,input1_shift,input2_multiplier,input2_shift,"
    "output_multiplier,output_shift,act_min,act_max,"
    "onnx_fast{multiplier1,multiplier2,shift,margin}}";

inline constexpr char kAddSubS16Signature[] =
    "input1:s16[broadcast], input2:s16[broadcast] -> output:s16[dims]; "
    "params=AddSubParams{shape{dims[6],strides1[6],strides2[6]},input1_offset,input2_offset,"
    "output_offset,left_shift,input1_multiplier,input1_shift,input2_multiplier,input2_shift,"
    "output_multiplier,output_shift,act_min,act_max,"
    "onnx_fast{multiplier1,multiplier2,shift,margin}}";

// Likewise for MUL.
TINYAOT_LOAD_TIME Status validate_mul(const void* params, const OperandView* inputs,
                                      uint32_t num_inputs, const OperandView* outputs,
                                      uint32_t num_outputs);
inline constexpr char kMulSignature[] =
    "input1:s8[broadcast], input2:s8[broadcast] -> output:s8[dims]; "
    "params=MulParams{shape{dims[6],strides1[6],strides2[6]},input1_offset,input2_offset,"
    "output_offset,output_multiplier,output_shift,act_min,act_max,input1_scale_bits,"
    "input2_scale_bits}";
inline constexpr char kMulS16Signature[] =
    "input1:s16[broadcast], input2:s16[broadcast] -> output:s16[dims]; "
    "params=MulParams{shape{dims[6],strides1[6],strides2[6]},input1_offset,input2_offset,"
    "output_offset,output_multiplier,output_shift,act_min,act_max,input1_scale_bits,"
    "input2_scale_bits}";

// Every variant reads element i of both inputs before it writes element i
// of the output, so either input may lie exactly on the output's bytes (an
// output written over an input it was the last reader of).
constexpr uint16_t kElementwiseInPlaceInputs = operand_bit(0) | operand_bit(1);

extern const KernelDescriptor kernel_add_s8_ref;
extern const KernelDescriptor kernel_sub_s8_ref;
// int16 (input1 s16, input2 s16 -> output s16; zero points 0, left_shift
// 15, an int16 activation range; no rounding mode onnx).
extern const KernelDescriptor kernel_add_s16_ref;
extern const KernelDescriptor kernel_sub_s16_ref;
extern const KernelDescriptor kernel_mul_s8_ref;
// int16 (zero points 0, an int16 activation range; no rounding mode onnx).
extern const KernelDescriptor kernel_mul_s16_ref;
extern const KernelDescriptor kernel_maximum_s8_ref;
extern const KernelDescriptor kernel_minimum_s8_ref;
extern const KernelDescriptor kernel_add_s8_flat;
extern const KernelDescriptor kernel_sub_s8_flat;
extern const KernelDescriptor kernel_mul_s8_fast;
extern const KernelDescriptor kernel_add_s8_mve;
extern const KernelDescriptor kernel_sub_s8_mve;
extern const KernelDescriptor kernel_mul_s8_mve;

}  // namespace tinyaot
