// The kernel registry: a constant table of descriptor addresses, built from
// kernels/kernel_list.h. Constant-initialized, so no static constructor.
// (`tinyaot export` replaces this file with a table of only the kernels
// its programs use, at the same ids.)
#include "kernels/kernel_list.h"
#include "tinyaot/kernel_abi.h"

namespace tinyaot {
namespace {

const KernelDescriptor* const kRegistry[] = {
#define TINYAOT_KERNEL_ENTRY(name) &kernel_##name,
    TINYAOT_KERNEL_LIST(TINYAOT_KERNEL_ENTRY)
#undef TINYAOT_KERNEL_ENTRY
};

}  // namespace

const KernelDescriptor* find_kernel(uint32_t kernel_id) {
  return kernel_id < kernel_count() ? kRegistry[kernel_id] : nullptr;
}

uint32_t kernel_count() { return sizeof(kRegistry) / sizeof(kRegistry[0]); }

}  // namespace tinyaot
