// SOFTMAX on MVE, bit-exact with softmax_s8_ref: per row
//   maximum: VLDRB.8 and VMAX.S8 over 16 values a step, VMAXV across the
//            lanes; the last 1-15 values by a predicated VMAXV (VCTP);
//   sum:     four values a step widened by VLDRB.S32, their differences
//            from the maximum (VSUB) as offsets of one gather of the
//            compile-time table (VLDRW gather, shifted by 2), predicated on
//            the difference being inside the stored table (VPT: 0 past its
//            end, as the reference reads); rescaled to Q12 by VRSHR #12
//            (the reference's rounding of a non-negative value, with no
//            overflow) and summed in the lanes (VADD wraps as the
//            reference's add does), VADDV at the end;
//   output:  the same gather, VQRDMULH by the reciprocal (gemmlowp's
//            rounding doubling high product), VRSHL by minus the exponent
//            (the reference's rounding right shift, exact for the
//            non-negative products a row of at most kSoftmaxMveMaxDepth
//            values gives), -128 and the clamp at 127, a narrowing VSTRB.
// The last 1-3 values of a row are one predicated block (VCTP), no scalar
// epilogue. The reciprocal, once a row, in vector lanes too
// (softmax_mve_reciprocal.h). No scratch.
#include "kernels/common/fixed_point.h"
#include "kernels/softmax/softmax.h"
#include "kernels/softmax/softmax_mve_reciprocal.h"
#include "tinyaot/load_time.h"

#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1)
#include <arm_mve.h>

#include "kernels/common/mve_asm.h"
#endif

