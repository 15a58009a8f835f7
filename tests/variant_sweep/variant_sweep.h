// Random-shape sweeps of every kernel variant against its family's
// reference kernel (freestanding, header-only, no heap): the one case
// generator of the host tests (variant_sweep_test.cpp, the variant tests
// in kernels/) and of the test firmware that runs the sweeps on each
// emulated core (sweep_firmware.cpp), where the DSP and MVE paths are
// compiled in.
//
// Everything goes through the kernel ABI (descriptor validate,
// scratch_bytes and run; KernelArgs), never through kernel internals. Per
// case: a random shape the variant's own validate accepts (tails and odd
// channel counts, strides, padding past the window, dilation, depth
// multipliers), random data (now and then at the extremes that make the
// int32 accumulators wrap), per-channel quantization with multipliers
// from the smallest to the largest significand and shifts over their whole
// legal range, every rounding mode (onnx for the weighted variants that
// have it, with float32 multipliers near the same reals). Each run has its
// scratch, and its output, between guard bytes checked after the call, its
// output prefilled with a pattern the reference's is not, and its inputs
// checked unchanged.
// Operands lie at every base the loader accepts (placement.h), and the
// variants that declare an input safe in place run with their output
// written over it, as the planner lays such an operation out.
// Most cases keep to the sizes of common layers, one in kLargeCaseOdds
// takes the whole buffers; limit_cases.h adds cases at the variants'
// declared limits.
#pragma once

#include <stdint.h>
#include <string.h>

#include "kernels/batch_matmul/batch_matmul.h"
#include "kernels/batch_matmul/batch_matmul_terms.h"
#include "kernels/common/kernel_sums.h"
#include "kernels/common/onnx_requantize.h"
#include "kernels/common/quant.h"
#include "kernels/conv2d/conv2d.h"
#include "kernels/conv2d/conv2d_cases.h"
#include "kernels/conv2d/gemm_blocks.h"
#include "kernels/depthwise_conv2d/depthwise_conv2d.h"
#include "kernels/depthwise_conv2d/depthwise_conv2d_cases.h"
#include "kernels/elementwise/elementwise.h"
#include "kernels/fully_connected/fully_connected.h"
#include "kernels/fully_connected/fully_connected_blocks.h"
#include "kernels/lstm/lstm.h"
#include "kernels/mean/mean.h"
#include "kernels/onnx_kernels.h"
#include "kernels/pooling/pooling.h"
#include "kernels/quantize/quantize.h"
#include "kernels/softmax/softmax.h"
#include "kernels/softmax/softmax_table.h"
#include "kernels/transpose_conv/transpose_conv.h"
#include "kernels/transpose_conv/transpose_conv_mve_layout.h"
#include "tests/variant_sweep/placement.h"
#include "tests/variant_sweep/sweep_support.h"
#include "tinyaot/kernel_abi.h"
#include "tinyaot/status.h"

