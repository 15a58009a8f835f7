// The ABI fingerprint of a kernel descriptor: what a program records per
// kernel and the loader compares. Apart from the registry (registry.cpp),
// so that an exported library (`tinyaot export`) keeps this file as it is
// and generates only its own registry of the kernels it holds.
#include "tinyaot/kernel_abi.h"

namespace tinyaot {
namespace {

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

TINYAOT_LOAD_TIME uint32_t abi_fingerprint(const KernelDescriptor& d) {
  uint32_t hash = 2166136261u;
  hash = fnv1a_string(hash, d.name);
  hash = fnv1a_string(hash, d.op);
  const uint32_t numbers[] = {d.version,
                              d.params_bytes,
                              d.min_inputs,
                              d.max_inputs,
                              d.num_outputs,
                              static_cast<uint32_t>(d.isa),
                              d.signature.hash,
                              d.in_place_inputs,
                              d.signature.input_alignment.halfword,
                              d.signature.input_alignment.word,
                              d.signature.output_alignment.halfword,
                              d.signature.output_alignment.word};
  return fnv1a(hash, numbers, sizeof(numbers));
}

}  // namespace tinyaot
