// BATCH_MATMUL through its descriptor: validation, hand-derived products,
// layouts and broadcasting, the lowering's layout decisions, and
// scratch-bound property tests.
#include "kernels/batch_matmul/batch_matmul.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "kernels/batch_matmul/batch_matmul_terms.h"
#include "kernels/common/lower_helpers.h"
#include "kernels/lowerings.h"
#include "support/validate_support.h"

namespace tinyaot {
namespace {

const KernelDescriptor& kernel() { return kernel_batch_matmul_s8_ref; }

BatchMatmulParams make_params(int32_t rows, int32_t depth, int32_t cols) {
  BatchMatmulParams p{};
  for (int d = 0; d < 3; ++d) p.lhs_batch[d] = p.rhs_batch[d] = 1;
  p.rows = rows;
  p.depth = depth;
  p.cols = cols;
  // 2^30 with shift 1 rescales by exactly 1.0.
  p.multiplier = 1 << 30;
  p.shift = 1;
  p.act_min = -128;
  p.act_max = 127;
  return p;
}

int64_t product(const int32_t* dims) { return int64_t{dims[0]} * dims[1] * dims[2]; }

struct Sizes {
  uint32_t in[2];
  uint32_t out[1];
};

Sizes sizes_of(const BatchMatmulParams& p) {
  int32_t out_batch[3];
  for (int d = 0; d < 3; ++d) out_batch[d] = std::max(p.lhs_batch[d], p.rhs_batch[d]);
  return {{uint32_t(product(p.lhs_batch) * p.rows * p.depth),
           uint32_t(product(p.rhs_batch) * p.depth * p.cols)},
          {uint32_t(product(out_batch) * p.rows * p.cols)}};
}

Status validate(const BatchMatmulParams& p) {
  const Sizes s = sizes_of(p);
  return test::validate_sizes(kernel(), &p, s.in, 2, s.out, 1);
}

Status run(const BatchMatmulParams& p, const std::vector<int8_t>& lhs,
           const std::vector<int8_t>& rhs, std::vector<int8_t>* output) {
  const uint32_t scratch_bytes = kernel().scratch_bytes(&p);
  std::vector<int8_t> scratch(scratch_bytes);
  output->assign(sizes_of(p).out[0], 0);
  const Operand inputs[] = {{const_cast<int8_t*>(lhs.data()), uint32_t(lhs.size())},
                            {const_cast<int8_t*>(rhs.data()), uint32_t(rhs.size())}};
  const Operand outputs[] = {{output->data(), uint32_t(output->size())}};
  const Operand scratch_operand = {scratch_bytes ? scratch.data() : nullptr, scratch_bytes};
  KernelArgs args{&p, inputs, 2, outputs, 1, scratch_operand, Rounding::kDouble};
  return kernel().run(args);
}

TEST(BatchMatmulKernel, ValidateAcceptsBroadcastBatches) {
  BatchMatmulParams p = make_params(11, 29, 17);
  p.lhs_batch[2] = 3;
  EXPECT_EQ(validate(p), Status::kOk);
  p.lhs_batch[0] = 1;
  p.rhs_batch[0] = 2;
  p.rhs_batch[2] = 3;
  EXPECT_EQ(validate(p), Status::kOk);
}

TEST(BatchMatmulKernel, ValidateRejectsInconsistentSizes) {
  BatchMatmulParams p = make_params(3, 4, 5);
  p.lhs_batch[2] = 2;
  const Sizes s = sizes_of(p);
  for (int operand = 0; operand < 3; ++operand) {
    Sizes bad = s;
    uint32_t* slot = operand < 2 ? &bad.in[operand] : &bad.out[0];
    *slot -= 1;
    EXPECT_EQ(test::validate_sizes(kernel(), &p, bad.in, 2, bad.out, 1), Status::kBadParams)
        << operand;
  }
  EXPECT_EQ(test::validate_sizes(kernel(), &p, s.in, 1, s.out, 1), Status::kBadParams);
  EXPECT_EQ(test::validate_sizes(kernel(), &p, s.in, 2, s.out, 0), Status::kBadParams);
}

TEST(BatchMatmulKernel, ValidateRejectsBatchesThatDoNotBroadcast) {
  BatchMatmulParams p = make_params(3, 4, 5);
  p.lhs_batch[1] = 2;
  p.rhs_batch[1] = 3;
  EXPECT_EQ(validate(p), Status::kBadParams);
}

TEST(BatchMatmulKernel, ValidateRejectsBadDimensions) {
  const BatchMatmulParams good = make_params(3, 4, 5);
  for (int32_t value : {0, -1, INT32_MIN}) {
    for (int field = 0; field < 9; ++field) {
      BatchMatmulParams p = good;
      int32_t* slots[] = {&p.rows,         &p.depth,        &p.cols,
                          &p.lhs_batch[0], &p.lhs_batch[1], &p.lhs_batch[2],
                          &p.rhs_batch[0], &p.rhs_batch[1], &p.rhs_batch[2]};
      *slots[field] = value;
      EXPECT_EQ(validate(p), Status::kBadParams) << field << " = " << value;
    }
  }
}

TEST(BatchMatmulKernel, ValidateRejectsOverflowingDimensions) {
  // rows * cols = 2^32 wraps to 0 in 32 bits: must not pass as an empty output.
  BatchMatmulParams p = make_params(65536, 1, 65536);
  const uint32_t in[] = {65536, 65536};
  const uint32_t out[] = {0};
  EXPECT_EQ(test::validate_sizes(kernel(), &p, in, 2, out, 1), Status::kBadParams);
  // Batches that overflow only when multiplied together.
  p = make_params(1, 1, 1);
  p.lhs_batch[0] = p.lhs_batch[1] = p.lhs_batch[2] = 2048;
  const uint32_t in2[] = {0, 1};
  EXPECT_EQ(test::validate_sizes(kernel(), &p, in2, 2, in2, 1), Status::kBadParams);
}

TEST(BatchMatmulKernel, ValidateRejectsBadQuantizationAndLayout) {
  const BatchMatmulParams good = make_params(2, 3, 4);
  BatchMatmulParams p = good;
  p.shift = 31;
  EXPECT_EQ(validate(p), Status::kBadParams);
  p = good;
  p.shift = -32;
  EXPECT_EQ(validate(p), Status::kBadParams);
  p = good;
  p.multiplier = -1;
  EXPECT_EQ(validate(p), Status::kBadParams);
  p = good;
  p.lhs_offset = 129;
  EXPECT_EQ(validate(p), Status::kBadParams);
  p = good;
  p.rhs_offset = -128;
  EXPECT_EQ(validate(p), Status::kBadParams);
  p = good;
  p.output_offset = 128;
  EXPECT_EQ(validate(p), Status::kBadParams);
  p = good;
  p.act_min = 1;
  p.act_max = 0;
  EXPECT_EQ(validate(p), Status::kBadParams);
  p = good;
  p.rhs_layout = static_cast<MatrixLayout>(2);
  EXPECT_EQ(validate(p), Status::kBadParams);
  p = good;
  p.reserved[1] = 1;
  EXPECT_EQ(validate(p), Status::kBadParams);
}

TEST(BatchMatmulKernel, ScratchHoldsOneMatrixPerDepthMajorOperand) {
  BatchMatmulParams p = make_params(11, 29, 17);
  p.lhs_batch[2] = 3;  // batches do not multiply the scratch: one matrix at a time
  EXPECT_EQ(kernel().scratch_bytes(&p), 0u);
  p.lhs_layout = MatrixLayout::kDepthMajor;
  EXPECT_EQ(kernel().scratch_bytes(&p), 11u * 29);
  p.rhs_layout = MatrixLayout::kDepthMajor;
  EXPECT_EQ(kernel().scratch_bytes(&p), 11u * 29 + 29 * 17);
  p.lhs_layout = MatrixLayout::kDepthMinor;
  EXPECT_EQ(batch_matmul_ref_scratch_bytes(p, Activations::kInt8), 29u * 17);
}

TEST(BatchMatmulKernel, RejectsTooSmallScratch) {
  BatchMatmulParams p = make_params(1, 2, 1);
  p.rhs_layout = MatrixLayout::kDepthMajor;
  const int8_t lhs[] = {1, 2}, rhs[] = {3, 4};
  int8_t out = 0, scratch[2];
  const Operand inputs[] = {{const_cast<int8_t*>(lhs), 2}, {const_cast<int8_t*>(rhs), 2}};
  const Operand outputs[] = {{&out, 1}};
  KernelArgs args{&p, inputs, 2, outputs, 1, {scratch, 1}, Rounding::kDouble};
  EXPECT_EQ(kernel().run(args), Status::kBadArgument);
  args.scratch = {scratch, 2};
  ASSERT_EQ(kernel().run(args), Status::kOk);
  EXPECT_EQ(out, 1 * 3 + 2 * 4);
}

TEST(BatchMatmulKernel, HandCheckedProductWithZeroPoints) {
  // LHS [[1,2,3],[4,5,6]] with zero point -1 (offset +1) -> [[2,3,4],[5,6,7]].
  // RHS columns (depth-minor, [cols, depth]) c0 = [2,1,0], c1 = [3,2,1] with
  // zero point 1 (offset -1) -> c0 = [1,0,-1], c1 = [2,1,0].
  // out00 = 2-4 = -2, out01 = 4+3 = 7, out10 = 5-7 = -2, out11 = 10+6 = 16;
  // rescale 1.0, output zero point 3.
  BatchMatmulParams p = make_params(2, 3, 2);
  p.lhs_offset = 1;
  p.rhs_offset = -1;
  p.output_offset = 3;
  std::vector<int8_t> out;
  ASSERT_EQ(run(p, {1, 2, 3, 4, 5, 6}, {2, 1, 0, 3, 2, 1}, &out), Status::kOk);
  EXPECT_EQ(out, (std::vector<int8_t>{1, 10, 1, 19}));

  // The same operands held depth-major: LHS as [depth, rows] and RHS as
  // [depth, cols] (TFLite's adj_x = true / adj_y = false layouts).
  p.lhs_layout = MatrixLayout::kDepthMajor;
  p.rhs_layout = MatrixLayout::kDepthMajor;
  ASSERT_EQ(run(p, {1, 4, 2, 5, 3, 6}, {2, 3, 1, 2, 0, 1}, &out), Status::kOk);
  EXPECT_EQ(out, (std::vector<int8_t>{1, 10, 1, 19}));
}

TEST(BatchMatmulKernel, BroadcastReusesTheSingleMatrix) {
  // Two 1x2 LHS matrices [1,2] and [3,-1] against one RHS column [5,7]:
  // 1*5 + 2*7 = 19 and 3*5 - 7 = 8. Rescale 0.5 (shift 0): 9.5 rounds
  // up to 10; 8 -> 4. Clamp max 9: 10 -> 9.
  BatchMatmulParams p = make_params(1, 2, 1);
  p.lhs_batch[2] = 2;
  p.rhs_layout = MatrixLayout::kDepthMajor;  // a single column reads the same either way
  p.shift = 0;
  std::vector<int8_t> out;
  ASSERT_EQ(run(p, {1, 2, 3, -1}, {5, 7}, &out), Status::kOk);
  EXPECT_EQ(out, (std::vector<int8_t>{10, 4}));
  p.act_max = 9;
  ASSERT_EQ(run(p, {1, 2, 3, -1}, {5, 7}, &out), Status::kOk);
  EXPECT_EQ(out, (std::vector<int8_t>{9, 4}));
}

// Straightforward logical indexing, independent of the kernel's transposes.
std::vector<int8_t> oracle(const BatchMatmulParams& p, const std::vector<int8_t>& lhs,
                           const std::vector<int8_t>& rhs, Rounding rounding) {
  std::vector<int8_t> out;
  const int lhs_matrix = p.rows * p.depth, rhs_matrix = p.depth * p.cols;
  int32_t ob[3];
  for (int d = 0; d < 3; ++d) ob[d] = std::max(p.lhs_batch[d], p.rhs_batch[d]);
  for (int b0 = 0; b0 < ob[0]; ++b0)
    for (int b1 = 0; b1 < ob[1]; ++b1)
      for (int b2 = 0; b2 < ob[2]; ++b2) {
        const int lb =
            ((b0 % p.lhs_batch[0]) * p.lhs_batch[1] + b1 % p.lhs_batch[1]) * p.lhs_batch[2] +
            b2 % p.lhs_batch[2];
        const int rb =
            ((b0 % p.rhs_batch[0]) * p.rhs_batch[1] + b1 % p.rhs_batch[1]) * p.rhs_batch[2] +
            b2 % p.rhs_batch[2];
        for (int i = 0; i < p.rows; ++i)
          for (int j = 0; j < p.cols; ++j) {
            int32_t acc = 0;
            for (int k = 0; k < p.depth; ++k) {
              const int li =
                  p.lhs_layout == MatrixLayout::kDepthMinor ? i * p.depth + k : k * p.rows + i;
              const int ri =
                  p.rhs_layout == MatrixLayout::kDepthMinor ? j * p.depth + k : k * p.cols + j;
              acc += (lhs[lb * lhs_matrix + li] + p.lhs_offset) *
                     (rhs[rb * rhs_matrix + ri] + p.rhs_offset);
            }
            const int32_t v = requantize(acc, p.multiplier, p.shift, rounding) + p.output_offset;
            out.push_back(static_cast<int8_t>(clamp_i32(v, p.act_min, p.act_max)));
          }
      }
  return out;
}

TEST(BatchMatmulKernel, ScratchStaysWithinDeclaredSizeOnRandomShapes) {
  std::mt19937 rng(5150);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  for (int trial = 0; trial < 80; ++trial) {
    BatchMatmulParams p = make_params(pick(1, 9), pick(1, 13), pick(1, 9));
    for (int d = 0; d < 3; ++d) {
      const int n = pick(1, 3);
      // Each batch dimension: equal, or broadcast from one side.
      switch (pick(0, 2)) {
        case 0:
          p.lhs_batch[d] = p.rhs_batch[d] = n;
          break;
        case 1:
          p.lhs_batch[d] = n;
          break;
        default:
          p.rhs_batch[d] = n;
          break;
      }
    }
    p.lhs_layout = static_cast<MatrixLayout>(pick(0, 1));
    p.rhs_layout = static_cast<MatrixLayout>(pick(0, 1));
    p.lhs_offset = pick(-127, 128);
    p.rhs_offset = pick(-127, 128);
    p.output_offset = pick(-128, 127);
    p.multiplier = pick(1 << 30, INT32_MAX);
    p.shift = pick(-16, -6);
    p.act_min = pick(-128, 0);
    p.act_max = pick(0, 127);
    ASSERT_EQ(validate(p), Status::kOk);
    const Sizes s = sizes_of(p);
    std::vector<int8_t> lhs(s.in[0]), rhs(s.in[1]);
    for (auto& v : lhs) v = static_cast<int8_t>(pick(-128, 127));
    for (auto& v : rhs) v = static_cast<int8_t>(pick(-128, 127));
    const Rounding rounding = trial % 2 ? Rounding::kSingle : Rounding::kDouble;
    const Operand inputs[] = {{lhs.data(), s.in[0]}, {rhs.data(), s.in[1]}};

    const uint32_t declared = kernel().scratch_bytes(&p);
    const uint32_t guard = 256;
    std::vector<uint8_t> tight(declared + guard, 0xA5);
    std::vector<int8_t> out_tight(s.out[0]);
    const Operand out_a[] = {{out_tight.data(), s.out[0]}};
    KernelArgs args{&p, inputs, 2, out_a, 1, {tight.data(), declared}, rounding};
    ASSERT_EQ(kernel().run(args), Status::kOk);
    for (uint32_t i = declared; i < declared + guard; ++i)
      ASSERT_EQ(tight[i], 0xA5) << "trial " << trial << " wrote scratch byte " << i;

    std::vector<uint8_t> generous(declared + 4096, 0x5A);
    std::vector<int8_t> out_generous(s.out[0]);
    const Operand out_b[] = {{out_generous.data(), s.out[0]}};
    args.outputs = out_b;
    args.scratch = {generous.data(), uint32_t(generous.size())};
    ASSERT_EQ(kernel().run(args), Status::kOk);
    ASSERT_EQ(out_tight, out_generous) << "trial " << trial;
    ASSERT_EQ(out_tight, oracle(p, lhs, rhs, rounding)) << "trial " << trial;
  }
}

// ---- lowering: the compiler decides who transposes ----

Tensor tensor(std::vector<int32_t> shape, float scale, int64_t zero_point) {
  Tensor t;
  t.shape = std::move(shape);
  t.quant.scales = {scale};
  t.quant.zero_points = {zero_point};
  return t;
}

// LHS [3, a, b] (model input), RHS [c, d] constant or not, output [3, 2, 4].
Graph matmul_graph(bool adj_x, bool adj_y, bool constant_rhs) {
  Graph g;
  Tensor rhs = tensor(adj_y ? std::vector<int32_t>{4, 5} : std::vector<int32_t>{5, 4}, 0.01f, -3);
  if (constant_rhs) {
    std::vector<uint8_t> data(20);
    for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<uint8_t>(i);
    rhs.data = data;
  }
  g.tensors = {
      tensor(adj_x ? std::vector<int32_t>{3, 5, 2} : std::vector<int32_t>{3, 2, 5}, 0.02f, 4), rhs,
      tensor({3, 2, 4}, 0.1f, -1)};
  Operation op;
  op.type = OpType::kBatchMatMul;
  op.inputs = {0, 1};
  op.outputs = {2};
  op.attrs.adj_x = adj_x;
  op.attrs.adj_y = adj_y;
  g.operations = {op};
  return g;
}

BatchMatmulParams lowered_params(const LoweredOp& lowered) {
  BatchMatmulParams p;
  EXPECT_EQ(lowered.params.size(), sizeof(p));
  std::memcpy(&p, lowered.params.data(), sizeof(p));
  return p;
}

// ---------------------------------------------------------------- int16

// int16 operands: the product in int64, rescaled by TFLite's int64
// multiply (a 16-bit multiplier, one rounding shift), clamped to int16.
Status run_s16(const BatchMatmulParams& p, const std::vector<int16_t>& lhs,
               const std::vector<int16_t>& rhs, std::vector<int16_t>* output) {
  const uint32_t scratch_bytes = kernel_batch_matmul_s16_ref.scratch_bytes(&p);
  std::vector<int16_t> scratch(scratch_bytes / 2);
  output->assign(sizes_of(p).out[0], 0);
  const Operand inputs[] = {{const_cast<int16_t*>(lhs.data()), uint32_t(lhs.size() * 2)},
                            {const_cast<int16_t*>(rhs.data()), uint32_t(rhs.size() * 2)}};
  const Operand outputs[] = {{output->data(), uint32_t(output->size() * 2)}};
  const Operand scratch_operand = {scratch_bytes ? scratch.data() : nullptr, scratch_bytes};
  KernelArgs args{&p, inputs, 2, outputs, 1, scratch_operand, Rounding::kSingle};
  return kernel_batch_matmul_s16_ref.run(args);
}

BatchMatmulParams make_params_s16(int32_t rows, int32_t depth, int32_t cols) {
  BatchMatmulParams p = make_params(rows, depth, cols);
  p.act_min = -32768;
  p.act_max = 32767;
  return p;
}

TEST(BatchMatmulS16, SumsInInt64AndRescalesAsTfliteInt64Multiply) {
  // One row [30000, 30000, -7] times columns [30000, 30000, 1] and
  // [1, -1, 2]: 1.8e9 - 7 (past int32) and -14. Multiplier 2^30, shift
  // -16: x * 2^14 >> 31 rounds x / 2^17 half up.
  BatchMatmulParams p = make_params_s16(1, 3, 2);
  p.rhs_layout = MatrixLayout::kDepthMinor;
  p.shift = -16;
  std::vector<int16_t> out;
  ASSERT_EQ(run_s16(p, {30000, 30000, -7}, {30000, 30000, 1, 1, -1, 2}, &out), Status::kOk);
  const int64_t big = int64_t{1800000000} - 7;
  EXPECT_EQ(out, (std::vector<int16_t>{int16_t((big + (1 << 16)) >> 17), 0}));
  // Clamped to int16 at shift 0 (x / 2), and the range clamps.
  p.shift = 0;
  ASSERT_EQ(run_s16(p, {30000, 30000, -7}, {30000, 30000, 1, 1, -1, 2}, &out), Status::kOk);
  EXPECT_EQ(out, (std::vector<int16_t>{32767, -7}));
  p.act_min = -5;
  ASSERT_EQ(run_s16(p, {30000, 30000, -7}, {30000, 30000, 1, 1, -1, 2}, &out), Status::kOk);
  EXPECT_EQ(out[1], -5);
}

TEST(BatchMatmulS16, DepthMajorOperandsTransposeWholeElements) {
  // LHS [depth 2, rows 2] and RHS [depth 2, cols 1], both depth-major:
  // rows (100, -3) and (200, 4), column (-30, 50).
  BatchMatmulParams p = make_params_s16(2, 2, 1);
  p.lhs_layout = MatrixLayout::kDepthMajor;
  p.rhs_layout = MatrixLayout::kDepthMajor;
  EXPECT_EQ(kernel_batch_matmul_s16_ref.scratch_bytes(&p), (4u + 2u) * 2);
  std::vector<int16_t> out;
  // Shift 0 with multiplier 2^30 halves.
  p.shift = 0;
  ASSERT_EQ(run_s16(p, {100, 200, -3, 4}, {-30, 50}, &out), Status::kOk);
  EXPECT_EQ(out, (std::vector<int16_t>{(-3000 - 150) / 2, (-6000 + 200) / 2}));
}

TEST(BatchMatmulS16, ValidateRefusesOffsetsShiftsAndDepthsItCannotRun) {
  const BatchMatmulParams good = make_params_s16(2, 3, 4);
  const Sizes s = sizes_of(good);
  const uint32_t in[2] = {s.in[0] * 2, s.in[1] * 2};
  const uint32_t out[1] = {s.out[0] * 2};
  auto status = [&](const BatchMatmulParams& p) {
    return test::validate_sizes(kernel_batch_matmul_s16_ref, &p, in, 2, out, 1);
  };
  EXPECT_EQ(status(good), Status::kOk);
  EXPECT_EQ(test::validate_sizes(kernel_batch_matmul_s16_ref, &good, s.in, 2, s.out, 1),
            Status::kBadParams)
      << "int8-sized operands";
  for (int field = 0; field < 3; ++field) {
    BatchMatmulParams p = good;
    (field == 0 ? p.lhs_offset : field == 1 ? p.rhs_offset : p.output_offset) = 1;
    EXPECT_EQ(status(p), Status::kBadParams) << field;
  }
  BatchMatmulParams p = good;
  p.shift = 8;
  EXPECT_EQ(status(p), Status::kBadParams);
  p = good;
  p.act_max = 32768;
  EXPECT_EQ(status(p), Status::kBadParams);
  p = good;
  p.depth = kBatchMatmulS16MaxDepth + 1;
  p.rows = p.cols = 1;
  const uint32_t deep[2] = {uint32_t(p.depth) * 2, uint32_t(p.depth) * 2};
  const uint32_t one[1] = {2};
  EXPECT_EQ(test::validate_sizes(kernel_batch_matmul_s16_ref, &p, deep, 2, one, 1),
            Status::kBadParams);
}

TEST(BatchMatmulLowering, ConstantRhsIsTransposedAtCompileTime) {
  const Graph g = matmul_graph(false, false, true);
  const LoweredOp lowered = lower_batch_matmul(g, g.operations[0], Target{});
  const BatchMatmulParams p = lowered_params(lowered);
  EXPECT_EQ(p.rhs_layout, MatrixLayout::kDepthMinor);
  EXPECT_EQ(p.lhs_layout, MatrixLayout::kDepthMinor);
  EXPECT_EQ(lowered.scratch_bytes, 0u);
  ASSERT_EQ(lowered.inputs.size(), 2u);
  EXPECT_EQ(lowered.inputs[0].tensor, 0);
  // RHS [depth 5, cols 4] with value k*4+j becomes [cols 4, depth 5].
  ASSERT_EQ(lowered.inputs[1].constant.size(), 20u);
  EXPECT_EQ(lowered.inputs[1].constant[0], 0);
  EXPECT_EQ(lowered.inputs[1].constant[1], 4);    // j=0, k=1
  EXPECT_EQ(lowered.inputs[1].constant[5], 1);    // j=1, k=0
  EXPECT_EQ(lowered.inputs[1].constant[19], 19);  // j=3, k=4
  EXPECT_EQ(p.rows, 2);
  EXPECT_EQ(p.depth, 5);
  EXPECT_EQ(p.cols, 4);
  EXPECT_EQ(p.lhs_batch[2], 3);
  EXPECT_EQ(p.rhs_batch[2], 1);
  EXPECT_EQ(p.lhs_offset, -4);
  EXPECT_EQ(p.rhs_offset, 3);
  EXPECT_EQ(p.output_offset, -1);
}

TEST(BatchMatmulLowering, DynamicDepthMajorOperandsGetScratch) {
  // adj_x: LHS held [depth, rows] -> one 2x5 matrix of scratch; RHS not
  // adjoint and dynamic: [depth, cols] -> one 5x4 matrix.
  Graph g = matmul_graph(true, false, false);
  LoweredOp lowered = lower_batch_matmul(g, g.operations[0], Target{});
  BatchMatmulParams p = lowered_params(lowered);
  EXPECT_EQ(p.lhs_layout, MatrixLayout::kDepthMajor);
  EXPECT_EQ(p.rhs_layout, MatrixLayout::kDepthMajor);
  EXPECT_EQ(lowered.scratch_bytes, 2u * 5 + 5 * 4);
  EXPECT_EQ(lowered.inputs[1].tensor, 1);
  // adj_y: RHS already [cols, depth]; no scratch at all.
  g = matmul_graph(false, true, false);
  lowered = lower_batch_matmul(g, g.operations[0], Target{});
  p = lowered_params(lowered);
  EXPECT_EQ(p.rhs_layout, MatrixLayout::kDepthMinor);
  EXPECT_EQ(lowered.scratch_bytes, 0u);
}

TEST(BatchMatmulLowering, RejectsMismatchedDepthAndOutputShape) {
  Graph g = matmul_graph(false, false, false);
  g.tensors[1].shape = {6, 4};
  EXPECT_THROW(lower_batch_matmul(g, g.operations[0], Target{}), CompileError);
  g = matmul_graph(false, false, false);
  g.tensors[2].shape = {3, 2, 5};
  EXPECT_THROW(lower_batch_matmul(g, g.operations[0], Target{}), CompileError);
}

// ---- the MVE variant: the compiler's choice and the terms it stores ----

Target mve_target() {
  Target t;
  t.core = Core::kCortexM55;
  t.isa = IsaClass::kMve;
  return t;
}

TEST(BatchMatmulMve, ChosenOnMveCoresWithTheConstantRhsColumnTerms) {
  const Graph g = matmul_graph(false, false, true);
  const LoweredOp lowered = lower_batch_matmul(g, g.operations[0], mve_target());
  EXPECT_EQ(lowered.kernel, KernelId::batch_matmul_s8_mve);
  EXPECT_EQ(lowered.scratch_bytes, 0u);
  ASSERT_EQ(lowered.inputs.size(), 3u);
  // RHS [depth 5, cols 4] holds k*4 + j, zero point -3 (offset 3); LHS zero
  // point 4 (offset -4): column j's term is -4 * sum_k (k*4 + j + 3) =
  // -4 * (40 + 5j + 15).
  ASSERT_EQ(lowered.inputs[2].constant.size(), 4 * sizeof(int32_t));
  for (int32_t j = 0; j < 4; ++j) {
    int32_t term;
    std::memcpy(&term, lowered.inputs[2].constant.data() + j * sizeof(int32_t), sizeof(term));
    EXPECT_EQ(term, -4 * (55 + 5 * j)) << j;
  }
  // On a core without MVE: the reference, two operands.
  EXPECT_EQ(lower_batch_matmul(g, g.operations[0], Target{}).kernel, KernelId::batch_matmul_s8_ref);
}

TEST(BatchMatmulMve, ReadsDynamicDepthMajorOperandsWithoutScratch) {
  const Graph g = matmul_graph(true, false, false);  // both operands depth-major, dynamic
  const LoweredOp lowered = lower_batch_matmul(g, g.operations[0], mve_target());
  EXPECT_EQ(lowered.kernel, KernelId::batch_matmul_s8_mve);
  EXPECT_EQ(lowered.scratch_bytes, 0u);
  EXPECT_EQ(lowered.inputs.size(), 2u);
}

TEST(BatchMatmulMve, ScaleRatioOfOneHalfOrMoreGoesToTheReference) {
  Graph g = matmul_graph(false, true, false);
  g.tensors[2].quant.scales = {0.0001f};  // 0.02 * 0.01 / 0.0001 = 2: a left shift
  const LoweredOp lowered = lower_batch_matmul(g, g.operations[0], mve_target());
  EXPECT_EQ(lowered.kernel, KernelId::batch_matmul_s8_ref);
}

// The variant through its descriptor, on the host's portable path, against
// the oracle: random shapes, layouts, broadcasts, offsets, with and without
// the column terms of a constant RHS (computed here from the definition).
TEST(BatchMatmulMve, MatchesTheOracleOnRandomShapes) {
  const KernelDescriptor& mve = kernel_batch_matmul_s8_mve;
  std::mt19937 rng(2207);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  for (int trial = 0; trial < 120; ++trial) {
    BatchMatmulParams p = make_params(pick(1, 21), pick(1, 40), pick(1, 21));
    p.lhs_batch[2] = pick(1, 2);
    p.rhs_batch[2] = p.lhs_batch[2] == 2 && pick(0, 1) ? 2 : 1;
    const bool terms_given = pick(0, 1) == 1;
    p.lhs_layout = static_cast<MatrixLayout>(pick(0, 1));
    p.rhs_layout = terms_given ? MatrixLayout::kDepthMinor : static_cast<MatrixLayout>(pick(0, 1));
    p.lhs_offset = pick(-127, 128);
    p.rhs_offset = pick(0, 3) == 0 ? 0 : pick(-127, 128);
    p.output_offset = pick(-128, 127);
    p.multiplier = pick(1 << 30, INT32_MAX);
    p.shift = pick(-14, -1);
    const Sizes s = sizes_of(p);
    std::vector<int8_t> lhs(s.in[0]), rhs(s.in[1]), out(s.out[0]);
    for (auto& v : lhs) v = static_cast<int8_t>(pick(-128, 127));
    for (auto& v : rhs) v = static_cast<int8_t>(pick(-128, 127));
    std::vector<int32_t> terms;
    if (terms_given) {
      for (uint32_t c = 0; c < s.in[1] / uint32_t(p.depth); ++c) {
        int32_t sum = 0;
        for (int32_t k = 0; k < p.depth; ++k) sum += rhs[c * p.depth + k] + p.rhs_offset;
        terms.push_back(sum * p.lhs_offset);
      }
    }
    const uint32_t terms_bytes = uint32_t(terms.size() * sizeof(int32_t));
    const uint32_t num_inputs = terms_given ? 3 : 2;
    const OperandView views[] = {
        {nullptr, s.in[0]}, {rhs.data(), s.in[1]}, {terms.data(), terms_bytes}};
    const OperandView out_view[] = {{nullptr, s.out[0]}};
    ASSERT_EQ(mve.validate(&p, views, num_inputs, out_view, 1), Status::kOk) << trial;
    const Operand inputs[] = {
        {lhs.data(), s.in[0]}, {rhs.data(), s.in[1]}, {terms.data(), terms_bytes}};
    const Operand outputs[] = {{out.data(), s.out[0]}};
    const Rounding rounding = trial % 2 ? Rounding::kSingle : Rounding::kDouble;
    KernelArgs args{&p, inputs, num_inputs, outputs, 1, {nullptr, 0}, rounding};
    ASSERT_EQ(mve.run(args), Status::kOk);
    ASSERT_EQ(out, oracle(p, lhs, rhs, rounding)) << "trial " << trial;
    if (terms_given) {  // a stale term is refused at load
      terms.back() += 1;
      EXPECT_EQ(mve.validate(&p, views, num_inputs, out_view, 1), Status::kBadParams);
    }
  }
}

TEST(BatchMatmulMve, ValidateRefusesWhatItCannotRun) {
  const KernelDescriptor& mve = kernel_batch_matmul_s8_mve;
  BatchMatmulParams p = make_params(3, 4, 5);
  p.shift = -3;
  const Sizes s = sizes_of(p);
  EXPECT_EQ(test::validate_sizes(mve, &p, s.in, 2, s.out, 1), Status::kOk);
  p.shift = 0;  // not a right shift: the reference's case
  EXPECT_EQ(test::validate_sizes(mve, &p, s.in, 2, s.out, 1), Status::kBadParams);
  p.shift = -3;
  p.lhs_layout = MatrixLayout::kDepthMajor;
  p.rows = kBatchMatmulMaxGatherStep + 1;  // beyond the gathers' offsets
  p.depth = 1;
  p.cols = 1;
  const Sizes wide = sizes_of(p);
  EXPECT_EQ(test::validate_sizes(mve, &p, wide.in, 2, wide.out, 1), Status::kBadParams);
  p.lhs_layout = MatrixLayout::kDepthMinor;
  EXPECT_EQ(test::validate_sizes(mve, &p, wide.in, 2, wide.out, 1), Status::kOk);
}

}  // namespace
}  // namespace tinyaot