namespace tinyaot::sweep {

// What a sweep runs unless told otherwise (firmware and host tests alike).
constexpr uint64_t kDefaultSeed = 1;
constexpr uint32_t kDefaultCases = 1000;  // per variant, each in every rounding mode it has

// Capacities of the static buffers; the shapes drawn stay below them. The
// input and the scratch hold the limit cases' 64 KB operands
// (limit_cases.h) except on the M0 board (128 KB of RAM), whose variants
// declare no such limit.
#if defined(__ARM_ARCH_6M__)
constexpr uint32_t kMaxInputBytes = 16384;
constexpr uint32_t kMaxScratchBytes = 4096;
#else
constexpr uint32_t kMaxInputBytes = 73728;
constexpr uint32_t kMaxScratchBytes = 73728;  // a transposed 64 KB matrix
#endif
constexpr uint32_t kMaxFilterBytes = 8192;
constexpr uint32_t kMaxOutputBytes = 8192;
constexpr uint32_t kMaxChannels = 128;
constexpr uint32_t kMaxPadRowBytes = 256;  // a convolution's input depth
// Most drawn cases keep within these (the sizes of common layers, and what
// the sweeps drew before the buffers grew), one in kLargeCaseOdds within
// the capacities.
constexpr uint32_t kTypicalInputBytes = 4096;
constexpr uint32_t kTypicalFilterBytes = 4096;
constexpr uint32_t kTypicalOutputBytes = 2048;
constexpr uint32_t kTypicalChannels = 64;
constexpr uint32_t kTypicalScratchBytes = 4096;
constexpr uint32_t kLargeCaseOdds = 8;
constexpr uint32_t kMaxColumnTerms = 512;  // int32 column terms of batch_matmul_s8_mve
constexpr uint32_t kGuardBytes = 32;
constexpr uint8_t kGuardPattern = 0xCD;
constexpr uint8_t kScratchFill = 0x6B;    // scratch is never zeroed for a kernel
constexpr uint8_t kExpectedFill = 0x5A;   // the reference's output before its run
constexpr uint8_t kActualFill = 0xA5;     // the variant's output before its run
constexpr uint32_t kDrawAttempts = 400;   // shapes tried for the variant's case
constexpr uint32_t kFailuresPrinted = 3;  // per variant; the rest are counted
// Room for the per-channel constants placed up to kPlacementSlack - 1
// bytes in.
constexpr uint32_t kQuantSlack =
    (kPlacementSlack + sizeof(ChannelQuant) - 1) / sizeof(ChannelQuant);

// Marks `bytes` at `begin` as out of bounds for the kernel under test
// (fence true) or back in bounds (false). The host tests poison them for
// AddressSanitizer, so that a read past an operand is caught too; on a
// core the guard patterns only catch writes.
using FenceFn = void (*)(void* begin, uint32_t bytes, bool fence);

// Every buffer a case uses, allocated once by the caller in static storage
// (zero-initialized, so no fence unless one is set), each with room for
// its operand placed up to kPlacementSlack - 1 bytes past its 16-byte
// aligned start (Placement). Outputs and scratch have kGuardBytes of guard
// on both sides, placed with them.
struct Workspace {
  FenceFn fence;
  alignas(16) int8_t input[kMaxInputBytes + kPlacementSlack];
  // Weights and per-channel constants as the reference takes them, then
  // as the variant takes them.
  alignas(16) int8_t filter[kMaxFilterBytes + kPlacementSlack];
  alignas(16) int8_t variant_filter[kMaxFilterBytes + kPlacementSlack];
  alignas(16) ChannelQuant quant[kMaxChannels + kQuantSlack];
  alignas(16) ChannelQuant variant_quant[kMaxChannels + kQuantSlack];
  alignas(16) uint8_t expected[kGuardBytes + kMaxOutputBytes + kPlacementSlack + kGuardBytes];
  alignas(16) uint8_t actual[kGuardBytes + kMaxOutputBytes + kPlacementSlack + kGuardBytes];
  alignas(16) uint8_t scratch[kGuardBytes + kMaxScratchBytes + kPlacementSlack + kGuardBytes];
  // Zero points, for variants that read them.
  alignas(16) int8_t pad_row[kMaxPadRowBytes + kPlacementSlack];
  // A constant RHS's column terms, for the batch-matmul variants that take them.
  alignas(16) int32_t column_terms[kMaxColumnTerms + kPlacementSlack / sizeof(int32_t)];
};

// The operator families with variants, each checked against its reference.
enum class Family : uint8_t {
  kConv2d,
  kDepthwiseConv2d,
  kFullyConnected,
  kAdd,
  kSub,
  kMul,
  kAvgPool,
  kMaxPool,
  kTransposeConv,
  kBatchMatmul,
  kSoftmax,
  kAvgPoolOnnx,  // AVERAGE_POOL_2D in mode onnx: onnxruntime's float32 chain
  kMean,
  kQuantize,  // float32 -> int8
  kLstm,      // UNIDIRECTIONAL_SEQUENCE_LSTM: its own cases (lstm_sweep.h)
  kNone
};

// ADD and SUB: two int8 inputs (input and filter buffers), no weights.
inline bool is_add_sub(Family family) { return family == Family::kAdd || family == Family::kSub; }

// Binary element-wise operators: two int8 inputs, no constants.
inline bool is_binary(Family family) { return is_add_sub(family) || family == Family::kMul; }

// Pooling: one int8 input, no constants.
inline bool is_pool(Family family) {
  return family == Family::kAvgPool || family == Family::kMaxPool || family == Family::kAvgPoolOnnx;
}

// One input, its constants (if any) in the params: pooling, MEAN,
// QUANTIZE (float32).
inline bool takes_one_input(Family family) {
  return is_pool(family) || family == Family::kMean || family == Family::kQuantize;
}

inline const KernelDescriptor* family_reference(Family family) {
  switch (family) {
    case Family::kConv2d:
      return &kernel_conv2d_s8_ref;
    case Family::kDepthwiseConv2d:
      return &kernel_depthwise_conv2d_s8_ref;
    case Family::kFullyConnected:
      return &kernel_fully_connected_s8_ref;
    case Family::kAdd:
      return &kernel_add_s8_ref;
    case Family::kSub:
      return &kernel_sub_s8_ref;
    case Family::kMul:
      return &kernel_mul_s8_ref;
    case Family::kAvgPool:
      return &kernel_avg_pool2d_s8_ref;
    case Family::kMaxPool:
      return &kernel_max_pool2d_s8_ref;
    case Family::kTransposeConv:
      return &kernel_transpose_conv_s8_ref;
    case Family::kBatchMatmul:
      return &kernel_batch_matmul_s8_ref;
    case Family::kSoftmax:
      return &kernel_softmax_s8_ref;
    case Family::kAvgPoolOnnx:
      return &kernel_avg_pool2d_s8_onnx;
    case Family::kMean:
      return &kernel_mean_s8_ref;
    case Family::kQuantize:
      return &kernel_quantize_f32_s8_ref;
    case Family::kLstm:
      return &kernel_unidirectional_lstm_s8_ref;
    case Family::kNone:
      break;
  }
  return nullptr;
}

// The family is the operator the descriptor names.
inline Family family_of(const KernelDescriptor& kernel) {
  const Family families[] = {Family::kConv2d,
                             Family::kDepthwiseConv2d,
                             Family::kFullyConnected,
                             Family::kAdd,
                             Family::kSub,
                             Family::kMul,
                             Family::kAvgPool,
                             Family::kMaxPool,
                             Family::kTransposeConv,
                             Family::kBatchMatmul,
                             Family::kSoftmax,
                             Family::kAvgPoolOnnx,
                             Family::kMean,
                             Family::kQuantize,
                             Family::kLstm};
  for (Family f : families)
    if (strcmp(kernel.op, family_reference(f)->op) == 0) return f;
  return Family::kNone;
}

// SOFTMAX's params (first: what the kernels read) and how the case's
// table was built.
struct SoftmaxCase {
  SoftmaxParams params;
  int32_t multiplier;  // beta * input scale * 2^26 = multiplier * 2^(shift - 31)
  int32_t shift;
  Rounding rounding;
  int32_t table_entries;  // stored
};

// One drawn case: params and operand sizes.
struct Case {
  Family family = Family::kNone;
  union {
    Conv2dParams conv;
    DepthwiseConv2dParams depthwise;
    FullyConnectedParams fc;
    AddSubParams add_sub;
    MulParams mul;
    Pool2dParams pool;
    AvgPool2dOnnxParams pool_onnx;
    MeanParams mean;
    QuantizeParams quantize;
    TransposeConvParams tconv;
    BatchMatmulParams bmm;
    SoftmaxCase softmax;
  } p;
  uint32_t input_bytes = 0, filter_bytes = 0, channels = 0, output_bytes = 0;
  // The weights' bytes in the variant's layout.
  uint32_t variant_filter_bytes = 0;
  int32_t row_length = 0;  // weights per output channel, for a folded bias
  int32_t input_offset = 0;
  // Batch matmul: the column terms the variant takes with a constant RHS
  // (batch_matmul_variant_takes_terms), 0 for an RHS activation.
  uint32_t column_terms = 0;
  Placement at;  // where the operands lie in their buffers
};

// Whether input 1 is an activation (in the arena) rather than a constant:
// the second operand of an element-wise operator, a batch matmul's RHS
// without column terms.
inline bool filter_in_arena(const Case& c) {
  return is_binary(c.family) || (c.family == Family::kBatchMatmul && c.column_terms == 0);
}

// The case's operands in the workspace, where the placement puts them.
inline int8_t* input_of(Workspace& ws, const Case& c) { return ws.input + c.at.input; }
inline int8_t* filter_of(Workspace& ws, const Case& c) { return ws.filter + c.at.filter; }
inline int8_t* variant_filter_of(Workspace& ws, const Case& c) {
  return ws.variant_filter + c.at.filter;
}
inline ChannelQuant* placed_quant(ChannelQuant* buffer, const Case& c) {
  return reinterpret_cast<ChannelQuant*>(reinterpret_cast<uint8_t*>(buffer) + c.at.quant);
}
inline int8_t* pad_row_of(Workspace& ws, const Case& c) { return ws.pad_row + c.at.extra; }
inline int32_t* column_terms_of(Workspace& ws, const Case& c) {
  return ws.column_terms + c.at.extra / sizeof(int32_t);
}
// The output operand's first byte in `output` (ws.expected or ws.actual),
// after the placement and the guard.
inline uint8_t* output_at(uint8_t* output, const Case& c) {
  return output + c.at.output + kGuardBytes;
}

// Whether `kernel` takes its bias with input_offset * sum(row) folded in
// (the same predicates the lowerings ask).
inline bool folds_input_offset(const KernelDescriptor& kernel, Family family) {
  if (family == Family::kConv2d) return conv2d_variant_folds_input_offset(&kernel);
  if (family == Family::kFullyConnected) return fully_connected_variant_folds_input_offset(&kernel);
  return false;
}

// ---- drawing ----

inline int32_t draw_input_offset(Random& r) {
  return r.one_in(6) ? r.pick({-127, 0, 128}) : r.uniform(-127, 128);
}

inline int32_t draw_output_offset(Random& r) {
  return r.one_in(6) ? r.pick({-128, 0, 127}) : r.uniform(-128, 127);
}

inline void draw_activation(Random& r, int32_t* lo, int32_t* hi) {
  if (r.one_in(2)) {
    *lo = -128;
    *hi = 127;
    return;
  }
  *lo = r.uniform(-128, 20);
  *hi = r.uniform(*lo, 127);
}

// One spatial axis: input, filter (given), stride, dilation, padding before
// and after (up to a whole window, so some pixels may see no tap); the
// output size follows. False when the window does not fit the input.
inline bool draw_axis(Random& r, int32_t max_input, int32_t filter, int32_t max_stride,
                      int32_t max_dilation, bool padded, int32_t* input, int32_t* stride,
                      int32_t* dilation, int32_t* pad, int32_t* output) {
  *input = r.uniform(1, max_input);
  *stride = r.uniform(1, max_stride);
  *dilation = filter > 1 ? r.uniform(1, max_dilation) : 1;
  const int32_t extent = (filter - 1) * *dilation + 1;
  const int32_t max_pad = r.one_in(8) ? extent : extent - 1;
  *pad = padded ? r.uniform(0, max_pad) : 0;
  const int32_t after = padded ? r.uniform(0, max_pad) : 0;
  const int32_t span = *input + *pad + after - extent;
  if (span < 0) return false;
  *output = span / *stride + 1;
  return true;
}

// Depths around the 4-wide DSP and 16-wide MVE blocks: below, at, across.
constexpr int32_t kDepths[] = {1, 2, 3, 4, 5, 7, 8, 12, 13, 15, 16, 17, 20, 31, 32, 33};

inline bool draw_conv2d(Random& r, Case* c) {
  Conv2dParams& p = c->p.conv;
  p = Conv2dParams{};
  const bool pointwise = r.one_in(3);
  p.batches = r.one_in(4) ? 2 : 1;
  // Windows now and then tall or wide (up to 7 taps along an axis, as a
  // 7x1 or 5x5 layer has), on inputs large enough to hold them.
  const auto filter_taps = [&] {
    return pointwise ? 1 : r.one_in(5) ? r.uniform(4, 7) : r.uniform(1, 3);
  };
  p.filter_h = filter_taps();
  p.filter_w = filter_taps();
  // Pointwise: stride 1 now and then above (the MVE variant reads
  // strided pixels where they lie).
  const int32_t max_stride = pointwise ? (r.one_in(3) ? 3 : 1) : 3;
  if (!draw_axis(r, p.filter_h > 3 ? 10 : 7, p.filter_h, max_stride, 2, !pointwise, &p.input_h,
                 &p.stride_h, &p.dilation_h, &p.pad_top, &p.output_h) ||
      !draw_axis(r, p.filter_w > 3 ? 10 : 7, p.filter_w, max_stride, 2, !pointwise, &p.input_w,
                 &p.stride_w, &p.dilation_w, &p.pad_left, &p.output_w))
    return false;
  // Pointwise now and then deeper: several whole 16-lane blocks and a tail.
  p.input_depth = p.filter_depth = pointwise && r.one_in(4) ? r.uniform(34, 160) : r.pick(kDepths);
  // Output channels now and then past 16 groups of four (the MVE
  // variants' blocks of output channels), up to the case's 64.
  p.output_depth = r.one_in(4) ? r.uniform(10, int32_t{kMaxChannels}) : r.uniform(1, 9);
  p.input_offset = draw_input_offset(r);
  p.output_offset = draw_output_offset(r);
  draw_activation(r, &p.act_min, &p.act_max);
  c->input_bytes = uint32_t(p.batches * p.input_h * p.input_w * p.input_depth);
  c->row_length = p.filter_h * p.filter_w * p.filter_depth;
  c->filter_bytes = uint32_t(p.output_depth * c->row_length);
  c->channels = uint32_t(p.output_depth);
  c->output_bytes = uint32_t(p.batches * p.output_h * p.output_w * p.output_depth);
  c->input_offset = p.input_offset;
  return true;
}

// A depthwise case's operand sizes, from its params.
inline void size_depthwise(Case* c) {
  const DepthwiseConv2dParams& p = c->p.depthwise;
  const int32_t depth = p.input_depth * p.depth_multiplier;
  c->input_bytes = uint32_t(p.batches * p.input_h * p.input_w * p.input_depth);
  c->row_length = 0;  // depthwise weights are [ky][kx][channel]: nothing folds
  c->filter_bytes = uint32_t(p.filter_h * p.filter_w * depth);
  c->channels = uint32_t(depth);
  c->output_bytes = uint32_t(p.batches * p.output_h * p.output_w * depth);
  c->input_offset = p.input_offset;
}

inline bool draw_depthwise(Random& r, Case* c) {
  DepthwiseConv2dParams& p = c->p.depthwise;
  p = DepthwiseConv2dParams{};
  const bool mobilenet = r.one_in(2);  // 3x3, multiplier 1, no dilation
  p.batches = r.one_in(4) ? 2 : 1;
  p.filter_h = mobilenet ? 3 : r.uniform(1, 5);
  p.filter_w = mobilenet ? 3 : r.uniform(1, 5);
  // Now and then past 4 (the DSP variant's groups of four outputs of one
  // channel) and past 16 (the scalar variant's block).
  p.depth_multiplier = mobilenet ? 1 : r.one_in(4) ? r.pick({4, 5, 7, 8, 17, 20}) : r.uniform(1, 3);
  const int32_t max_dilation = mobilenet ? 1 : 2;
  if (!draw_axis(r, 8, p.filter_h, 3, max_dilation, true, &p.input_h, &p.stride_h, &p.dilation_h,
                 &p.pad_top, &p.output_h) ||
      !draw_axis(r, 8, p.filter_w, 3, max_dilation, true, &p.input_w, &p.stride_w, &p.dilation_w,
                 &p.pad_left, &p.output_w))
    return false;
  // Now and then past the typical 64 channels (a large case).
  p.input_depth = r.one_in(8) ? r.uniform(34, int32_t{kMaxChannels}) : r.pick(kDepths);
  p.input_offset = draw_input_offset(r);
  p.output_offset = draw_output_offset(r);
  draw_activation(r, &p.act_min, &p.act_max);
  size_depthwise(c);
  return true;
}

inline bool draw_fully_connected(Random& r, Case* c) {
  FullyConnectedParams& p = c->p.fc;
  p = FullyConnectedParams{};
  p.batches = r.uniform(1, 3);
  // Now and then rows past a kilobyte and past 64 units (a large case).
  p.input_depth = r.one_in(8)   ? r.uniform(81, 1024)
                  : r.one_in(2) ? r.pick({1, 3, 4, 5, 15, 16, 17, 31, 32, 33, 63, 64, 65})
                                : r.uniform(1, 80);
  p.output_depth = r.one_in(8) ? r.uniform(21, int32_t{kMaxChannels}) : r.uniform(1, 20);
  p.input_offset = draw_input_offset(r);
  p.output_offset = draw_output_offset(r);
  draw_activation(r, &p.act_min, &p.act_max);
  c->input_bytes = uint32_t(p.batches * p.input_depth);
  c->row_length = p.input_depth;
  c->filter_bytes = uint32_t(p.output_depth * p.input_depth);
  c->channels = uint32_t(p.output_depth);
  c->output_bytes = uint32_t(p.batches * p.output_depth);
  c->input_offset = p.input_offset;
  return true;
}

// A rescale significand anywhere in [2^30, 2^31), now and then at its ends.
inline int32_t draw_significand(Random& r) {
  const int32_t kind = r.uniform(0, 7);
  return kind == 0   ? INT32_C(1) << 30
         : kind == 1 ? INT32_MAX
                     : r.uniform(INT32_C(1) << 30, INT32_MAX);
}

// Same-shape operands (now and then as several contiguous axes, or a
// broadcast the flat variants refuse: a scalar, or a row repeated, which
// the MVE variants take), TFLite's ADD quantization: the input
// with the larger scale rescaled by exactly 0.5 (2^30, shift 0), the other
// by the same or less, the output shift mostly where models put it (about
// -20) but anywhere in the reference's range too.
inline bool draw_add_sub(Random& r, Case* c) {
  AddSubParams& p = c->p.add_sub;
  p = AddSubParams{};
  const int32_t elements = r.one_in(3) ? r.uniform(1, 40) : r.uniform(1, int32_t(kMaxOutputBytes));
  for (int d = 0; d < kBroadcastRank; ++d) p.shape.dims[d] = 1;
  p.shape.dims[kBroadcastRank - 1] = elements;
  p.shape.strides1[kBroadcastRank - 1] = p.shape.strides2[kBroadcastRank - 1] = 1;
  if (r.one_in(8) && elements % 6 == 0) {  // three contiguous axes
    p.shape.dims[kBroadcastRank - 3] = 2;
    p.shape.dims[kBroadcastRank - 2] = 3;
    p.shape.dims[kBroadcastRank - 1] = elements / 6;
    p.shape.strides1[kBroadcastRank - 2] = p.shape.strides2[kBroadcastRank - 2] = elements / 6;
    p.shape.strides1[kBroadcastRank - 3] = p.shape.strides2[kBroadcastRank - 3] = elements / 2;
  }
  c->input_bytes = c->filter_bytes = c->output_bytes = uint32_t(elements);
  const int32_t rows = r.uniform(2, 8);
  if (r.one_in(10)) {  // input 2 broadcast along the only axis
    p.shape.strides2[kBroadcastRank - 1] = 0;
    for (int d = 0; d < kBroadcastRank - 1; ++d) p.shape.strides2[d] = 0;
    c->filter_bytes = 1;
  } else if (r.one_in(6) && p.shape.dims[kBroadcastRank - 3] == 1 && elements % rows == 0) {
    // input 2 a row repeated over input 1's rows (a per-channel operand)
    p.shape.dims[kBroadcastRank - 2] = rows;
    p.shape.dims[kBroadcastRank - 1] = elements / rows;
    p.shape.strides1[kBroadcastRank - 2] = elements / rows;
    p.shape.strides2[kBroadcastRank - 2] = 0;
    c->filter_bytes = uint32_t(elements / rows);
  }
  p.input1_offset = draw_input_offset(r);
  p.input2_offset = draw_input_offset(r);
  p.output_offset = draw_output_offset(r);
  p.left_shift = 20;
  const bool both_exact = r.one_in(4);
  int32_t* exact_multiplier = &p.input1_multiplier;
  int32_t* exact_shift = &p.input1_shift;
  int32_t* other_multiplier = &p.input2_multiplier;
  int32_t* other_shift = &p.input2_shift;
  if (r.one_in(2)) {
    exact_multiplier = &p.input2_multiplier;
    exact_shift = &p.input2_shift;
    other_multiplier = &p.input1_multiplier;
    other_shift = &p.input1_shift;
  }
  *exact_multiplier = INT32_C(1) << 30;
  *exact_shift = 0;
  *other_multiplier = both_exact ? INT32_C(1) << 30 : draw_significand(r);
  *other_shift = both_exact ? 0 : r.one_in(6) ? r.uniform(-31, 0) : r.uniform(-6, -1);
  p.output_multiplier = draw_significand(r);
  p.output_shift = r.one_in(6) ? r.uniform(-31, 0) : r.uniform(-22, -17);
  draw_activation(r, &p.act_min, &p.act_max);
  c->channels = 1;  // no per-channel constants: one unused entry
  c->row_length = 0;
  c->input_offset = p.input1_offset;
  return true;
}

// MUL: same shapes, a row of input 2 repeated (a per-channel operand) or a
// scalar; the output rescale mostly where models put it, else anywhere in
// the reference's range.
inline bool draw_mul(Random& r, Case* c) {
  MulParams& p = c->p.mul;
  p = MulParams{};
  const int32_t rows = r.uniform(1, 8);
  const int32_t row = r.uniform(1, int32_t(kMaxOutputBytes) / rows);
  for (int d = 0; d < kBroadcastRank; ++d) p.shape.dims[d] = 1;
  p.shape.dims[kBroadcastRank - 2] = rows;
  p.shape.dims[kBroadcastRank - 1] = row;
  p.shape.strides1[kBroadcastRank - 2] = row;
  p.shape.strides1[kBroadcastRank - 1] = 1;
  const int32_t kind = r.uniform(0, 2);  // same shape, a repeated row, a scalar
  p.shape.strides2[kBroadcastRank - 2] = kind == 0 ? row : 0;
  p.shape.strides2[kBroadcastRank - 1] = kind == 2 ? 0 : 1;
  c->input_bytes = c->output_bytes = uint32_t(rows * row);
  c->filter_bytes = kind == 0 ? uint32_t(rows * row) : kind == 1 ? uint32_t(row) : 1;
  p.input1_offset = draw_input_offset(r);
  p.input2_offset = draw_input_offset(r);
  p.output_offset = draw_output_offset(r);
  p.output_multiplier = draw_significand(r);
  p.output_shift = r.one_in(6) ? r.uniform(-31, 14) : r.uniform(-12, -4);
  draw_activation(r, &p.act_min, &p.act_max);
  c->channels = 1;  // no per-channel constants: one unused entry
  c->row_length = 0;
  c->input_offset = p.input1_offset;
  return true;
}

// One pooling axis for a given filter: padding before and after below the
// filter (TFLite's SAME never pads a whole window), so every window holds
// a cell of the input.
inline bool draw_pool_axis(Random& r, int32_t input, int32_t filter, int32_t max_stride,
                           int32_t* stride, int32_t* pad, int32_t* output) {
  *stride = r.uniform(1, max_stride);
  *pad = r.uniform(0, filter - 1);
  const int32_t span = input + *pad + r.uniform(0, filter - 1) - filter;
  if (span < 0) return false;
  *output = span / *stride + 1;
  return true;
}

// AVERAGE_POOL_2D and MAX_POOL_2D: small windows with strides and padding
// (edge windows clipped), global pools (one window over the whole input,
// as the classifier heads of kws, vww and resnet), and windows around 256
// cells (the 16-bit sums' bound); channel counts below, at and across
// whole words.
inline bool draw_pool_window(Random& r, Case* c, Pool2dParams& p) {
  p = Pool2dParams{};
  p.batches = r.one_in(4) ? 2 : 1;
  p.channels = r.one_in(2) ? r.pick(kDepths) : r.uniform(1, int32_t(kMaxChannels));
  const int32_t kind = r.uniform(0, 5);
  if (kind <= 2) {  // small windows
    p.filter_h = r.uniform(1, 4);
    p.filter_w = r.uniform(1, 4);
    p.input_h = r.uniform(1, 9);
    p.input_w = r.uniform(1, 9);
  } else if (kind <= 4) {  // global pools: VALID, one output pixel
    p.input_h = p.filter_h = r.uniform(1, 12);
    p.input_w = p.filter_w = r.uniform(1, 12);
    p.stride_h = p.stride_w = 1;
    p.output_h = p.output_w = 1;
  } else {  // large windows, the input barely larger
    p.filter_h = r.one_in(3) ? 16 : r.uniform(8, 24);
    p.filter_w = r.one_in(3) ? 16 : r.uniform(8, 24);
    p.input_h = p.filter_h + r.uniform(-2, 2);
    p.input_w = p.filter_w + r.uniform(-2, 2);
    p.channels = r.uniform(1, 8);
  }
  if (p.output_h == 0 &&
      (!draw_pool_axis(r, p.input_h, p.filter_h, 3, &p.stride_h, &p.pad_top, &p.output_h) ||
       !draw_pool_axis(r, p.input_w, p.filter_w, 3, &p.stride_w, &p.pad_left, &p.output_w)))
    return false;
  draw_activation(r, &p.act_min, &p.act_max);
  c->input_bytes = uint32_t(p.batches * p.input_h * p.input_w * p.channels);
  c->filter_bytes = 0;
  c->channels = uint32_t(p.channels);  // unused constants, but failures name the channel
  c->output_bytes = uint32_t(p.batches * p.output_h * p.output_w * p.channels);
  c->row_length = 0;
  c->input_offset = 0;
  return true;
}

inline bool draw_pool(Random& r, Case* c) { return draw_pool_window(r, c, c->p.pool); }

inline uint32_t bits_of_float(float value) {
  uint32_t bits;
  memcpy(&bits, &value, sizeof bits);
  return bits;
}

// MEAN: mostly global averages ([batches,] cells, channels reduced over
// the cells, as the lowering shapes a global average pool), up to and
// past 256 cells; sometimes the channels reduced instead. The multiplier
// and shift as TFLite folds 1 / count in (mode onnx: make_onnx_mean).
inline bool draw_mean(Random& r, Case* c) {
  MeanParams& p = c->p.mean;
  p = MeanParams{};
  const int32_t batches = r.one_in(4) ? 2 : 1;
  const int32_t cells = r.one_in(8) ? r.uniform(257, 300) : r.uniform(2, 256);
  const int32_t channels = r.one_in(2) ? r.pick(kDepths) : r.uniform(2, int32_t(kMaxChannels));
  p.rank = 0;
  if (batches > 1) p.dims[p.rank++] = batches;
  p.dims[p.rank++] = cells;
  p.dims[p.rank++] = channels;
  const bool channels_reduced = r.one_in(8);
  p.reduced_mask = 1u << (p.rank - (channels_reduced ? 1 : 2));
  p.count = channels_reduced ? channels : cells;
  p.input_zero_point = r.uniform(-128, 127);
  p.output_zero_point = r.uniform(-128, 127);
  p.multiplier = r.uniform(1 << 30, INT32_MAX);
  p.shift = r.uniform(-16, 0);
  c->input_bytes = uint32_t(batches * cells * channels);
  c->filter_bytes = 0;
  c->channels = uint32_t(channels);  // unused constants, but failures name the channel
  c->output_bytes = c->input_bytes / uint32_t(p.count);
  c->row_length = 0;
  c->input_offset = 0;
  return true;
}

// QUANTIZE float32 -> int8: a scale over the whole exponent range or a
// typical one (fill_quantize_input draws the floats).
inline bool draw_quantize(Random& r, Case* c) {
  QuantizeParams& p = c->p.quantize;
  p = QuantizeParams{};
  p.size = r.uniform(1, int32_t(kTypicalInputBytes / 4));
  const int32_t exponent = r.one_in(4) ? r.uniform(-140, 120) : r.uniform(-12, 2);
  const float power = exponent < -126 ? float_of_bits(1u << (exponent + 149))
                                      : float_of_bits(static_cast<uint32_t>(exponent + 127) << 23);
  const float significand =
      r.one_in(4) ? 1.0f : 1.0f + static_cast<float>(r.uniform(0, (1 << 23) - 1)) * 0x1p-23f;
  p.scale = exponent < -126 ? power : significand * power;
  p.zero_point = r.uniform(-128, 127);
  c->input_bytes = uint32_t(p.size) * 4;
  c->filter_bytes = 0;
  c->channels = 1;
  c->output_bytes = uint32_t(p.size);
  c->row_length = 0;
  c->input_offset = 0;
  return true;
}

// QUANTIZE's floats: mostly q = x / scale near the int8 range, on ties
// k + 1/2 and a few float32 steps off them, the rest any bits (zeros,
// subnormals, infinities, NaNs, the saturated).
inline void fill_quantize_input(Random& r, Workspace& ws, const Case& c) {
  const float scale = c.p.quantize.scale;
  auto* input = reinterpret_cast<uint8_t*>(input_of(ws, c));
  for (int32_t i = 0; i < c.p.quantize.size; ++i) {
    uint32_t bits;
    const int32_t kind = r.uniform(0, 7);
    if (kind <= 2) {  // on or next to a tie
      bits = bits_of_float((static_cast<float>(r.uniform(-300, 300)) + 0.5f) * scale) +
             static_cast<uint32_t>(kind == 0 ? 0 : r.uniform(-4, 4));
    } else if (kind <= 5) {  // anywhere in the int8 range and past it
      const float steps = static_cast<float>(r.uniform(-400000, 400000)) * 0.001f;
      bits = bits_of_float(steps * scale);
    } else if (kind == 6) {
      bits = r.one_in(2) ? 0u : 0x80000000u;
    } else {
      bits = static_cast<uint32_t>(r.uniform(INT32_MIN, INT32_MAX));
    }
    memcpy(input + 4 * i, &bits, sizeof bits);
  }
}

// AVERAGE_POOL_2D in mode onnx: the windows above, a scale drawn to reach
// the float32 chain's corners (onnx_average.h): powers of two, scales
// spread over the whole exponent range (the step's bound holds for
// [2^-90, 2^100], the chain runs alone outside it), and typical ones.
inline bool draw_avg_pool_onnx(Random& r, Case* c) {
  AvgPool2dOnnxParams& p = c->p.pool_onnx;
  p = AvgPool2dOnnxParams{};
  if (!draw_pool_window(r, c, p.pool)) return false;
  const int32_t kind = r.uniform(0, 3);
  const int32_t exponent = kind == 0 ? r.uniform(-120, 120) : r.uniform(-12, 2);
  const float power = float_of_bits(static_cast<uint32_t>(exponent + 127) << 23);
  const float significand =
      kind == 1 ? 1.0f : 1.0f + static_cast<float>(r.uniform(0, (1 << 23) - 1)) * 0x1p-23f;
  p.scale_bits = static_cast<int32_t>(bits_of_float(significand * power));
  p.zero_point = r.uniform(-128, 127);
  return true;
}

// One axis of a TRANSPOSE_CONV: mostly as TFLite shapes it (the output
// any size whose convolution of the filter and stride gives the input back,
// SAME or VALID, the leading padding half the total, the odd one after),
// now and then any output size and leading padding the kernels take (taps
// that miss the output, pixels no tap reaches).
inline void draw_transpose_axis(Random& r, int32_t max_input, int32_t filter, int32_t* input,
                                int32_t* stride, int32_t* pad, int32_t* output) {
  *input = r.uniform(1, max_input);
  *stride = r.uniform(1, 3);
  if (r.one_in(5)) {
    *output = r.uniform(1, (*input - 1) * *stride + filter + 2);
    *pad = r.uniform(0, filter + *stride);
    return;
  }
  const bool same = r.one_in(2);
  // SAME: ceil(output / stride) == input; VALID: (output - filter) / stride + 1 == input.
  const int32_t least = same ? (*input - 1) * *stride + 1 : (*input - 1) * *stride + filter;
  *output = least + r.uniform(0, *stride - 1);
  const int32_t total = (*input - 1) * *stride + filter - *output;
  *pad = total > 0 ? total / 2 : 0;
}

// TRANSPOSE_CONV: filters 1x1 to 5x5, strides 1 to 3 per axis; either few
// channels over a larger image (depths around the 16-lane blocks) or up to
// 40 input and output channels (past 16, rarely multiples of 4 or 16) over
// a small one; the reference's int32 output image within the scratch.
inline bool draw_transpose_conv(Random& r, Case* c) {
  TransposeConvParams& p = c->p.tconv;
  p = TransposeConvParams{};
  const bool wide = r.one_in(2);
  p.batches = r.one_in(6) ? 2 : 1;
  p.filter_h = r.uniform(1, wide ? 3 : 5);
  p.filter_w = r.uniform(1, wide ? 3 : 5);
  const int32_t max_input = wide ? 3 : 6;
  draw_transpose_axis(r, max_input, p.filter_h, &p.input_h, &p.stride_h, &p.pad_top, &p.output_h);
  draw_transpose_axis(r, max_input, p.filter_w, &p.input_w, &p.stride_w, &p.pad_left, &p.output_w);
  p.input_depth = wide ? r.uniform(1, 40) : r.pick(kDepths);
  p.output_depth = wide ? r.uniform(1, 40) : r.uniform(1, 9);
  p.input_offset = draw_input_offset(r);
  p.output_offset = draw_output_offset(r);
  draw_activation(r, &p.act_min, &p.act_max);
  const int32_t taps = p.filter_h * p.filter_w;
  c->input_bytes = uint32_t(p.batches * p.input_h * p.input_w * p.input_depth);
  c->row_length = taps * p.input_depth;
  c->filter_bytes = uint32_t(p.output_depth * c->row_length);
  c->channels = uint32_t(p.output_depth);
  c->output_bytes = uint32_t(p.batches * p.output_h * p.output_w * p.output_depth);
  c->input_offset = p.input_offset;
  return c->output_bytes * sizeof(int32_t) <= kMaxScratchBytes;
}

// A batch-matmul dimension: mostly 1 to 70 (past 16, rarely multiples of
// 4 or 16), now and then at and around the 4- and 16-wide blocks.
inline int32_t draw_matrix_dimension(Random& r) {
  return r.one_in(3) ? r.pick({1, 3, 4, 5, 15, 16, 17, 31, 32, 33}) : r.uniform(1, 70);
}

// A batch matmul case's operand sizes, from its params; false when they
// pass the buffers.
inline bool size_batch_matmul(Case* c, bool constant_rhs) {
  const BatchMatmulParams& p = c->p.bmm;
  int64_t lhs_batches = 1, rhs_batches = 1, out_batches = 1;
  for (int d = 0; d < 3; ++d) {
    lhs_batches *= p.lhs_batch[d];
    rhs_batches *= p.rhs_batch[d];
    out_batches *= p.lhs_batch[d] > p.rhs_batch[d] ? p.lhs_batch[d] : p.rhs_batch[d];
  }
  const int64_t input = lhs_batches * p.rows * p.depth, filter = rhs_batches * p.depth * p.cols;
  const int64_t output = out_batches * p.rows * p.cols;
  if (input > kMaxInputBytes || filter > kMaxFilterBytes || output > kMaxOutputBytes ||
      batch_matmul_ref_scratch_bytes(p, Activations::kInt8) > kMaxScratchBytes)
    return false;
  c->input_bytes = uint32_t(input);
  c->filter_bytes = uint32_t(filter);
  c->output_bytes = uint32_t(output);
  c->channels = 1;  // no per-channel constants: one unused entry
  c->row_length = 0;
  c->input_offset = p.lhs_offset;
  c->column_terms = constant_rhs ? uint32_t(batch_matmul_column_term_count(p)) : 0;
  return c->column_terms <= kMaxColumnTerms;
}

// BATCH_MATMUL: one to three matrices per operand, batch dimensions equal
// or broadcast from either side; each operand depth-minor or depth-major
// (TFLite's adj_x / adj_y); the RHS a constant (held depth-minor, as the
// compiler transposes constants, with its column terms) or an activation;
// the rescale mostly a right shift, now and then any the reference takes.
inline bool draw_batch_matmul(Random& r, Case* c) {
  BatchMatmulParams& p = c->p.bmm;
  p = BatchMatmulParams{};
  for (int d = 0; d < 3; ++d) p.lhs_batch[d] = p.rhs_batch[d] = 1;
  const int32_t batching = r.uniform(0, 3);
  if (batching == 1) {  // equal batches
    p.lhs_batch[2] = p.rhs_batch[2] = r.uniform(2, 3);
  } else if (batching == 2) {  // one side broadcast
    (r.one_in(2) ? p.lhs_batch : p.rhs_batch)[2] = r.uniform(2, 3);
  } else if (batching == 3) {  // broadcast both ways, two dimensions
    p.lhs_batch[1] = r.uniform(1, 2);
    p.rhs_batch[2] = r.uniform(1, 2);
  }
  p.rows = draw_matrix_dimension(r);
  p.depth = draw_matrix_dimension(r);
  p.cols = draw_matrix_dimension(r);
  const bool constant_rhs = r.one_in(2);
  p.lhs_layout = r.one_in(2) ? MatrixLayout::kDepthMajor : MatrixLayout::kDepthMinor;
  p.rhs_layout =
      !constant_rhs && r.one_in(2) ? MatrixLayout::kDepthMajor : MatrixLayout::kDepthMinor;
  p.lhs_offset = draw_input_offset(r);
  p.rhs_offset = r.one_in(4) ? 0 : draw_input_offset(r);
  p.output_offset = draw_output_offset(r);
  p.multiplier = r.one_in(16) ? 0 : draw_significand(r);
  p.shift = r.one_in(8) ? r.uniform(-31, 30) : r.uniform(-14, -1);
  draw_activation(r, &p.act_min, &p.act_max);
  return size_batch_matmul(c, constant_rhs);
}

// SOFTMAX: rows of depth 1, around the 4- and 16-lane blocks, up to 300
// and past 256 (up to the output buffer); the table's Q5.26 multiplier as
// the lowering makes it from beta * input scale (above 1: shift 1 to 31,
// 30 in single rounding), mostly where models put it (scales of about
// 1/32 to 1/2), in either rounding mode.
// A softmax case's operand sizes, from its params.
inline void size_softmax(Case* c) {
  const SoftmaxParams& p = c->p.softmax.params;
  c->input_bytes = c->output_bytes = uint32_t(p.rows * p.depth);
  c->filter_bytes = kSoftmaxExpTableSize * sizeof(int32_t);  // cut by fill_softmax_case
  c->channels = 1;  // no per-channel constants: one unused entry
  c->row_length = 0;
  c->input_offset = 0;
}

inline bool draw_softmax(Random& r, Case* c) {
  SoftmaxCase& s = c->p.softmax;
  s = SoftmaxCase{};
  const int32_t kind = r.uniform(0, 3);
  const int32_t depth = kind == 0   ? r.pick(kDepths)
                        : kind == 1 ? r.uniform(1, 300)
                                    : r.uniform(257, int32_t(kMaxOutputBytes));
  const int32_t max_rows = int32_t(kMaxOutputBytes) / depth;
  s.params.depth = depth;
  s.params.rows = r.uniform(1, max_rows < 8 ? max_rows : 8);
  s.rounding = r.one_in(2) ? Rounding::kSingle : Rounding::kDouble;
  s.shift =
      r.one_in(3) ? r.uniform(1, s.rounding == Rounding::kSingle ? 30 : 31) : r.uniform(21, 26);
  s.multiplier = draw_significand(r);
  size_softmax(c);
  return true;
}

// SOFTMAX's operands, after the generic draws: the table from the case's
// multiplier, stored as the lowering stores it, whole, or cut anywhere
// (the kernels read 0 past any end); most rows values within a spread
// below a top, as logits come (a spread of 0: a constant row), the others
// as drawn. False when the reference fails a row (more than 511 values
// near its maximum, where TFLite aborts): the case is redrawn.
inline bool fill_softmax_case(Random& r, Case* c, Workspace& ws) {
  SoftmaxCase& s = c->p.softmax;
  int32_t* table = reinterpret_cast<int32_t*>(filter_of(ws, *c));
  fill_softmax_exp_table(s.multiplier, s.shift, s.rounding, table);
  const int32_t cut = r.uniform(0, 3);
  s.table_entries = cut <= 1   ? softmax_stored_entries(table)
                    : cut == 2 ? kSoftmaxExpTableSize
                               : r.uniform(1, kSoftmaxExpTableSize);
  c->filter_bytes = uint32_t(s.table_entries) * sizeof(int32_t);
  for (int32_t row = 0; row < s.params.rows; ++row) {
    if (r.one_in(4)) continue;
    const int32_t top = r.uniform(-128, 127);
    const int32_t spread = r.one_in(8) ? 0 : r.one_in(2) ? r.uniform(1, 16) : r.uniform(1, 255);
    int8_t* values = input_of(ws, *c) + row * s.params.depth;
    for (int32_t i = 0; i < s.params.depth; ++i) {
      const int32_t v = top - r.uniform(0, spread);
      values[i] = static_cast<int8_t>(v < -128 ? -128 : v);
    }
  }
  Operand in[2] = {{input_of(ws, *c), c->input_bytes}, {table, c->filter_bytes}};
  Operand out = {output_at(ws.expected, *c), c->output_bytes};
  const KernelArgs args{&s.params, in, 2, &out, 1, {nullptr, 0}, s.rounding};
  return kernel_softmax_s8_ref.run(args) == Status::kOk;
}

inline bool draw_shape(Family family, Random& r, Case* c) {
  c->family = family;
  switch (family) {
    case Family::kConv2d:
      return draw_conv2d(r, c);
    case Family::kDepthwiseConv2d:
      return draw_depthwise(r, c);
    case Family::kFullyConnected:
      return draw_fully_connected(r, c);
    case Family::kAdd:
    case Family::kSub:
      return draw_add_sub(r, c);
    case Family::kMul:
      return draw_mul(r, c);
    case Family::kAvgPool:
    case Family::kMaxPool:
      return draw_pool(r, c);
    case Family::kAvgPoolOnnx:
      return draw_avg_pool_onnx(r, c);
    case Family::kMean:
      return draw_mean(r, c);
    case Family::kQuantize:
      return draw_quantize(r, c);
    case Family::kTransposeConv:
      return draw_transpose_conv(r, c);
    case Family::kBatchMatmul:
      return draw_batch_matmul(r, c);
    case Family::kSoftmax:
      return draw_softmax(r, c);
    case Family::kLstm:  // check_lstm_case draws its own
    case Family::kNone:
      break;
  }
  return false;
}

inline bool fits_workspace(const Case& c) {
  return c.input_bytes <= kMaxInputBytes && c.filter_bytes <= kMaxFilterBytes &&
         c.channels <= kMaxChannels && c.output_bytes <= kMaxOutputBytes;
}

inline bool is_typical(const Case& c) {
  return c.input_bytes <= kTypicalInputBytes && c.filter_bytes <= kTypicalFilterBytes &&
         c.channels <= kTypicalChannels && c.output_bytes <= kTypicalOutputBytes;
}

// Random int8 values; now and then only the extremes (the largest products).
inline void draw_bytes(Random& r, int8_t* data, uint32_t count) {
  const bool extremes = r.one_in(10);
  for (uint32_t i = 0; i < count; ++i)
    data[i] = static_cast<int8_t>(extremes ? r.pick({-128, 127}) : r.uniform(-128, 127));
}

// A channel's constants: the significand anywhere in [2^30, 2^31) (or 0, as
// the compiler writes for a vanishing scale), the shift mostly where real
// models put it, else anywhere in [-31, -1], so the scale runs from about
// 2^-32 to 1/2: the channels with a precomputed rescale, the only ones the
// compiler gives a variant other than the family's reference
// (choose_weighted_variant); the reference and the output step's own tests
// cover the others.
inline ChannelQuant draw_channel_quant(Random& r) {
  ChannelQuant q;
  q.bias = r.one_in(8) ? 0 : r.uniform(-40000, 40000);
  const int32_t kind = r.uniform(0, 15);
  q.multiplier = kind == 0   ? INT32_C(1) << 30
                 : kind == 1 ? INT32_MAX
                 : kind == 2 ? 0
                             : r.uniform(INT32_C(1) << 30, INT32_MAX);
  const int32_t regime = r.uniform(0, 7);
  q.shift = regime == 0 ? r.pick({-31, -1}) : regime <= 2 ? r.uniform(-31, -1) : r.uniform(-13, -1);
  return make_channel_quant(q.bias, q.multiplier, q.shift);
}

inline void set_input_offset(Case* c, int32_t offset) {
  c->input_offset = offset;
  if (c->family == Family::kConv2d) c->p.conv.input_offset = offset;
  if (c->family == Family::kDepthwiseConv2d) c->p.depthwise.input_offset = offset;
  if (c->family == Family::kFullyConnected) c->p.fc.input_offset = offset;
  if (is_add_sub(c->family)) c->p.add_sub.input1_offset = c->p.add_sub.input2_offset = offset;
  if (c->family == Family::kMul) c->p.mul.input1_offset = c->p.mul.input2_offset = offset;
  if (c->family == Family::kTransposeConv) c->p.tconv.input_offset = offset;
  if (c->family == Family::kBatchMatmul) c->p.bmm.lhs_offset = offset;
}

// Inputs, weights and input offset at their extremes, biases at an int32
// limit: accumulators overflow. The reference wraps as the hardware's
// int32 does, and so must every variant, folded offsets included.
inline void push_accumulators_to_wrap(Random& r, Case* c, Workspace& ws) {
  const bool up = r.one_in(2);
  memset(input_of(ws, *c), up ? 127 : -128, c->input_bytes);
  memset(filter_of(ws, *c), 127, c->filter_bytes);
  set_input_offset(c, up ? 128 : -127);
  ChannelQuant* quant = placed_quant(ws.quant, *c);
  for (uint32_t o = 0; o < c->channels; ++o)
    quant[o].bias = up ? INT32_MAX - r.uniform(0, 1000) : INT32_MIN + r.uniform(0, 1000);
}

// ---- running ----

// The kernel's validate, as the loader calls it: the weights and the
// per-channel constants are program constants (their contents visible),
// the input and the output live in the arena.
inline Status validate_operation(const KernelDescriptor& kernel, const void* params,
                                 const Operand* inputs, uint32_t num_inputs,
                                 const Operand* outputs) {
  OperandView in[4] = {{nullptr, inputs[0].bytes}};
  for (uint32_t i = 1; i < num_inputs; ++i) in[i] = {inputs[i].data, inputs[i].bytes};
  const OperandView out[1] = {{nullptr, outputs[0].bytes}};
  return kernel.validate(params, in, num_inputs, out, 1);
}

inline uint32_t scratch_need(const KernelDescriptor& kernel, const Case& c) {
  return kernel.scratch_bytes != nullptr ? kernel.scratch_bytes(&c.p) : 0;
}

// Operands of `kernel` for case `c`, its output at `output` (after the
// guard), its constants `quant`: the reference's (ws.quant) with the
// reference's weights, the variant's (ws.variant_quant) with the variant's.
struct Operands {
  Operand inputs[4];
  uint32_t num_inputs;
  Operand outputs[1];
};

// The weights (or table, or second operand) `kernel` takes: the
// variant's with the variant's constants (ws.variant_quant), else the
// reference's.
inline int8_t* filter_for(Workspace& ws, const Case& c, const ChannelQuant* quant) {
  return quant == ws.variant_quant ? variant_filter_of(ws, c) : filter_of(ws, c);
}

inline uint32_t filter_bytes_for(const Workspace& ws, const Case& c, const ChannelQuant* quant) {
  return quant == ws.variant_quant ? c.variant_filter_bytes : c.filter_bytes;
}

inline Operands operands_for(const KernelDescriptor* variant, Workspace& ws, const Case& c,
                             ChannelQuant* quant, uint8_t* output) {
  Operands o;
  o.inputs[0] = {input_of(ws, c), c.input_bytes};
  o.inputs[1] = {filter_for(ws, c, quant), filter_bytes_for(ws, c, quant)};
  o.inputs[2] = {placed_quant(quant, c), uint32_t(c.channels * sizeof(ChannelQuant))};
  o.num_inputs = takes_one_input(c.family)                             ? 1
                 : is_binary(c.family) || c.family == Family::kSoftmax ? 2
                                                                       : 3;
  if (c.family == Family::kConv2d && quant == ws.variant_quant &&
      conv2d_variant_takes_pad_row(variant)) {
    o.inputs[3] = {pad_row_of(ws, c), uint32_t(c.p.conv.input_depth)};
    o.num_inputs = 4;
  }
  if (c.family == Family::kBatchMatmul) o.num_inputs = 2;  // LHS, RHS
  if (c.family == Family::kBatchMatmul && quant == ws.variant_quant && c.column_terms != 0 &&
      batch_matmul_variant_takes_terms(variant)) {
    o.inputs[2] = {column_terms_of(ws, c), c.column_terms * uint32_t(sizeof(int32_t))};
    o.num_inputs = 3;
  }
  o.outputs[0] = {output_at(output, c), c.output_bytes};
  return o;
}

inline bool all_bytes(const uint8_t* data, uint32_t count, uint8_t value) {
  for (uint32_t i = 0; i < count; ++i)
    if (data[i] != value) return false;
  return true;
}

inline uint32_t checksum(const void* data, uint32_t bytes) {
  const auto* p = static_cast<const uint8_t*>(data);
  uint32_t hash = 2166136261u;
  for (uint32_t i = 0; i < bytes; ++i) hash = (hash ^ p[i]) * 16777619u;
  return hash;
}

// Fences a buffer of `capacity` bytes from `start` but the `bytes` its
// operand takes `before` bytes in.
inline void fence_outside(Workspace& ws, void* start, uint32_t before, uint32_t bytes,
                          uint32_t capacity, bool fence) {
  auto* s = static_cast<uint8_t*>(start);
  if (before != 0) ws.fence(s, before, fence);
  ws.fence(s + before + bytes, capacity - before - bytes, fence);
}

// Fences everything around the operands of a run: the unused parts of
// the input buffers, the guards of output and scratch.
inline void fence_unused(Workspace& ws, const Case& c, ChannelQuant* quant, uint8_t* output,
                         uint32_t scratch_bytes, bool fence) {
  if (ws.fence == nullptr) return;
  fence_outside(ws, ws.input, c.at.input, c.input_bytes, sizeof(ws.input), fence);
  const bool variant = quant == ws.variant_quant;
  fence_outside(ws, variant ? ws.variant_filter : ws.filter, c.at.filter,
                filter_bytes_for(ws, c, quant), sizeof(ws.filter), fence);
  fence_outside(ws, quant, c.at.quant, uint32_t(c.channels * sizeof(ChannelQuant)),
                sizeof(ws.quant), fence);
  uint8_t* first = output_at(output, c);
  ws.fence(first - kGuardBytes, kGuardBytes, fence);
  ws.fence(first + c.output_bytes, kGuardBytes, fence);
  uint8_t* scratch = ws.scratch + c.at.scratch;
  ws.fence(scratch, kGuardBytes, fence);
  ws.fence(scratch + kGuardBytes + scratch_bytes, kGuardBytes, fence);
}

// Why a run failed, or nullptr; `detail` gets the specifics.
struct RunCheck {
  const char* problem = nullptr;
  Text detail;
};

// Runs `kernel` once with guarded output and scratch and checks
// everything but the output values. The variant's run (into ws.actual)
// of a case with an input in place finds that input's bytes in its
// output, as the planner lays it out, and reads them from there.
inline void run_guarded(const KernelDescriptor& kernel, Workspace& ws, const Case& c,
                        ChannelQuant* quant, uint8_t* output, uint8_t fill, Rounding rounding,
                        RunCheck* check) {
  const uint32_t need = scratch_need(kernel, c);
  if (need > kMaxScratchBytes) {
    check->problem = "scratch need beyond the sweep's buffer";
    check->detail.field("need", need);
    return;
  }
  uint8_t* first = output_at(output, c);
  memset(first - kGuardBytes, kGuardPattern, kGuardBytes + c.output_bytes + kGuardBytes);
  memset(first, fill, c.output_bytes);
  uint8_t* scratch = ws.scratch + c.at.scratch;
  memset(scratch, kGuardPattern, kGuardBytes + need + kGuardBytes);
  memset(scratch + kGuardBytes, kScratchFill, need);
  Operands o = operands_for(&kernel, ws, c, quant, output);
  if (output == ws.actual && c.at.in_place >= 0) {
    Operand& aliased = o.inputs[c.at.in_place];
    memcpy(first, aliased.data, aliased.bytes);
    aliased.data = first;
  }
  const int8_t* filter = filter_for(ws, c, quant);
  const uint32_t filter_bytes = filter_bytes_for(ws, c, quant);
  const ChannelQuant* constants = placed_quant(quant, c);
  const uint32_t inputs_before = checksum(input_of(ws, c), c.input_bytes) ^
                                 checksum(filter, filter_bytes) ^
                                 checksum(constants, c.channels * sizeof(ChannelQuant));
  KernelArgs args;
  args.params = &c.p;
  args.inputs = o.inputs;
  args.num_inputs = o.num_inputs;
  args.outputs = o.outputs;
  args.num_outputs = 1;
  args.scratch = {need != 0 ? scratch + kGuardBytes : nullptr, need};
  args.rounding = rounding;
  fence_unused(ws, c, quant, output, need, true);
  const Status status = kernel.run(args);
  fence_unused(ws, c, quant, output, need, false);
  if (status != Status::kOk) {
    check->problem = "run failed";
    check->detail.text(" status ").text(status_name(status));
  } else if (!all_bytes(first - kGuardBytes, kGuardBytes, kGuardPattern) ||
             !all_bytes(first + c.output_bytes, kGuardBytes, kGuardPattern)) {
    check->problem = "wrote outside its output";
  } else if (!all_bytes(scratch, kGuardBytes, kGuardPattern) ||
             !all_bytes(scratch + kGuardBytes + need, kGuardBytes, kGuardPattern)) {
    check->problem = "wrote outside its scratch";
    check->detail.field("scratch", need);
  } else if ((checksum(input_of(ws, c), c.input_bytes) ^ checksum(filter, filter_bytes) ^
              checksum(constants, c.channels * sizeof(ChannelQuant))) != inputs_before) {
    check->problem = "changed an input";
  }
}

// ---- describing a case ----

inline void describe_shape(const Case& c, Text* t) {
  switch (c.family) {
    case Family::kConv2d: {
      const Conv2dParams& p = c.p.conv;
      t->field("batches", p.batches).field("input_h", p.input_h).field("input_w", p.input_w);
      t->field("input_depth", p.input_depth).field("filter_h", p.filter_h);
      t->field("filter_w", p.filter_w).field("output_h", p.output_h);
      t->field("output_w", p.output_w).field("output_depth", p.output_depth);
      t->field("stride_h", p.stride_h).field("stride_w", p.stride_w);
      t->field("dilation_h", p.dilation_h).field("dilation_w", p.dilation_w);
      t->field("pad_top", p.pad_top).field("pad_left", p.pad_left);
      t->field("input_offset", p.input_offset).field("output_offset", p.output_offset);
      t->field("act_min", p.act_min).field("act_max", p.act_max);
      return;
    }
    case Family::kDepthwiseConv2d: {
      const DepthwiseConv2dParams& p = c.p.depthwise;
      t->field("batches", p.batches).field("input_h", p.input_h).field("input_w", p.input_w);
      t->field("input_depth", p.input_depth).field("depth_multiplier", p.depth_multiplier);
      t->field("filter_h", p.filter_h).field("filter_w", p.filter_w);
      t->field("output_h", p.output_h).field("output_w", p.output_w);
      t->field("stride_h", p.stride_h).field("stride_w", p.stride_w);
      t->field("dilation_h", p.dilation_h).field("dilation_w", p.dilation_w);
      t->field("pad_top", p.pad_top).field("pad_left", p.pad_left);
      t->field("input_offset", p.input_offset).field("output_offset", p.output_offset);
      t->field("act_min", p.act_min).field("act_max", p.act_max);
      return;
    }
    case Family::kFullyConnected: {
      const FullyConnectedParams& p = c.p.fc;
      t->field("batches", p.batches).field("input_depth", p.input_depth);
      t->field("output_depth", p.output_depth);
      t->field("input_offset", p.input_offset).field("output_offset", p.output_offset);
      t->field("act_min", p.act_min).field("act_max", p.act_max);
      return;
    }
    case Family::kAdd:
    case Family::kSub: {
      const AddSubParams& p = c.p.add_sub;
      t->field("elements", c.output_bytes).field("input2_bytes", c.filter_bytes);
      t->field("input1_offset", p.input1_offset).field("input2_offset", p.input2_offset);
      t->field("input1_multiplier", p.input1_multiplier).field("input1_shift", p.input1_shift);
      t->field("input2_multiplier", p.input2_multiplier).field("input2_shift", p.input2_shift);
      t->field("output_multiplier", p.output_multiplier).field("output_shift", p.output_shift);
      t->field("output_offset", p.output_offset);
      t->field("act_min", p.act_min).field("act_max", p.act_max);
      return;
    }
    case Family::kMul: {
      const MulParams& p = c.p.mul;
      t->field("rows", p.shape.dims[kBroadcastRank - 2]);
      t->field("row", p.shape.dims[kBroadcastRank - 1]).field("input2_bytes", c.filter_bytes);
      t->field("input1_offset", p.input1_offset).field("input2_offset", p.input2_offset);
      t->field("output_multiplier", p.output_multiplier).field("output_shift", p.output_shift);
      t->field("output_offset", p.output_offset);
      t->field("act_min", p.act_min).field("act_max", p.act_max);
      return;
    }
    case Family::kQuantize: {
      const QuantizeParams& p = c.p.quantize;
      t->field("size", p.size).field("scale_bits", bits_of_float(p.scale));
      t->field("zero_point", p.zero_point);
      return;
    }
    case Family::kMean: {
      const MeanParams& p = c.p.mean;
      t->field("rank", p.rank).field("dim0", p.dims[0]).field("dim1", p.dims[1]);
      t->field("dim2", p.dims[2]).field("reduced_mask", p.reduced_mask).field("count", p.count);
      t->field("input_zero_point", p.input_zero_point);
      t->field("output_zero_point", p.output_zero_point);
      t->field("multiplier", p.multiplier).field("shift", p.shift);
      return;
    }
    case Family::kAvgPool:
    case Family::kMaxPool:
    case Family::kAvgPoolOnnx: {
      const Pool2dParams& p = c.family == Family::kAvgPoolOnnx ? c.p.pool_onnx.pool : c.p.pool;
      if (c.family == Family::kAvgPoolOnnx) {
        t->field("scale_bits", c.p.pool_onnx.scale_bits);
        t->field("zero_point", c.p.pool_onnx.zero_point);
      }
      t->field("batches", p.batches).field("input_h", p.input_h).field("input_w", p.input_w);
      t->field("channels", p.channels).field("filter_h", p.filter_h);
      t->field("filter_w", p.filter_w).field("output_h", p.output_h);
      t->field("output_w", p.output_w).field("stride_h", p.stride_h);
      t->field("stride_w", p.stride_w).field("pad_top", p.pad_top).field("pad_left", p.pad_left);
      t->field("act_min", p.act_min).field("act_max", p.act_max);
      return;
    }
    case Family::kTransposeConv: {
      const TransposeConvParams& p = c.p.tconv;
      t->field("batches", p.batches).field("input_h", p.input_h).field("input_w", p.input_w);
      t->field("input_depth", p.input_depth).field("filter_h", p.filter_h);
      t->field("filter_w", p.filter_w).field("output_h", p.output_h);
      t->field("output_w", p.output_w).field("output_depth", p.output_depth);
      t->field("stride_h", p.stride_h).field("stride_w", p.stride_w);
      t->field("pad_top", p.pad_top).field("pad_left", p.pad_left);
      t->field("input_offset", p.input_offset).field("output_offset", p.output_offset);
      t->field("act_min", p.act_min).field("act_max", p.act_max);
      return;
    }
    case Family::kBatchMatmul: {
      const BatchMatmulParams& p = c.p.bmm;
      t->field("lhs_batch", p.lhs_batch[0]).field("x", p.lhs_batch[1]).field("x", p.lhs_batch[2]);
      t->field("rhs_batch", p.rhs_batch[0]).field("x", p.rhs_batch[1]).field("x", p.rhs_batch[2]);
      t->field("rows", p.rows).field("depth", p.depth).field("cols", p.cols);
      t->field("lhs_depth_major", int32_t(p.lhs_layout == MatrixLayout::kDepthMajor));
      t->field("rhs_depth_major", int32_t(p.rhs_layout == MatrixLayout::kDepthMajor));
      t->field("constant_rhs", int32_t(c.column_terms != 0));
      t->field("lhs_offset", p.lhs_offset).field("rhs_offset", p.rhs_offset);
      t->field("output_offset", p.output_offset).field("multiplier", p.multiplier);
      t->field("shift", p.shift).field("act_min", p.act_min).field("act_max", p.act_max);
      return;
    }
    case Family::kSoftmax: {
      const SoftmaxCase& s = c.p.softmax;
      t->field("rows", s.params.rows).field("depth", s.params.depth);
      t->field("table_entries", s.table_entries).field("multiplier", s.multiplier);
      t->field("shift", s.shift).text(" table_rounding ").text(rounding_name(s.rounding));
      return;
    }
    case Family::kLstm:  // described by lstm_sweep.h
    case Family::kNone:
      break;
  }
}

// Operand offsets from their buffers' 16-byte aligned starts.
inline void describe_placement(const Placement& at, Text* t) {
  t->field("at_input", at.input).field("at_filter", at.filter).field("at_quant", at.quant);
  t->field("at_output", at.output).field("at_scratch", at.scratch);
  if (at.in_place >= 0) t->field("output_over_input", at.in_place);
}

// ---- one case ----

struct CaseOutcome {
  bool passed = true;
  uint32_t runs = 0;
  const char* problem = nullptr;
  Text detail;  // rounding, first differing byte, its channel's constants
};

// The constants as `variant` takes them, from the reference's in ws.quant
// and ws.filter: the input offset's share folded in, the weights put in the
// variant's order, where the variant wants it (the lowerings' predicates).
inline void set_variant_quant(const KernelDescriptor& variant, const Case& c, Workspace& ws) {
  const int8_t* filter = filter_of(ws, c);
  int8_t* variant_filter = variant_filter_of(ws, c);
  ChannelQuant* variant_quant = placed_quant(ws.variant_quant, c);
  if (c.family == Family::kDepthwiseConv2d &&
      order_depthwise_weights(&variant, c.p.depthwise, filter, variant_filter))
    ;  // in the variant's layout
  else if (c.family == Family::kConv2d)
    order_conv2d_weights(&variant, c.p.conv, filter, variant_filter);
  else if (c.family == Family::kTransposeConv && &variant == &kernel_transpose_conv_s8_mve)
    order_transpose_conv_mve_weights(c.p.tconv, filter, variant_filter);
  else if (c.family == Family::kFullyConnected && fully_connected_variant_orders_weights(&variant))
    order_fully_connected_weights(&variant, c.p.fc.output_depth, c.p.fc.input_depth, filter,
                                  variant_filter);
  else
    memcpy(variant_filter, filter, c.filter_bytes);
  memcpy(variant_quant, placed_quant(ws.quant, c), c.channels * sizeof(ChannelQuant));
  if (c.family == Family::kConv2d && conv2d_variant_takes_pad_row(&variant))
    memset(pad_row_of(ws, c), -c.input_offset, uint32_t(c.p.conv.input_depth));
  if (c.family == Family::kDepthwiseConv2d && depthwise_variant_folds_input_offset(&variant))
    fold_depthwise_input_offset(c.p.depthwise, filter, variant_quant);
  if (c.family == Family::kBatchMatmul && c.column_terms != 0)
    batch_matmul_column_terms(c.p.bmm, filter, column_terms_of(ws, c));
  if (folds_input_offset(variant, c.family))
    fold_input_offset(variant_quant, int32_t(c.channels), filter, c.row_length, c.input_offset);
}

// What became of a shape given to fill_case.
enum class Fill : uint8_t {
  kReady,             // the variant's case, ready to run
  kRefused,           // the variant's validate refuses it
  kRedraw,            // beyond the sweep's buffers, or a row the reference fails
  kReferenceRefuses,  // the generator is wrong
};

// Fills the operands of the shape in `c` (case `index` of the variant's
// sweep: placed as placement.h says) with draws from `r`, validates it as
// the loader would, for the reference (which must take every shape) and
// for the variant. Either's scratch at most `scratch_cap` bytes.
inline Fill fill_case(const KernelDescriptor& variant, uint32_t index, Random& r, Workspace& ws,
                      uint32_t scratch_cap, Case* c, Text* detail) {
  const Family family = c->family;
  const KernelDescriptor* reference = family_reference(family);
  c->at = place_operands(index, filter_in_arena(*c), variant.signature);
  draw_bytes(r, input_of(ws, *c), c->input_bytes);
  draw_bytes(r, filter_of(ws, *c), c->filter_bytes);
  ChannelQuant* quant = placed_quant(ws.quant, *c);
  for (uint32_t o = 0; o < c->channels; ++o) quant[o] = draw_channel_quant(r);
  if (r.one_in(16)) push_accumulators_to_wrap(r, c, ws);
  if (family == Family::kSoftmax && !fill_softmax_case(r, c, ws)) return Fill::kRedraw;
  if (family == Family::kQuantize) fill_quantize_input(r, ws, *c);
  const Operands ref = operands_for(reference, ws, *c, ws.quant, ws.expected);
  const Status ref_status =
      validate_operation(*reference, &c->p, ref.inputs, ref.num_inputs, ref.outputs);
  if (ref_status != Status::kOk) {
    detail->text(" status ").text(status_name(ref_status));
    return Fill::kReferenceRefuses;
  }
  c->variant_filter_bytes = c->filter_bytes;
  if (family == Family::kDepthwiseConv2d)
    c->variant_filter_bytes *= uint32_t(depthwise_weight_bytes(&variant));
  if (family == Family::kConv2d)
    c->variant_filter_bytes = uint32_t(conv2d_weight_bytes(&variant, c->p.conv));
  if (family == Family::kTransposeConv && &variant == &kernel_transpose_conv_s8_mve)
    c->variant_filter_bytes = uint32_t(transpose_conv_mve_weight_bytes(c->p.tconv));
  if (c->variant_filter_bytes > kMaxFilterBytes) return Fill::kRedraw;
  set_variant_quant(variant, *c, ws);
  const Operands o = operands_for(&variant, ws, *c, ws.variant_quant, ws.actual);
  if (validate_operation(variant, &c->p, o.inputs, o.num_inputs, o.outputs) != Status::kOk)
    return Fill::kRefused;
  // A tall window's im2col column may not fit the sweep's scratch: that
  // shape is redrawn, not counted as the variant's failure.
  if (scratch_need(variant, *c) > scratch_cap || scratch_need(*reference, *c) > scratch_cap)
    return Fill::kRedraw;
  const bool same_size[2] = {c->input_bytes == c->output_bytes,
                             filter_in_arena(*c) && c->filter_bytes == c->output_bytes};
  c->at.in_place = in_place_input(index, variant.in_place_inputs, same_size);
  return Fill::kReady;
}

// Draws case `index` of `variant`'s sweep under `seed` into `c` and the
// workspace: shapes are redrawn until the variant's validate takes one
// (its case); the reference must take every shape drawn, or the generator
// is wrong. Most cases keep to the sizes of common layers (typical); one
// in kLargeCaseOdds may fill the workspace. Returns nullptr, or what went
// wrong.
inline const char* draw_case(const KernelDescriptor& variant, uint64_t seed, uint32_t index,
                             Workspace& ws, Case* c, Text* detail) {
  const Family family = family_of(variant);
  if (family_reference(family) == nullptr) return "no family sweep for this variant";
  Random r(case_seed(seed, variant.name, index));
  const bool large = r.one_in(kLargeCaseOdds);
  for (uint32_t attempt = 0; attempt < kDrawAttempts; ++attempt) {
    if (!draw_shape(family, r, c) || !fits_workspace(*c) || (!large && !is_typical(*c))) continue;
    const Fill fill = fill_case(variant, index, r, ws,
                                large ? kMaxScratchBytes : kTypicalScratchBytes, c, detail);
    if (fill == Fill::kReady) return nullptr;
    if (fill == Fill::kReferenceRefuses) return "the reference refuses a drawn case";
  }
  return "no drawn shape passes the variant's validate";
}

// The weighted families, whose per-channel constants are ChannelQuant: in
// rounding mode onnx their multiplier is a float32's bits.
inline bool has_channel_quant(Family family) {
  return family == Family::kConv2d || family == Family::kDepthwiseConv2d ||
         family == Family::kFullyConnected || family == Family::kTransposeConv;
}

// The float32 nearest a drawn real multiplier, multiplier * 2^(shift -
// 31), shift in [-126, 127].
inline float real_multiplier(int32_t multiplier, int32_t shift) {
  const float significand = static_cast<float>(multiplier) * (1.0f / 2147483648.0f);
  return significand * float_of_bits(static_cast<uint32_t>(shift + 127) << 23);
}

// The case's constants as mode onnx takes them: the real multiplier drawn
// as for the other modes (onnx_requantize.h), with shift -1.
inline void make_onnx_quant(ChannelQuant* quant, uint32_t channels) {
  for (uint32_t o = 0; o < channels; ++o) {
    const float real = real_multiplier(quant[o].multiplier, quant[o].shift);
    uint32_t bits;
    memcpy(&bits, &real, sizeof bits);
    quant[o].multiplier = static_cast<int32_t>(bits);
    quant[o].shift = -1;
  }
}

// ADD and SUB's parameters as mode onnx takes them (add_sub_onnx.h): the
// scales the case's TFLite rescales stand for, the inputs' rescales as sa
// and sb and sc = 2^-20 / the output rescale (TFLite's left shift), every
// shift 0.
inline void make_onnx_add_sub(AddSubParams* p, int sign) {
  const float output_real = real_multiplier(p->output_multiplier, p->output_shift);
  const float sc = output_real > 0.0f ? (1.0f / 1048576.0f) / output_real : 1.0f;
  p->input1_multiplier =
      static_cast<int32_t>(bits_of_float(real_multiplier(p->input1_multiplier, p->input1_shift)));
  p->input2_multiplier =
      static_cast<int32_t>(bits_of_float(real_multiplier(p->input2_multiplier, p->input2_shift)));
  p->output_multiplier = static_cast<int32_t>(bits_of_float(sc));
  p->left_shift = p->input1_shift = p->input2_shift = p->output_shift = 0;
  p->onnx_fast = onnx_add_sub_fast_constants(
      float_of_bits(static_cast<uint32_t>(p->input1_multiplier)),
      float_of_bits(static_cast<uint32_t>(p->input2_multiplier)), sc, sign);
}

// MEAN's parameters as mode onnx takes them (mean_lower.cpp): the
// multiplier a float32's bits, shift -1.
inline void make_onnx_mean(MeanParams* p) {
  p->multiplier = static_cast<int32_t>(bits_of_float(real_multiplier(p->multiplier, p->shift)));
  p->shift = -1;
}

// Whether `variant`'s sweep runs mode onnx too: the weighted families and
// ADD and SUB, when the variant and its reference both have the mode.
inline bool sweeps_onnx(const KernelDescriptor& variant, Family family) {
  return (has_channel_quant(family) || is_add_sub(family) || family == Family::kMean ||
          family == Family::kQuantize) &&
         kernel_has_onnx_rounding(variant.name) &&
         kernel_has_onnx_rounding(family_reference(family)->name);
}

// Runs the reference and `variant` on the case in the workspace in each
// rounding mode both have (tflm and single; onnx too for the weighted
// families' and ADD and SUB's variants that have it,
// kernels/onnx_kernels.h, last: it rewrites the case's constants) and
// compares; the first problem goes to `out`.
inline void compare_with_reference(const KernelDescriptor& variant, const Case& drawn,
                                   Workspace& ws, CaseOutcome* out) {
  const KernelDescriptor& reference = *family_reference(drawn.family);
  const bool onnx = sweeps_onnx(variant, drawn.family);
  Case onnx_case;  // ADD and SUB in mode onnx: the case with onnx parameters
  const Case* run = &drawn;
  const Rounding roundings[] = {Rounding::kDouble, Rounding::kSingle, Rounding::kOnnx};
  for (Rounding rounding : roundings) {
    if (rounding == Rounding::kOnnx) {
      if (!onnx) continue;
      if (is_add_sub(drawn.family)) {
        onnx_case = drawn;
        make_onnx_add_sub(&onnx_case.p.add_sub, drawn.family == Family::kSub ? -1 : 1);
        run = &onnx_case;
      } else if (drawn.family == Family::kMean) {
        onnx_case = drawn;
        make_onnx_mean(&onnx_case.p.mean);
        run = &onnx_case;
      } else {
        make_onnx_quant(placed_quant(ws.quant, drawn), drawn.channels);
        make_onnx_quant(placed_quant(ws.variant_quant, drawn), drawn.channels);
      }
    }
    const Case& c = *run;
    ++out->runs;
    out->detail.clear();
    out->detail.text(" rounding ").text(rounding_name(rounding));
    RunCheck ref_check;
    run_guarded(reference, ws, c, ws.quant, ws.expected, kExpectedFill, rounding, &ref_check);
    if (ref_check.problem != nullptr) {
      out->passed = false;
      out->problem = "reference kernel failed";
      out->detail.text(": ").text(ref_check.problem).text(ref_check.detail.c_str());
      return;
    }
    RunCheck check;
    run_guarded(variant, ws, c, ws.variant_quant, ws.actual, kActualFill, rounding, &check);
    if (check.problem != nullptr) {
      out->passed = false;
      out->problem = check.problem;
      out->detail.text(check.detail.c_str());
      return;
    }
    const int8_t* expected = reinterpret_cast<const int8_t*>(output_at(ws.expected, c));
    const int8_t* actual = reinterpret_cast<const int8_t*>(output_at(ws.actual, c));
    uint32_t differing = 0, first = 0;
    for (uint32_t i = 0; i < c.output_bytes; ++i) {
      if (expected[i] == actual[i]) continue;
      if (differing++ == 0) first = i;
    }
    if (differing != 0) {
      const uint32_t channel = first % c.channels;
      const ChannelQuant& q = placed_quant(ws.quant, c)[channel];
      out->passed = false;
      out->problem = "output differs from the reference";
      out->detail.field("bytes_differing", differing).field("first_at", first);
      out->detail.field("channel", channel).field("expected", expected[first]);
      out->detail.field("got", actual[first]);
      if (!takes_one_input(c.family) && c.family != Family::kSoftmax) {  // no channel constants
        out->detail.field("bias", q.bias);
        out->detail.field("multiplier", q.multiplier).field("shift", q.shift);
      }
      return;
    }
  }
}

inline CaseOutcome check_lstm_case(const KernelDescriptor& variant, uint64_t seed, uint32_t index,
                                   Workspace& ws, Text* shape);  // lstm_sweep.h

}  // namespace tinyaot::sweep

