// Buffers that share bytes on purpose, decided before offsets are assigned:
// concatenation inputs written straight into their slices of the output,
// and outputs written over an input they are the last user of where the
// variant declares that input safe in place (element-wise operators).
// The planner then sees one buffer per group, so both lower the bound.
#pragma once

#include <cstdint>

#include "compiler/compile.h"

namespace tinyaot {

// Concatenations along the outermost axis whose inputs can all live inside
// the output: records their placements in c.slice_placement and removes
// the operations, which have nothing left to copy. Schedule-independent.
void place_concatenation_slices(Compilation& c);

// c.placement for the current schedule: the slice placements, plus every
// output that can take over the bytes of an input its variant declares
// safe in place (KernelDescriptor::in_place_inputs).
void place_in_place_outputs(Compilation& c);

// The storage tensor whose buffer holds `storage`, adding to *offset where
// `storage` starts inside it.
int32_t placement_root(const std::vector<Placement>& placement, int32_t storage, uint32_t* offset);

}  // namespace tinyaot
