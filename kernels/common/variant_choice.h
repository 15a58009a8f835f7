// Compile-time choice of one kernel variant per operation (host only).
//
// Each family's lowering lists its variants once, with the shape case each
// one handles and a rough cost model; the compiler picks here and records
// the kernel id in the program. The runtime never re-decides: it runs the
// variant the program names, and that variant's validate refuses params
// outside its case.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "compiler/lower/lowering.h"
#include "kernels/common/quant.h"
#include "kernels/onnx_kernels.h"

namespace tinyaot {

template <typename Params>
struct VariantCandidate {
  KernelId kernel;
  // The shape case the variant handles; nullptr: every shape the family's
  // lowering accepts. The same function backs the variant's validate, so
  // the compiler never picks a variant the loader would refuse.
  bool (*applies)(const Params& params);
  // Rough cycles on a core of the variant's own ISA class: only the
  // ordering between candidates matters.
  uint64_t (*cost)(const Params& params);
};

// The cheapest candidate whose ISA class the target has (and, in rounding
// mode onnx, that has the mode: kernels/onnx_kernels.h), whose case holds
// and whose scratch fits the target's cap; among equal costs the one listed
// first. When no candidate fits the cap, the cap is dropped: the family's
// reference variant, applicable everywhere, guarantees an answer.
// Records in target.choice (when set) why: the only candidate, the fastest
// of several, or the fastest whose scratch fits the cap, naming the faster
// one passed over.
template <typename Params, size_t N>
KernelId choose_variant(const VariantCandidate<Params> (&candidates)[N], const Params& params,
                        const Target& target) {
  const VariantCandidate<Params>* best = nullptr;
  const KernelDescriptor* fastest_over_cap = nullptr;
  uint64_t best_cost = 0, over_cap_cost = 0;
  uint32_t applicable = 0, over_cap_scratch = 0;
  for (const VariantCandidate<Params>& candidate : candidates) {
    const KernelDescriptor* descriptor = find_kernel(static_cast<uint32_t>(candidate.kernel));
    if (descriptor == nullptr) throw CompileError("internal: variant not in the registry");
    if (descriptor->params_bytes != sizeof(Params))
      throw CompileError(std::string("internal: params size mismatch for ") + descriptor->name);
    if (static_cast<uint8_t>(descriptor->isa) > static_cast<uint8_t>(target.isa)) continue;
    if (target.rounding == Rounding::kOnnx && !kernel_has_onnx_rounding(descriptor->name)) continue;
    if (candidate.applies != nullptr && !candidate.applies(params)) continue;
    ++applicable;
    const uint32_t scratch = descriptor->scratch_bytes ? descriptor->scratch_bytes(&params) : 0;
    const uint64_t cost = candidate.cost(params);
    if (scratch > target.max_scratch_bytes) {
      if (fastest_over_cap == nullptr || cost < over_cap_cost) {
        fastest_over_cap = descriptor;
        over_cap_cost = cost;
        over_cap_scratch = scratch;
      }
      continue;
    }
    if (best == nullptr || cost < best_cost) {
      best = &candidate;
      best_cost = cost;
    }
  }
  if (best == nullptr && target.max_scratch_bytes != UINT32_MAX) {
    Target uncapped = target;
    uncapped.max_scratch_bytes = UINT32_MAX;
    return choose_variant(candidates, params, uncapped);
  }
  if (best == nullptr)
    throw CompileError(std::string("internal: no variant applies for ISA class ") +
                       isa_name(target.isa));
  if (target.choice != nullptr) {
    VariantChoice& choice = *target.choice;
    choice = VariantChoice{};
    choice.candidates = applicable;
    if (fastest_over_cap != nullptr && over_cap_cost < best_cost) {
      choice.reason = VariantChoice::Reason::kArena;
      choice.faster = fastest_over_cap->name;
      choice.faster_scratch_bytes = over_cap_scratch;
    } else if (applicable > 1) {
      choice.reason = VariantChoice::Reason::kFastest;
    }
  }
  return best->kernel;
}

// A weighted operator's variant: the fast ones take only channels whose
// rescale is precomputed (quant.h, has_fast_rescale); an operation with
// any other channel (a scale ratio of 1/4 or more: no real model's) gets
// the family's reference variant, listed first, which takes any.
template <typename Params, size_t N>
KernelId choose_weighted_variant(const VariantCandidate<Params> (&candidates)[N],
                                 const Params& params, const Target& target,
                                 const std::vector<ChannelQuant>& quant) {
  if (!every_channel_has_fast_rescale(quant.data(), static_cast<int64_t>(quant.size()))) {
    if (target.choice != nullptr) {
      *target.choice = VariantChoice{};
      target.choice->reason = VariantChoice::Reason::kRescale;
    }
    return candidates[0].kernel;
  }
  return choose_variant(candidates, params, target);
}

}  // namespace tinyaot
