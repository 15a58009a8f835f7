#include "runtime_manifest.h"

#include <stdexcept>
#include <string>

#include "tinyaot/program_format.h"
#include "tinyaot/runtime.h"

namespace tinyaot::cli {

nlohmann::json runtime_manifest(const std::vector<uint32_t>& kernel_ids,
                                const std::vector<IsaClass>& isa_classes,
                                const std::vector<Rounding>& rounding_modes) {
  nlohmann::json manifest;
  manifest["format_version"] = kProgramFormatVersion;
  manifest["isa_classes"] = nlohmann::json::array();
  for (const IsaClass isa : isa_classes) manifest["isa_classes"].push_back(isa_name(isa));
  manifest["rounding_modes"] = nlohmann::json::array();
  for (const Rounding mode : rounding_modes)
    manifest["rounding_modes"].push_back(rounding_name(mode));
  manifest["kernels"] = nlohmann::json::array();
  for (const uint32_t id : kernel_ids) {
    const KernelDescriptor* d = find_kernel(id);
    if (d == nullptr)
      throw std::invalid_argument("kernel id " + std::to_string(id) + " is not in the registry");
    manifest["kernels"].push_back({{"name", d->name},
                                   {"id", id},
                                   {"version", d->version},
                                   {"params_bytes", d->params_bytes},
                                   {"min_inputs", d->min_inputs},
                                   {"max_inputs", d->max_inputs},
                                   {"num_outputs", d->num_outputs},
                                   {"isa", isa_name(d->isa)},
                                   {"fingerprint", abi_fingerprint(*d)}});
  }
  return manifest;
}

nlohmann::json builtin_runtime_manifest() {
  std::vector<uint32_t> ids;
  for (uint32_t id = 0; id < kernel_count(); ++id) ids.push_back(id);
  std::vector<IsaClass> isas = {runtime_isa()};
  if (runtime_accepts_any_isa()) isas = {IsaClass::kScalar, IsaClass::kDsp, IsaClass::kMve};
  return runtime_manifest(ids, isas, {std::begin(kEveryRounding), std::end(kEveryRounding)});
}

}  // namespace tinyaot::cli
