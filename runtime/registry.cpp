// The kernel registry: a constant table of descriptor addresses, built from
// kernels/kernel_list.h. Constant-initialized, so no static constructor.
#include "kernels/kernel_list.h"
#include "tinyaot/kernel_abi.h"

namespace tinyaot {
namespace {

const KernelDescriptor* const kRegistry[] = {
#define TINYAOT_KERNEL_ENTRY(name) &kernel_##name,
    TINYAOT_KERNEL_LIST(TINYAOT_KERNEL_ENTRY)
#undef TINYAOT_KERNEL_ENTRY
};

uint32_t fnv1a(uint32_t hash, const void* data, uint32_t bytes) {
  const auto* p = static_cast<const uint8_t*>(data);
  for (uint32_t i = 0; i < bytes; ++i) hash = (hash ^ p[i]) * 16777619u;
  return hash;
}

uint32_t fnv1a_string(uint32_t hash, const char* s) {
  for (; *s; ++s) hash = (hash ^ static_cast<uint8_t>(*s)) * 16777619u;
  return (hash ^ 0xffu) * 16777619u;  // terminator, so "ab"+"c" != "a"+"bc"
}

}  // namespace

uint32_t abi_fingerprint(const KernelDescriptor& d) {
  uint32_t hash = 2166136261u;
  hash = fnv1a_string(hash, d.name);
  hash = fnv1a_string(hash, d.op);
  const uint32_t numbers[] = {d.version,    d.params_bytes, d.min_inputs,
                              d.max_inputs, d.num_outputs,  static_cast<uint32_t>(d.isa)};
  hash = fnv1a(hash, numbers, sizeof(numbers));
  return fnv1a_string(hash, d.signature);
}

const KernelDescriptor* find_kernel(uint32_t kernel_id) {
  return kernel_id < kernel_count() ? kRegistry[kernel_id] : nullptr;
}

uint32_t kernel_count() { return sizeof(kRegistry) / sizeof(kRegistry[0]); }

}  // namespace tinyaot
