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

#include "compiler/lower/lowering.h"

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

// The cheapest candidate whose ISA class the target has and whose case
// holds; among equal costs the one listed first. The family's reference
// variant, applicable everywhere, guarantees an answer.
template <typename Params, size_t N>
KernelId choose_variant(const VariantCandidate<Params> (&candidates)[N], const Params& params,
                        IsaClass isa) {
  const VariantCandidate<Params>* best = nullptr;
  uint64_t best_cost = 0;
  for (const VariantCandidate<Params>& candidate : candidates) {
    const KernelDescriptor* descriptor = find_kernel(static_cast<uint32_t>(candidate.kernel));
    if (descriptor == nullptr) throw CompileError("internal: variant not in the registry");
    if (descriptor->params_bytes != sizeof(Params))
      throw CompileError(std::string("internal: params size mismatch for ") + descriptor->name);
    if (static_cast<uint8_t>(descriptor->isa) > static_cast<uint8_t>(isa)) continue;
    if (candidate.applies != nullptr && !candidate.applies(params)) continue;
    const uint64_t cost = candidate.cost(params);
    if (best == nullptr || cost < best_cost) {
      best = &candidate;
      best_cost = cost;
    }
  }
  if (best == nullptr)
    throw CompileError(std::string("internal: no variant applies for ISA class ") + isa_name(isa));
  return best->kernel;
}

}  // namespace tinyaot
