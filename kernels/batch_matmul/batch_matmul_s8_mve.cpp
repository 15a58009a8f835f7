// BATCH_MATMUL for MVE cores: raw int8 products, no scratch.
//
// The offsets' share is split off (batch_matmul_terms.h): per output, the
// raw products sum_k l_k * r_k by VMLADAVA.S8 (16 MACs an instruction),
// plus the LHS row's term rhs_offset * sum_k l_k (one VADDVA.S8 per block
// of the same loop), plus the RHS column's term
// (stored by the compiler for a constant RHS, else summed once per matrix
// and group of four columns). Four output columns per LHS-row load: per 16
// values one LHS vector, four RHS vectors, four VMLADAVA (in assembly,
// batch_matmul_mve_sums.S, where the four are contiguous); the last depth
// % 16 in one pass predicated by VCTP (masked lanes read nothing and give
// 0). A depth-major operand (TFLite's adj_x, or an RHS activation without
// adj_y) is read in place: two VLDRB.S16 gathers (even and odd k, 16-bit
// offsets) narrowed into one vector by VMOVNB/VMOVNT, where the reference
// transposes it into scratch. The four sums become one vector and go
// through the vector output step (output_step_mve.h), a short last group
// of columns stored under a VCTP32 predicate.
#include "kernels/batch_matmul/batch_matmul.h"
#include "kernels/batch_matmul/batch_matmul_mve_sums.h"
#include "kernels/batch_matmul/batch_matmul_terms.h"
#include "kernels/common/output_step.h"
#include "kernels/common/output_step_mve.h"
#include "kernels/common/quant.h"
#include "kernels/common/validate.h"
#include "tinyaot/load_time.h"