// The int16x8 weighted families: their own cases, on the types above.
#include "tests/variant_sweep/int16x8_sweep.h"

namespace tinyaot::sweep {

// Case `index` of `variant`'s sweep under `seed`, drawn and compared;
// `shape` receives the case's description.
inline CaseOutcome check_case(const KernelDescriptor& variant, uint64_t seed, uint32_t index,
                              Workspace& ws, Text* shape) {
  if (family_of(variant) == Family::kLstm) return check_lstm_case(variant, seed, index, ws, shape);
  if (int16x8_reference(variant) != nullptr)
    return check_int16x8_case(variant, seed, index, ws, shape);
  CaseOutcome out;
  Case c;
  shape->clear();
  out.problem = draw_case(variant, seed, index, ws, &c, &out.detail);
  if (c.family != Family::kNone) {
    describe_shape(c, shape);
    describe_placement(c.at, shape);
  }
  if (out.problem != nullptr) {
    out.passed = false;
    return out;
  }
  compare_with_reference(variant, c, ws, &out);
  return out;
}

// ---- one variant ----

struct VariantTally {
  uint32_t cases = 0, runs = 0, passed = 0, failed = 0;
};

inline void print_failure(PrintFn print, const KernelDescriptor& variant, uint64_t seed,
                          uint32_t index, CaseOutcome& outcome, Text& shape) {
  Text line;
  line.text("FAIL ").text(variant.name).field("case", int64_t(index));
  line.text(" (replay: --seed ").num(int64_t(seed)).text(" --variant ").text(variant.name);
  line.text(" --case ").num(index).text("): ").text(outcome.problem);
  line.text(outcome.detail.c_str());
  print(line.c_str());
  Text params;
  params.text("  shape:").text(shape.c_str());
  print(params.c_str());
}

// Cases [first, first + count) of `variant`'s sweep; the first few
// failures printed in full.
inline VariantTally sweep_variant(const KernelDescriptor& variant, uint64_t seed, uint32_t first,
                                  uint32_t count, Workspace& ws, PrintFn print) {
  VariantTally tally;
  Text shape;
  for (uint32_t index = first; index < first + count; ++index) {
    CaseOutcome outcome = check_case(variant, seed, index, ws, &shape);
    ++tally.cases;
    tally.runs += outcome.runs;
    if (outcome.passed) {
      ++tally.passed;
      continue;
    }
    if (tally.failed++ < kFailuresPrinted)
      print_failure(print, variant, seed, index, outcome, shape);
  }
  return tally;
}

// Whether `kernel` is one the sweep checks for ISA class `isa`: a
// non-reference variant of a family with a reference, of a class the
// core has (the compiler's rule: any variant of the core's class or
// below).
inline bool is_swept(const KernelDescriptor& kernel, IsaClass isa) {
  const Family family = family_of(kernel);
  const KernelDescriptor* reference =
      family != Family::kNone ? family_reference(family) : int16x8_reference(kernel);
  return reference != nullptr && &kernel != reference &&
         static_cast<uint8_t>(kernel.isa) <= static_cast<uint8_t>(isa);
}

// A registry entry that has a sibling variant (same operator) but no
// family here: it would go unchecked, so the sweep reports it.
inline bool lacks_sweep(const KernelDescriptor& kernel) {
  if (family_of(kernel) != Family::kNone || int16x8_reference(kernel) != nullptr) return false;
  for (uint32_t id = 0; id < kernel_count(); ++id) {
    const KernelDescriptor* other = find_kernel(id);
    if (other != &kernel && strcmp(other->op, kernel.op) == 0) return true;
  }
  return false;
}

}  // namespace tinyaot::sweep

#include "tests/variant_sweep/lstm_sweep.h"  // NOLINT: after the declarations it uses
