// Cases at, near and one past the limits the variants declare (their
// validate and case functions), built by hand rather than drawn: random
// shapes almost never reach them. Each case at or below a limit must run
// equal to the reference; each one past it must be refused by the
// variant's validate (and taken by the reference's).
//
//   depthwise_conv2d_s8_mve  a tap's gather offset <= 65535 (UINT16_MAX),
//                            whole windows and edge windows, and at most 64 taps
//                            (depthwise_mve_layout.h)
//   softmax_s8_mve           rows of at most 8191 values (softmax.h)
//   batch_matmul_s8_mve      a depth-major LHS of at most 4369 rows: 15 gather
//                            steps within 65535 bytes (batch_matmul_terms.h)
//
// Not here: conv2d_s8_window_mve's pair loop counts rows and blocks in 16
// bits, but takes it only below 2^16 of each (else its general loop): a
// window that tall or wide holds megabytes of input and weights.
#pragma once

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "kernels/batch_matmul/batch_matmul_terms.h"
#include "kernels/depthwise_conv2d/depthwise_mve_layout.h"
#include "kernels/softmax/softmax.h"
#include "tests/variant_sweep/variant_sweep.h"

namespace tinyaot::sweep {

struct LimitCase {
  const char* what;
  bool past;  // one past the limit: the variant must refuse it
};

// A depthwise limit case: one batch, multiplier 1, stride 1, its taps
// dilation_h rows apart; the output as the window and padding give it.
struct DepthwiseLimit {
  LimitCase is;
  int32_t input_h, input_w, depth, filter_h, filter_w, dilation_h, pad_top;
};

// Tables, not switches: GCC 12 sizes a switch's branch table on M55 too
// small for these bodies (the assembler then fails).
constexpr DepthwiseLimit kDepthwiseMveLimits[] = {
    // The last tap 257 rows of 255 bytes down: 65535.
    {{"gather offset 65535, whole windows", false}, 258, 255, 1, 2, 1, 257, 0},
    // (258 * 127 + 1) * 2 = 65534: two channels, two taps a row.
    {{"gather offset 65534, two channels", false}, 259, 127, 2, 2, 2, 258, 0},
    // The first tap in the padding: edge windows gather 65535 bytes on.
    {{"gather offset 65535, edge windows", false}, 2, 255, 1, 2, 1, 257, 257},
    // 256 rows of 256 bytes: 65536.
    {{"gather offset 65536", true}, 257, 256, 1, 2, 1, 256, 0},
    {{"64 taps", false}, 9, 9, 16, 8, 8, 1, 0},
    {{"65 taps", true}, 6, 14, 16, 5, 13, 1, 0},
};

inline void set_depthwise(const DepthwiseLimit& l, Case* c) {
  DepthwiseConv2dParams& p = c->p.depthwise;
  p = DepthwiseConv2dParams{};
  p.batches = 1;
  p.input_h = l.input_h;
  p.input_w = l.input_w;
  p.input_depth = l.depth;
  p.depth_multiplier = 1;
  p.filter_h = l.filter_h;
  p.filter_w = l.filter_w;
  p.stride_h = p.stride_w = 1;
  p.dilation_h = l.dilation_h;
  p.dilation_w = 1;
  p.pad_top = l.pad_top;
  p.output_h = l.input_h + l.pad_top - ((l.filter_h - 1) * l.dilation_h + 1) + 1;
  p.output_w = l.input_w - l.filter_w + 1;
  p.input_offset = 17;
  p.output_offset = -5;
  p.act_min = -128;
  p.act_max = 127;
  c->family = Family::kDepthwiseConv2d;
  size_depthwise(c);
}

// A softmax limit case: one row of `depth` values.
struct SoftmaxLimit {
  LimitCase is;
  int32_t depth;
};

constexpr SoftmaxLimit kSoftmaxMveLimits[] = {
    {{"a row of 8191", false}, kSoftmaxMveMaxDepth},
    {{"a row of 8190", false}, kSoftmaxMveMaxDepth - 1},
    {{"a row of 8192", true}, kSoftmaxMveMaxDepth + 1},
};

inline void set_softmax(const SoftmaxLimit& l, Case* c) {
  SoftmaxCase& s = c->p.softmax;
  s = SoftmaxCase{};
  s.params.rows = 1;
  s.params.depth = l.depth;
  s.rounding = Rounding::kDouble;
  s.multiplier = INT32_C(1) << 30;
  s.shift = 24;  // beta * input scale about 1/8
  c->family = Family::kSoftmax;
  size_softmax(c);
}

// A batch-matmul limit case: LHS [depth][rows] (depth-major), RHS an
// activation [cols][depth].
struct BatchMatmulLimit {
  LimitCase is;
  int32_t rows, depth, cols;
};

constexpr BatchMatmulLimit kBatchMatmulMveLimits[] = {
    // 16 depths a gather, 4369 bytes apart: the last at byte 65535.
    {{"depth-major LHS of 4369 rows", false}, kBatchMatmulMaxGatherStep, 16, 1},
    {{"depth-major LHS of 4368 rows, a depth tail", false}, kBatchMatmulMaxGatherStep - 1, 15, 1},
    {{"depth-major LHS of 4370 rows", true}, kBatchMatmulMaxGatherStep + 1, 16, 1},
};

inline void set_batch_matmul(const BatchMatmulLimit& l, Case* c) {
  BatchMatmulParams& p = c->p.bmm;
  p = BatchMatmulParams{};
  for (int d = 0; d < 3; ++d) p.lhs_batch[d] = p.rhs_batch[d] = 1;
  p.rows = l.rows;
  p.depth = l.depth;
  p.cols = l.cols;
  p.lhs_layout = MatrixLayout::kDepthMajor;
  p.rhs_layout = MatrixLayout::kDepthMinor;
  p.lhs_offset = 3;
  p.rhs_offset = -7;
  p.output_offset = 2;
  p.multiplier = INT32_C(1) << 30;
  p.shift = -9;
  p.act_min = -128;
  p.act_max = 127;
  c->family = Family::kBatchMatmul;
  // Sizes past every buffer where the operands or the reference's
  // scratch do not fit (check_limit_case reports it).
  if (!size_batch_matmul(c, false)) c->input_bytes = UINT32_MAX;
}

// Case `k` (< N) of a table into `c` and `l`; returns N.
template <typename Limit, size_t N>
inline uint32_t limit_from(const Limit (&table)[N], uint32_t k, void (*set)(const Limit&, Case*),
                           Case* c, LimitCase* l) {
  if (k < N) {
    set(table[k], c);
    *l = table[k].is;
  }
  return uint32_t{N};
}

// Case `k` of `variant`'s limit cases into `c` and `l`; returns how many
// the variant has (0: none). By name, so that a stand-in for the variant
// (a copy of its descriptor) meets them too.
inline uint32_t limit_case(const KernelDescriptor& variant, uint32_t k, Case* c, LimitCase* l) {
  const auto is = [&](const KernelDescriptor& d) { return strcmp(variant.name, d.name) == 0; };
  if (is(kernel_depthwise_conv2d_s8_mve))
    return limit_from(kDepthwiseMveLimits, k, set_depthwise, c, l);
  if (is(kernel_softmax_s8_mve)) return limit_from(kSoftmaxMveLimits, k, set_softmax, c, l);
  if (is(kernel_batch_matmul_s8_mve))
    return limit_from(kBatchMatmulMveLimits, k, set_batch_matmul, c, l);
  return 0;
}

// The limit cases' indices in the case streams: apart from the random
// cases', so that a limit case's data replays alone.
constexpr uint32_t kLimitCaseIndex = 0x40000000;

// Checks limit case `k` of `variant`; `shape` receives its description.
inline CaseOutcome check_limit_case(const KernelDescriptor& variant, uint64_t seed, uint32_t k,
                                    Workspace& ws, Text* shape) {
  CaseOutcome out;
  Case c;
  LimitCase l{};
  limit_case(variant, k, &c, &l);
  shape->clear();
  shape->text(" ").text(l.what).text(":");
  describe_shape(c, shape);
  if (!fits_workspace(c)) {
    out.passed = false;
    out.problem = "the limit case passes the sweep's buffers";
    return out;
  }
  // Placed as case 1 is, off every alignment; a row the reference fails
  // (SOFTMAX) redrawn.
  Random r(case_seed(seed, variant.name, kLimitCaseIndex + k));
  Fill fill = Fill::kRedraw;
  for (uint32_t attempt = 0; attempt < 8 && fill == Fill::kRedraw; ++attempt) {
    Case drawn = c;
    fill = fill_case(variant, 1, r, ws, kMaxScratchBytes, &drawn, &out.detail);
    if (fill != Fill::kRedraw) c = drawn;
  }
  describe_placement(c.at, shape);
  if (l.past) {
    out.passed = fill == Fill::kRefused;
    if (!out.passed) out.problem = "the variant takes a case past its declared limit";
    return out;
  }
  if (fill != Fill::kReady) {
    out.passed = false;
    out.problem = fill == Fill::kRefused ? "the variant refuses a case within its declared limit"
                                         : "the limit case could not be filled";
    return out;
  }
  compare_with_reference(variant, c, ws, &out);
  return out;
}

// Every limit case of `variant`; the failures printed in full.
inline VariantTally sweep_limits(const KernelDescriptor& variant, uint64_t seed, Workspace& ws,
                                 PrintFn print) {
  VariantTally tally;
  Case unused;
  LimitCase l{};
  const uint32_t count = limit_case(variant, 0, &unused, &l);
  Text shape;
  for (uint32_t k = 0; k < count; ++k) {
    CaseOutcome outcome = check_limit_case(variant, seed, k, ws, &shape);
    ++tally.cases;
    tally.runs += outcome.runs;
    if (outcome.passed) {
      ++tally.passed;
      continue;
    }
    ++tally.failed;
    Text line;
    line.text("FAIL ").text(variant.name).text(" limit case ").num(k).text(": ");
    line.text(outcome.problem).text(outcome.detail.c_str());
    print(line.c_str());
    Text params;
    params.text("  shape:").text(shape.c_str());
    print(params.c_str());
  }
  return tally;
}

}  // namespace tinyaot::sweep