namespace tinyaot {
namespace {

#if defined(__ARM_FEATURE_MVE) && (__ARM_FEATURE_MVE & 1)

// The largest value of a row, 16 values a step.
inline int32_t row_maximum(const int8_t* row, int32_t depth) {
  int8x16_t largest = vdupq_n_s8(-128);
  int32_t c = 0;
  for (; c + 16 <= depth; c += 16) largest = vmaxq_s8(largest, vldrbq_s8(row + c));
  int8_t maximum = vmaxvq_s8(-128, largest);
  if (c < depth) {
    const mve_pred16_t tail = vctp8q(static_cast<uint32_t>(depth - c));
    maximum = vmaxvq_p_s8(maximum, vldrbq_z_s8(row + c, tail), tail);
  }
  return maximum;
}

// What one row's steps share.
struct RowTable {
  const int32_t* table;  // exponentials by difference from the maximum
  uint32x4_t entries;    // the stored table's length in every lane
  int32x4_t maximum;     // the row's maximum in every lane
};

// The exponentials at four differences from the row's maximum inside a
// row: one VPT block of the compare (inside the stored table) and the
// gather, whose lanes outside read 0. (GCC moves an intrinsic's
// predicate through a core register, four instructions more.) The
// destination is not the offsets' register, as a gather requires. It reads
// the stored table, at most kSoftmaxExpTableSize entries.
inline int32x4_t gather_exponentials(const RowTable& t, uint32x4_t difference) {
  int32x4_t e;
  MveP0 p0;
  __asm__(TINYAOT_P0_SAVE
          "vpt.u32 hi, %q[entries], %q[difference]\n\t"
          "vldrwt.u32 %q[e], [%[table], %q[difference], uxtw #2]" TINYAOT_P0_RESTORE
          : [e] "=&w"(e), TINYAOT_WRITES_P0(p0)
          : [entries] "w"(t.entries), [difference] "w"(difference), [table] "r"(t.table),
            "m"(*(const int32_t(*)[kSoftmaxExpTableSize])t.table));
  return e;
}

// The exponentials of four values (kTail: those of `tail`; 0 in the other
// lanes) by their differences from the row's maximum, 0 past the table.
template <bool kTail>
inline int32x4_t exponentials(const RowTable& t, const int8_t* x, mve_pred16_t tail) {
  const int32x4_t values = kTail ? vldrbq_z_s32(x, tail) : vldrbq_s32(x);
  const uint32x4_t difference = vreinterpretq_u32_s32(vsubq_s32(t.maximum, values));
  if (!kTail) return gather_exponentials(t, difference);
  return vldrwq_gather_shifted_offset_z_s32(t.table, difference,
                                            vcmphiq_m_u32(t.entries, difference, tail));
}

// An exponential Q0 -> Q12: a rounding right shift (fixed_point::rescale).
constexpr int kQ0ToQ12 = kSoftmaxSumIntegerBits;

// The Q12 sum of a row's exponentials, wrapping as the reference's.
inline int32_t sum_of_exponentials(const RowTable& t, const int8_t* row, int32_t depth) {
  int32x4_t sums = vdupq_n_s32(0);
  int32_t c = 0;
  for (; c + 4 <= depth; c += 4)
    sums = vaddq_s32(sums, vrshrq_n_s32(exponentials<false>(t, row + c, 0), kQ0ToQ12));
  if (c < depth) {
    const mve_pred16_t tail = vctp32q(static_cast<uint32_t>(depth - c));
    sums = vaddq_s32(sums, vrshrq_n_s32(exponentials<true>(t, row + c, tail), kQ0ToQ12));
  }
  return vaddvq_s32(sums);
}

// Four outputs: exponential times the reciprocal `scale`, rounded right
// by `exponent`, less 128, at most 127 (never below -128: the product is
// not negative).
template <bool kTail>
inline void output_block(const RowTable& t, const int8_t* x, mve_pred16_t tail, int32_t scale,
                         int32_t exponent, int32x4_t highest, int8_t* out) {
  const int32x4_t product = vqrdmulhq_n_s32(exponentials<kTail>(t, x, tail), scale);
  const int32x4_t probability =
      vminq_s32(vsubq_n_s32(vrshlq_n_s32(product, -exponent), 128), highest);
  if (kTail) {
    vstrbq_p_s32(out, probability, tail);
  } else {
    vstrbq_s32(out, probability);
  }
}

__attribute__((noinline)) Status softmax_rows(const SoftmaxParams& p, const int8_t* input,
                                              const int32_t* table, int32_t table_size,
                                              int8_t* output) {
  const int32_t depth = p.depth;
  const int32x4_t highest = vdupq_n_s32(127);
  RowTable t;
  t.table = table;
  t.entries = vdupq_n_u32(static_cast<uint32_t>(table_size));
  for (int32_t r = 0; r < p.rows; ++r) {
    const int8_t* row = input + r * depth;
    int8_t* out = output + r * depth;
    t.maximum = vdupq_n_s32(row_maximum(row, depth));
    const int32_t sum = sum_of_exponentials(t, row, depth);
    // As the reference: Q0 probability to steps of 1/256 (the sum's
    // integer bits above 1.0 more), and the row TFLite would abort on
    // fails. A sum that passes is positive: in a row of at most
    // kSoftmaxMveMaxDepth values 2^19 <= sum < 2^32, which read as a
    // negative int32 fails here.
    const int headroom_plus_one = fixed_point::count_leading_zeros(static_cast<uint32_t>(sum));
    const int32_t exponent = kSoftmaxSumIntegerBits - headroom_plus_one + 31 - 8;
    if (exponent < 0 || exponent > 31) return Status::kBadArgument;
    const int32_t scale = softmax_reciprocal_mve(sum, headroom_plus_one);
    int32_t c = 0;
    for (; c + 4 <= depth; c += 4)
      output_block<false>(t, row + c, 0, scale, exponent, highest, out + c);
    if (c < depth)
      output_block<true>(t, row + c, vctp32q(static_cast<uint32_t>(depth - c)), scale, exponent,
                         highest, out + c);
  }
  return Status::kOk;
}

Status run(const KernelArgs& args) {
  return softmax_rows(*static_cast<const SoftmaxParams*>(args.params),
                      static_cast<const int8_t*>(args.inputs[0].data),
                      static_cast<const int32_t*>(args.inputs[1].data),
                      static_cast<int32_t>(args.inputs[1].bytes / sizeof(int32_t)),
                      static_cast<int8_t*>(args.outputs[0].data));
}

#else

// Elsewhere (the host running a program planned for an MVE core): the
// reference, whose arithmetic this variant reproduces.
Status run(const KernelArgs& args) { return kernel_softmax_s8_ref.run(args); }

#endif

TINYAOT_LOAD_TIME Status validate(const void* raw, const OperandView* inputs, uint32_t num_inputs,
                                  const OperandView* outputs, uint32_t num_outputs) {
  const Status status =
      kernel_softmax_s8_ref.validate(raw, inputs, num_inputs, outputs, num_outputs);
  if (status != Status::kOk) return status;
  return is_softmax_mve_case(*static_cast<const SoftmaxParams*>(raw)) ? Status::kOk
                                                                      : Status::kBadParams;
}

}  // namespace

const KernelDescriptor kernel_softmax_s8_mve = {
    "softmax_s8_mve",
    "softmax",
    2,
    sizeof(SoftmaxParams),
    2,
    2,
    1,
    IsaClass::kMve,
    TINYAOT_SOFTMAX_SIGNATURE "; case=depth<=" TINYAOT_SOFTMAX_TEXT(TINYAOT_SOFTMAX_MVE_MAX_DEPTH),
    run,
    validate,
    nullptr,
};

}  // namespace tinyaot
