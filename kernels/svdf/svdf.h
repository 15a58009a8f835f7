// SVDF (a rank-decomposed filter over time), int8 activations, bit-exact
// with TFLite Micro's integer reference (EvalIntegerSvdfReference).
//
// Each call shifts the state one step to the left, writes each filter's
// newest value (the int8 input times the feature weights, rescaled into
// the state's type), then sums every filter's memory against its time
// weights, adds the bias per unit (`rank` filters make one unit) and
// rescales into the int8 output. The state lives from one inference to
// the next: it is the operation's second output, read and then written
// (the compiler's state contract). TFLite Micro's integer path applies no
// fused activation, only the int8 clamp; neither does this kernel.
#pragma once

#include <stdint.h>

#include "tinyaot/kernel_abi.h"

namespace tinyaot {

struct SvdfParams {
  int32_t batches;
  int32_t input_size;
  int32_t filters;  // units * rank
  int32_t units;
  int32_t rank;
  int32_t memory;              // steps each filter remembers
  int32_t input_offset;        // -input zero point
  int32_t state_zero_point;    // in the state's type
  int32_t output_offset;       // output zero point
  int32_t feature_multiplier;  // input * feature weights -> state
  int32_t feature_shift;
  int32_t output_multiplier;  // state * time weights -> output
  int32_t output_shift;
};

// Operands: input s8 [batches, input_size], weights_feature s8
// [filters, input_size], weights_time T [filters, memory], optional bias
// i32 [units] -> output s8 [batches, units], state T [batches, filters *
// memory] (read and written), T = int16 or int8 (the state's and the time
// weights' type, one type as TFLite Micro's template has it).
#define TINYAOT_SVDF_SIGNATURE(T)                                                     \
  "input:s8[batches,input_size], weights_feature:s8[filters,input_size], "            \
  "weights_time:" T                                                                   \
  "[filters,memory], bias?:i32[units] -> output:s8[batches,units], "                  \
  "state:" T                                                                          \
  "[batches,filters*memory] (read, then written); params=SvdfParams{batches,"         \
  "input_size,filters,units,rank,memory,input_offset,state_zero_point,output_offset," \
  "feature_multiplier,feature_shift,output_multiplier,output_shift}"

extern const KernelDescriptor kernel_svdf_s8_state16_ref;
extern const KernelDescriptor kernel_svdf_s8_state8_ref;

}  // namespace tinyaot