namespace tinyaot {
namespace {

// The family's checks, the variant's case, and the column terms: present
// only with a constant RHS held depth-minor, and equal to the terms of
// its values (checked here once, so the kernel trusts them).
TINYAOT_LOAD_TIME Status validate(const void* raw, const OperandView* inputs, uint32_t num_inputs,
                                  const OperandView* outputs, uint32_t num_outputs) {
  if ((num_inputs != 2 && num_inputs != 3) || num_outputs != 1) return Status::kBadParams;
  const auto& p = *static_cast<const BatchMatmulParams*>(raw);
  const Status status = validate_batch_matmul_operands(p, Activations::kInt8, inputs, outputs);
  if (status != Status::kOk) return status;
  if (!batch_matmul_mve_applies(p)) return Status::kBadParams;
  if (num_inputs == 2) return Status::kOk;
  const OperandView& terms = inputs[2];
  const int64_t count = batch_matmul_column_term_count(p);
  if (terms.constant == nullptr || inputs[1].constant == nullptr ||
      p.rhs_layout != MatrixLayout::kDepthMinor || !is_aligned_for<int32_t>(terms.constant) ||
      terms.bytes != static_cast<uint64_t>(count) * sizeof(int32_t))
    return Status::kBadParams;
  const auto* stored = static_cast<const int32_t*>(terms.constant);
  const auto* rhs = static_cast<const int8_t*>(inputs[1].constant);
  for (int64_t c = 0; c < count; ++c)
    if (stored[c] !=
        batch_matmul_column_term(rhs + c * p.depth, p.depth, 1, p.lhs_offset, p.rhs_offset))
      return Status::kBadParams;
  return Status::kOk;
}

struct Operands {
  const int8_t* lhs;
  const int8_t* rhs;
  const int32_t* terms;  // nullptr: the kernel sums the RHS columns
  int8_t* output;
};

// Calls f(lhs matrix, rhs matrix) for each output matrix in order, a
// broadcast operand's one matrix repeated.
template <typename F>
inline void for_each_matrix_pair(const BatchMatmulParams& p, F&& f) {
  int32_t lhs_stride[3], rhs_stride[3], out_batch[3];
  int32_t lhs_step = 1, rhs_step = 1;
  for (int d = 2; d >= 0; --d) {
    lhs_stride[d] = p.lhs_batch[d] == 1 ? 0 : lhs_step;
    rhs_stride[d] = p.rhs_batch[d] == 1 ? 0 : rhs_step;
    out_batch[d] = p.lhs_batch[d] == 1 ? p.rhs_batch[d] : p.lhs_batch[d];
    lhs_step *= p.lhs_batch[d];
    rhs_step *= p.rhs_batch[d];
  }
  for (int32_t b0 = 0; b0 < out_batch[0]; ++b0)
    for (int32_t b1 = 0; b1 < out_batch[1]; ++b1)
      for (int32_t b2 = 0; b2 < out_batch[2]; ++b2)
        f(b0 * lhs_stride[0] + b1 * lhs_stride[1] + b2 * lhs_stride[2],
          b0 * rhs_stride[0] + b1 * rhs_stride[1] + b2 * rhs_stride[2]);
}

// The row term rhs_offset * sum, wrapping like the accumulator.
inline int32_t row_term(int32_t sum, int32_t rhs_offset) {
  return static_cast<int32_t>(static_cast<uint32_t>(sum) * static_cast<uint32_t>(rhs_offset));
}

#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1)

constexpr int32_t kBlock = 16;  // int8 lanes

// Reads an operand's 16 consecutive k: contiguous (depth-minor), or `step`
// bytes apart (depth-major).
template <bool kStrided>
struct Reader;

template <>
struct Reader<false> {
  explicit Reader(int32_t) {}
  static constexpr int32_t advance = kBlock;
  int8x16_t block(const int8_t* p) const { return vldrbq_s8(p); }
  int8x16_t tail(const int8_t* p, int32_t rest) const {
    return vldrbq_z_s8(p, vctp8q(static_cast<uint32_t>(rest)));
  }
};

// Two gathers of eight bytes each, sign-extended to 16 bits (k even, k
// odd), the low bytes of both narrowed into one vector in k order.
template <>
struct Reader<true> {
  explicit Reader(int32_t step)
      : even(vmulq_n_u16(vidupq_n_u16(0, 2), static_cast<uint16_t>(step))),
        odd(vaddq_n_u16(even, static_cast<uint16_t>(step))),
        advance(kBlock * step) {}
  uint16x8_t even, odd;
  int32_t advance;
  static int8x16_t narrow(int16x8_t e, int16x8_t o) {
    return vmovntq_s16(vmovnbq_s16(vuninitializedq_s8(), e), o);
  }
  int8x16_t block(const int8_t* p) const {
    return narrow(vldrbq_gather_offset_s16(p, even), vldrbq_gather_offset_s16(p, odd));
  }
  int8x16_t tail(const int8_t* p, int32_t rest) const {
    const uint32_t r = static_cast<uint32_t>(rest);
    return narrow(vldrbq_gather_offset_z_s16(p, even, vctp16q((r + 1) / 2)),
                  vldrbq_gather_offset_z_s16(p, odd, vctp16q(r / 2)));
  }
};

// factor * sum_k w_k + constant for one vector of the four-vector operand
// (once per group and matrix: out of line).
template <bool kStrided>
__attribute__((noinline)) int32_t group_term(const Reader<kStrided>& read, const int8_t* w,
                                             int32_t blocks, int32_t rest, int32_t factor,
                                             int32_t constant) {
  int32_t sum = 0;
  for (int32_t b = blocks; b > 0; --b, w += read.advance) sum = vaddvaq_s8(sum, read.block(w));
  if (rest != 0) sum = vaddvaq_s8(sum, read.tail(w, rest));
  return static_cast<int32_t>(static_cast<uint32_t>(sum) * static_cast<uint32_t>(factor) +
                              static_cast<uint32_t>(constant));
}

// What the assembly reads for a group of four contiguous B vectors w0..w3
// (a gathered A's walk with them).
template <bool kAStrided>
inline BmmMveGroup bmm_group(const Reader<kAStrided>& ar, int32_t a_step, const int8_t* w0,
                             const int8_t* w1, const int8_t* w2, const int8_t* w3, int32_t blocks,
                             int32_t rest) {
  BmmMveGroup g;
  g.w[0] = w0;
  g.w[1] = w1;
  g.w[2] = w2;
  g.w[3] = w3;
  g.blocks = blocks;
  g.rest = rest;
  g.a_step = a_step;
  g.advance = ar.advance;
  if constexpr (kAStrided) {
    g.even = ar.even;
    g.odd = ar.odd;
  }
  return g;
}

// The sums of `count` A vectors against one group of four contiguous B
// vectors (batch_matmul_mve_sums.S), kBmmMveSums words each.
template <bool kAStrided>
inline void contiguous_group_sums(const int8_t* a, int32_t count, const BmmMveGroup& group,
                                  int32_t* sums) {
  if constexpr (kAStrided) {
    tinyaot_bmm_mve_gathered_sums(a, count, &group, sums);
  } else {
    tinyaot_bmm_mve_sums(a, count, &group, sums);
  }
}

// A vectors a call of the assembly takes (their sums on the stack).
constexpr int32_t kSumsChunk = 16;

// One vector x of operand A against four of operand B (RHS columns; LHS
// rows), depth-major B: the raw sums plus `a_factor` times the sum of x.
template <bool kLhsStrided, bool kRhsStrided>
inline int32x4_t group_sums(const Reader<kLhsStrided>& lr, const int8_t* x,
                            const Reader<kRhsStrided>& rr, const int8_t* w0, const int8_t* w1,
                            const int8_t* w2, const int8_t* w3, int32_t blocks, int32_t rest,
                            int32_t a_factor) {
  int32_t s0 = 0, s1 = 0, s2 = 0, s3 = 0, rs = 0;
  for (int32_t b = blocks; b > 0; --b) {
    const int8x16_t v = lr.block(x);
    s0 = vmladavaq_s8(s0, v, rr.block(w0));
    s1 = vmladavaq_s8(s1, v, rr.block(w1));
    s2 = vmladavaq_s8(s2, v, rr.block(w2));
    s3 = vmladavaq_s8(s3, v, rr.block(w3));
    rs = vaddvaq_s8(rs, v);
    x += lr.advance;
    w0 += rr.advance;
    w1 += rr.advance;
    w2 += rr.advance;
    w3 += rr.advance;
  }
  if (rest != 0) {
    const int8x16_t v = lr.tail(x, rest);
    s0 = vmladavaq_s8(s0, v, rr.tail(w0, rest));
    s1 = vmladavaq_s8(s1, v, rr.tail(w1, rest));
    s2 = vmladavaq_s8(s2, v, rr.tail(w2, rest));
    s3 = vmladavaq_s8(s3, v, rr.tail(w3, rest));
    rs = vaddvaq_s8(rs, v);
  }
  return wrapping_add_lanes(lanes_of_sums(s0, s1, s2, s3), row_term(rs, a_factor));
}

// Groups of four B vectors outside (their terms in a vector register
// across the A vectors), A vectors inside. Normally A is the LHS (rows)
// and B the RHS (columns): four adjacent outputs a store. With a
// depth-major RHS (kSwapped) A is the RHS, so that each column's gathers
// serve four contiguous LHS rows, and the four outputs of a column are
// stored `cols` apart by one scatter. The offsets' share: a_factor times
// the sum of each A vector (summed in its loop), b_factor times that of
// each B vector plus lo * depth * ro (or a constant RHS's stored terms).
// With contiguous B vectors the A vectors go to the assembly a chunk at a
// time, their sums kept on the stack for the output steps.
template <Rounding R, bool kAStrided, bool kBStrided, bool kSwapped>
TINYAOT_MODE_LOOP void multiply(const BatchMatmulParams& p, const Operands& o) {
  const OutputRangeMve range = output_range_mve(output_range(p));
  const ChannelQuant q = make_channel_quant(0, p.multiplier, p.shift);
  const int32x4_t multiplier = vdupq_n_s32(q.multiplier), shift = vdupq_n_s32(q.shift);
  const int32_t blocks = p.depth / kBlock, rest = p.depth % kBlock;
  const int32_t rows = p.rows, cols = p.cols;
  const int32_t lhs_matrix = rows * p.depth, rhs_matrix = p.depth * cols;
  // Element steps between LHS rows and between RHS columns.
  const int32_t row_step = p.lhs_layout == MatrixLayout::kDepthMajor ? 1 : p.depth;
  const int32_t col_step = kSwapped ? 1 : p.depth;
  const int32_t a_count = kSwapped ? cols : rows, b_count = kSwapped ? rows : cols;
  const int32_t a_step = kSwapped ? col_step : row_step, b_step = kSwapped ? row_step : col_step;
  const Reader<kAStrided> ar(kSwapped ? cols : rows);
  const Reader<kBStrided> br(kSwapped ? rows : cols);
  const int32_t a_factor = kSwapped ? p.lhs_offset : p.rhs_offset;
  const int32_t b_factor = kSwapped ? p.rhs_offset : p.lhs_offset;
  const int32_t shared =
      static_cast<int32_t>(static_cast<uint32_t>(p.lhs_offset) * static_cast<uint32_t>(p.depth) *
                           static_cast<uint32_t>(p.rhs_offset));
  // Output steps from one A vector to the next and from one B vector to
  // the next; the scatter's byte offsets of a swapped group's four rows.
  const int32_t out_a = kSwapped ? 1 : cols, out_b = kSwapped ? cols : 1;
  const uint32x4_t scatter = vmulq_n_u32(vidupq_n_u32(0, 1), static_cast<uint32_t>(cols));
  const int32_t* const stored_terms = o.terms;
  int8_t* out_matrix = o.output;
  for_each_matrix_pair(p, [&](int32_t lhs_index, int32_t rhs_index) {
    const int8_t* const lhs = o.lhs + lhs_index * lhs_matrix;
    const int8_t* const rhs = o.rhs + rhs_index * rhs_matrix;
    const int8_t* const a_matrix = kSwapped ? rhs : lhs;
    const int8_t* const b_matrix = kSwapped ? lhs : rhs;
    for (int32_t j = 0; j < b_count; j += 4) {
      const int32_t left = b_count - j < 4 ? b_count - j : 4;
      const mve_pred16_t lanes = vctp32q(static_cast<uint32_t>(left));
      // A short group repeats its last vector (read, never stored).
      const int8_t* const w0 = b_matrix + j * b_step;
      const int8_t* const w1 = left > 1 ? w0 + b_step : w0;
      const int8_t* const w2 = left > 2 ? w1 + b_step : w1;
      const int8_t* const w3 = left > 3 ? w2 + b_step : w2;
      int32x4_t terms;
      if (!kSwapped && stored_terms != nullptr) {
        terms = vldrwq_z_s32(stored_terms + rhs_index * cols + j, lanes);
      } else if (b_factor != 0) {
        terms = lanes_of_sums(group_term(br, w0, blocks, rest, b_factor, shared),
                              group_term(br, w1, blocks, rest, b_factor, shared),
                              group_term(br, w2, blocks, rest, b_factor, shared),
                              group_term(br, w3, blocks, rest, b_factor, shared));
      } else {
        terms = vdupq_n_s32(shared);
      }
      int8_t* out = out_matrix + j * out_b;
      const auto step = [&](int32x4_t sums) {
        const int32x4_t value =
            requantize_mve<R>(wrapping_add_lanes(sums, terms), multiplier, shift);
        if (kSwapped) {
          vstrbq_scatter_offset_p_s32(out, scatter, offset_and_clamp_mve(value, range), lanes);
        } else {
          store_output_mve(out, value, range, lanes);
        }
        out += out_a;
      };
      if constexpr (kBStrided) {
        const int8_t* x = a_matrix;
        for (int32_t i = a_count; i > 0; --i, x += a_step)
          step(group_sums<kAStrided, kBStrided>(ar, x, br, w0, w1, w2, w3, blocks, rest, a_factor));
      } else {
        const BmmMveGroup group = bmm_group(ar, a_step, w0, w1, w2, w3, blocks, rest);
        for (int32_t i = 0; i < a_count; i += kSumsChunk) {
          const int32_t count = a_count - i < kSumsChunk ? a_count - i : kSumsChunk;
          int32_t sums[kSumsChunk * kBmmMveSums];
          contiguous_group_sums<kAStrided>(a_matrix + i * a_step, count, group, sums);
          for (const int32_t* s = sums; s < sums + count * kBmmMveSums; s += kBmmMveSums)
            step(wrapping_add_lanes(vldrwq_s32(s), row_term(s[4], a_factor)));
        }
      }
    }
    out_matrix += rows * cols;
  });
}

#else

// Elsewhere the same decomposition in portable C++ (the host runs programs
// planned for MVE cores bit for bit), one output at a time.
template <Rounding R, bool kLhsStrided, bool kRhsStrided>
void multiply(const BatchMatmulParams& p, const Operands& o) {
  const ChannelQuant q = make_channel_quant(0, p.multiplier, p.shift);
  const OutputRange range = output_range(p);
  const int32_t row_step = kLhsStrided ? 1 : p.depth, col_step = kRhsStrided ? 1 : p.depth;
  const int32_t lhs_k = kLhsStrided ? p.rows : 1, rhs_k = kRhsStrided ? p.cols : 1;
  const int32_t lhs_matrix = p.rows * p.depth, rhs_matrix = p.depth * p.cols;
  int8_t* out = o.output;
  for_each_matrix_pair(p, [&](int32_t lhs_index, int32_t rhs_index) {
    const int8_t* const lhs = o.lhs + lhs_index * lhs_matrix;
    const int8_t* const rhs = o.rhs + rhs_index * rhs_matrix;
    for (int32_t i = 0; i < p.rows; ++i) {
      const int8_t* const x = lhs + i * row_step;
      for (int32_t j = 0; j < p.cols; ++j) {
        const int8_t* const w = rhs + j * col_step;
        uint32_t sum = 0, row_sum = 0;
        for (int32_t k = 0; k < p.depth; ++k) {
          sum += static_cast<uint32_t>(x[k * lhs_k] * w[k * rhs_k]);
          row_sum += static_cast<uint32_t>(int32_t{x[k * lhs_k]});
        }
        const int32_t term =
            o.terms != nullptr
                ? o.terms[rhs_index * p.cols + j]
                : batch_matmul_column_term(w, p.depth, rhs_k, p.lhs_offset, p.rhs_offset);
        sum += static_cast<uint32_t>(row_term(static_cast<int32_t>(row_sum), p.rhs_offset));
        sum += static_cast<uint32_t>(term);
        *out++ = clamp_output(
            wrapping_add(requantize_fast<R>(static_cast<int32_t>(sum), q), range.output_offset),
            range);
      }
    }
  });
}

#endif

// The loop for the operands' layouts: on MVE, a depth-major RHS is
// operand A of the loop (see multiply).
template <Rounding R, bool kLhsStrided, bool kRhsStrided>
inline void dispatch(const BatchMatmulParams& p, const Operands& o) {
#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1)
  if constexpr (kRhsStrided) {
    multiply<R, true, kLhsStrided, true>(p, o);
  } else {
    multiply<R, kLhsStrided, false, false>(p, o);
  }
#else
  multiply<R, kLhsStrided, kRhsStrided>(p, o);
#endif
}

// A run-time choice as a compile-time one, for the loop's template.
template <bool B>
struct Flag {
  static constexpr bool value = B;
};

template <typename F>
inline void with_flag(bool flag, F&& f) {
  if (flag) {
    f(Flag<true>{});
  } else {
    f(Flag<false>{});
  }
}

Status run(const KernelArgs& args) {
  const auto& p = *static_cast<const BatchMatmulParams*>(args.params);
  const Operands o = {
      static_cast<const int8_t*>(args.inputs[0].data),
      static_cast<const int8_t*>(args.inputs[1].data),
      args.num_inputs == 3 ? static_cast<const int32_t*>(args.inputs[2].data) : nullptr,
      static_cast<int8_t*>(args.outputs[0].data)};
  with_rounding(args.rounding, [&](auto mode) {
    with_flag(p.lhs_layout == MatrixLayout::kDepthMajor, [&](auto lhs_strided) {
      with_flag(p.rhs_layout == MatrixLayout::kDepthMajor, [&](auto rhs_strided) {
        dispatch<decltype(mode)::value, decltype(lhs_strided)::value, decltype(rhs_strided)::value>(
            p, o);
      });
    });
  });
  return Status::kOk;
}

}  // namespace

const KernelDescriptor kernel_batch_matmul_s8_mve = {
    "batch_matmul_s8_mve",
    "batch_matmul",
    1,
    sizeof(BatchMatmulParams),
    2,
    3,
    1,
    IsaClass::kMve,
    "lhs:s8[lhs_batch,rows,depth|depth,rows], rhs:s8[rhs_batch,cols,depth|depth,cols], "
    "column_terms:s32[rhs_batch,cols]{lhs_offset*sum(rhs[c]+rhs_offset)} (constant rhs only) "
    "-> output:s8[batch,rows,cols]; "
    "params=BatchMatmulParams{lhs_batch[3],rhs_batch[3],rows,depth,cols,lhs_layout,rhs_layout,"
    "reserved[2],lhs_offset,rhs_offset,output_offset,multiplier,shift,act_min,act_max}",
    run,
    validate,
    nullptr,
};

}  // namespace tinyaot
