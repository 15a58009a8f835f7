// The variant chooser: ISA class filter, case predicates, cost order and
// its refusals, on the conv2d variants with made-up predicates and costs.
#include "kernels/common/variant_choice.h"

#include <gtest/gtest.h>

#include "kernels/conv2d/conv2d.h"
#include "kernels/fully_connected/fully_connected.h"

namespace tinyaot {
namespace {

Target target(IsaClass isa, uint32_t max_scratch_bytes = UINT32_MAX) {
  Target t;
  t.isa = isa;
  t.max_scratch_bytes = max_scratch_bytes;
  return t;
}

bool always(const Conv2dParams&) { return true; }
bool never(const Conv2dParams&) { return false; }
bool deep(const Conv2dParams& p) { return p.input_depth >= 8; }
uint64_t cost_100(const Conv2dParams&) { return 100; }
uint64_t cost_50(const Conv2dParams&) { return 50; }
uint64_t cost_10(const Conv2dParams&) { return 10; }

// ref (scalar) 100, 1x1 (scalar) 50 when deep, MVE 10.
const VariantCandidate<Conv2dParams> kCandidates[] = {
    {KernelId::conv2d_s8_ref, nullptr, cost_100},
    {KernelId::conv2d_s8_1x1, deep, cost_50},
    {KernelId::conv2d_s8_im2col_mve, always, cost_10},
};

TEST(VariantChoice, PicksCheapestWithinTheIsaClass) {
  Conv2dParams p{};
  p.input_depth = 8;
  EXPECT_EQ(choose_variant(kCandidates, p, target(IsaClass::kScalar)), KernelId::conv2d_s8_1x1);
  EXPECT_EQ(choose_variant(kCandidates, p, target(IsaClass::kDsp)), KernelId::conv2d_s8_1x1);
  EXPECT_EQ(choose_variant(kCandidates, p, target(IsaClass::kMve)), KernelId::conv2d_s8_im2col_mve);
}

TEST(VariantChoice, AScratchCapPicksTheCheapestVariantThatFitsIt) {
  Conv2dParams p{};
  p.batches = p.input_h = p.input_w = p.output_h = p.output_w = 4;
  p.filter_h = p.filter_w = p.stride_h = p.stride_w = p.dilation_h = p.dilation_w = 1;
  p.input_depth = p.filter_depth = 8;
  p.output_depth = 4;
  const uint32_t need = kernel_conv2d_s8_im2col_mve.scratch_bytes(&p);
  ASSERT_GT(need, 0u);
  // The MVE variant needs scratch; the pointwise one (cost 50) needs none.
  EXPECT_EQ(choose_variant(kCandidates, p, target(IsaClass::kMve, 0)), KernelId::conv2d_s8_1x1);
  EXPECT_EQ(choose_variant(kCandidates, p, target(IsaClass::kMve, need)),
            KernelId::conv2d_s8_im2col_mve);
}

TEST(VariantChoice, RecordsWhyForTheReport) {
  Conv2dParams p{};
  p.batches = p.input_h = p.input_w = p.output_h = p.output_w = 4;
  p.filter_h = p.filter_w = p.stride_h = p.stride_w = p.dilation_h = p.dilation_w = 1;
  p.input_depth = p.filter_depth = 8;
  p.output_depth = 4;
  VariantChoice choice;
  Target t = target(IsaClass::kMve, 0);
  t.choice = &choice;
  // The MVE variant (cost 10) needs scratch over the cap: passed over, named.
  EXPECT_EQ(choose_variant(kCandidates, p, t), KernelId::conv2d_s8_1x1);
  EXPECT_EQ(choice.reason, VariantChoice::Reason::kArena);
  EXPECT_EQ(choice.faster, "conv2d_s8_im2col_mve");
  EXPECT_EQ(choice.faster_scratch_bytes, kernel_conv2d_s8_im2col_mve.scratch_bytes(&p));
  EXPECT_EQ(choice.candidates, 3u);
  t.max_scratch_bytes = UINT32_MAX;
  EXPECT_EQ(choose_variant(kCandidates, p, t), KernelId::conv2d_s8_im2col_mve);
  EXPECT_EQ(choice.reason, VariantChoice::Reason::kFastest);
  EXPECT_TRUE(choice.faster.empty());
  // On a scalar core with a shallow input only the reference applies.
  p.input_depth = 4;
  t.isa = IsaClass::kScalar;
  EXPECT_EQ(choose_variant(kCandidates, p, t), KernelId::conv2d_s8_ref);
  EXPECT_EQ(choice.reason, VariantChoice::Reason::kOnly);
  EXPECT_EQ(choice.candidates, 1u);
}

TEST(VariantChoice, SkipsCandidatesWhosePredicateFails) {
  Conv2dParams p{};
  p.input_depth = 4;
  EXPECT_EQ(choose_variant(kCandidates, p, target(IsaClass::kScalar)), KernelId::conv2d_s8_ref);
  const VariantCandidate<Conv2dParams> only_mve_applies[] = {
      {KernelId::conv2d_s8_ref, nullptr, cost_100},
      {KernelId::conv2d_s8_im2col, never, cost_10},
      {KernelId::conv2d_s8_im2col_mve, always, cost_50},
  };
  EXPECT_EQ(choose_variant(only_mve_applies, p, target(IsaClass::kDsp)), KernelId::conv2d_s8_ref);
  EXPECT_EQ(choose_variant(only_mve_applies, p, target(IsaClass::kMve)),
            KernelId::conv2d_s8_im2col_mve);
}

TEST(VariantChoice, RefusesWhenNothingApplies) {
  const VariantCandidate<Conv2dParams> none[] = {
      {KernelId::conv2d_s8_1x1, never, cost_10},
      {KernelId::conv2d_s8_im2col_mve, always, cost_10},
  };
  EXPECT_THROW(choose_variant(none, Conv2dParams{}, target(IsaClass::kDsp)), CompileError);
}

uint64_t fc_cost(const FullyConnectedParams&) { return 1; }

TEST(VariantChoice, RefusesAVariantOfAnotherParamsStruct) {
  const VariantCandidate<FullyConnectedParams> wrong[] = {
      {KernelId::conv2d_s8_ref, nullptr, fc_cost},
  };
  EXPECT_THROW(choose_variant(wrong, FullyConnectedParams{}, target(IsaClass::kMve)), CompileError);
}

}  // namespace
}  // namespace tinyaot
