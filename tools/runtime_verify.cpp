#include "runtime_verify.h"

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <stdexcept>

#include "file_io.h"
#include "runtime_manifest.h"
#include "tinyaot/program_format.h"
#include "tinyaot/refusal_text.h"
#include "tinyaot/runtime.h"

namespace tinyaot::cli {
namespace {

// Copies a table entry out of the bytes (the vector need not be aligned).
template <typename T>
T read_at(const std::vector<uint8_t>& bytes, uint64_t offset) {
  T value;
  std::memcpy(&value, bytes.data() + offset, sizeof(T));
  return value;
}

bool table_fits(uint32_t file_bytes, uint32_t offset, uint32_t count, uint64_t item_bytes) {
  return uint64_t{offset} + uint64_t{count} * item_bytes <= file_bytes;
}

bool listed(const nlohmann::json& names, const std::string& name) {
  for (const auto& n : names)
    if (n.get<std::string>() == name) return true;
  return false;
}

std::string joined(const nlohmann::json& names) {
  std::string text;
  for (const auto& n : names) text += (text.empty() ? "" : ", ") + n.get<std::string>();
  return text.empty() ? "none" : text;
}

// printf into a string, for the shared refusal formats (refusal_text.h).
template <typename... Args>
std::string text(const char* format, Args... args) {
  const int length = std::snprintf(nullptr, 0, format, args...);
  std::string out(static_cast<size_t>(length > 0 ? length : 0), '\0');
  std::snprintf(out.data(), out.size() + 1, format, args...);
  return out;
}

const nlohmann::json* find_variant(const nlohmann::json& manifest, const std::string& name) {
  for (const auto& k : manifest.at("kernels"))
    if (k.at("name").get<std::string>() == name) return &k;
  return nullptr;
}

// What differs between the variant the program was built against (its ABI
// table entry) and the runtime's, for one operation.
std::vector<std::string> operation_differences(const OpRecord& op, const AbiEntry& entry,
                                               const nlohmann::json& kernel) {
  std::vector<std::string> found;
  const auto id = kernel.at("id").get<uint32_t>();
  const auto version = kernel.at("version").get<uint32_t>();
  const auto params = kernel.at("params_bytes").get<uint32_t>();
  const auto min_inputs = kernel.at("min_inputs").get<uint32_t>();
  const auto max_inputs = kernel.at("max_inputs").get<uint32_t>();
  const auto outputs = kernel.at("num_outputs").get<uint32_t>();
  const auto isa = kernel.at("isa").get<std::string>();
  const std::string program_isa = isa_name(static_cast<IsaClass>(entry.isa));
  if (entry.version != version)
    found.push_back(text(TINYAOT_DIFFERS_VERSION, unsigned{entry.version}, version));
  if (op.params_bytes != params)
    found.push_back(text(TINYAOT_DIFFERS_PARAMS, unsigned{op.params_bytes}, params));
  if (op.num_inputs < min_inputs || op.num_inputs > max_inputs)
    found.push_back(
        min_inputs == max_inputs
            ? text(TINYAOT_DIFFERS_INPUTS, unsigned{op.num_inputs}, min_inputs)
            : text(TINYAOT_DIFFERS_INPUT_RANGE, unsigned{op.num_inputs}, min_inputs, max_inputs));
  if (op.num_outputs != outputs)
    found.push_back(text(TINYAOT_DIFFERS_OUTPUTS, unsigned{op.num_outputs}, outputs));
  if (program_isa != isa)
    found.push_back(text(TINYAOT_DIFFERS_VARIANT_ISA, program_isa.c_str(), isa.c_str()));
  if (entry.kernel_id != id)
    found.push_back(text(TINYAOT_DIFFERS_KERNEL_ID, unsigned{entry.kernel_id}, id));
  // The fingerprint also covers what is compared above; alone, it means the
  // operand or parameter signature changed.
  const auto fingerprint = kernel.at("fingerprint").get<uint32_t>();
  if (found.empty() && entry.fingerprint != fingerprint)
    found.push_back(text(TINYAOT_DIFFERS_SIGNATURE, unsigned{entry.fingerprint}, fingerprint));
  return found;
}

}  // namespace

std::vector<std::string> verify_against_manifest(const std::vector<uint8_t>& bytes,
                                                 const std::string& model,
                                                 const nlohmann::json& manifest) {
  if (bytes.size() < sizeof(ProgramHeader) ||
      std::memcmp(bytes.data(), kProgramMagic, sizeof(kProgramMagic)) != 0)
    throw std::runtime_error("not a tinyaot program");
  const auto h = read_at<ProgramHeader>(bytes, 0);
  const auto runtime_format = manifest.at("format_version").get<uint32_t>();
  if (h.format_version != runtime_format)
    return {text(TINYAOT_REFUSE_PROGRAM TINYAOT_DIFFERS_FORMAT, model.c_str(),
                 unsigned{h.format_version}, runtime_format)};
  if (h.format_version != kProgramFormatVersion)
    throw std::runtime_error("program format version " + std::to_string(h.format_version) +
                             "; this tinyaot reads version " +
                             std::to_string(kProgramFormatVersion));
  if (h.file_bytes < sizeof(ProgramHeader) || h.file_bytes > bytes.size() ||
      program_checksum(bytes.data(), h.file_bytes) != h.checksum ||
      !table_fits(h.file_bytes, h.ops_offset, h.num_ops, sizeof(OpRecord)) ||
      !table_fits(h.file_bytes, h.kernels_offset, h.num_kernels, sizeof(AbiEntry)) ||
      h.isa > static_cast<uint32_t>(IsaClass::kMve) ||
      h.rounding > static_cast<uint32_t>(kLastRounding))
    throw std::runtime_error("the program is truncated or corrupt");

  std::vector<std::string> failures;
  const std::string isa = isa_name(static_cast<IsaClass>(h.isa));
  if (!listed(manifest.at("isa_classes"), isa))
    failures.push_back(text(TINYAOT_REFUSE_PROGRAM TINYAOT_DIFFERS_ISA, model.c_str(),
                            core_name(static_cast<Core>(h.core)), isa.c_str(),
                            joined(manifest.at("isa_classes")).c_str()));
  const std::string rounding = rounding_name(static_cast<Rounding>(h.rounding));
  if (!listed(manifest.at("rounding_modes"), rounding))
    failures.push_back(text(TINYAOT_REFUSE_PROGRAM TINYAOT_DIFFERS_ROUNDING, model.c_str(),
                            rounding.c_str(), joined(manifest.at("rounding_modes")).c_str()));
  for (uint32_t i = 0; i < h.num_ops; ++i) {
    const auto op = read_at<OpRecord>(bytes, h.ops_offset + uint64_t{i} * sizeof(OpRecord));
    if (op.kernel >= h.num_kernels)
      throw std::runtime_error("operation " + std::to_string(i) +
                               " names a kernel outside the program's table");
    const auto entry =
        read_at<AbiEntry>(bytes, h.kernels_offset + uint64_t{op.kernel} * sizeof(AbiEntry));
    if (entry.name[kNameBytes - 1] != '\0')
      throw std::runtime_error("kernel table entry " + std::to_string(op.kernel) +
                               " has an unterminated name");
    const std::string where = text(TINYAOT_REFUSE_OPERATION, model.c_str(), i, entry.name);
    const nlohmann::json* kernel = find_variant(manifest, entry.name);
    if (kernel == nullptr) {
      failures.push_back(where + TINYAOT_DIFFERS_MISSING);
      continue;
    }
    for (const std::string& difference : operation_differences(op, entry, *kernel))
      failures.push_back(where + difference);
  }
  return failures;
}

std::string program_model_name(const std::vector<uint8_t>& bytes, const std::string& fallback) {
  if (bytes.size() < sizeof(ProgramHeader)) return fallback;
  const auto h = read_at<ProgramHeader>(bytes, 0);
  if (h.debug_bytes == 0 || uint64_t{h.debug_offset} + h.debug_bytes > bytes.size())
    return fallback;
  const auto debug =
      nlohmann::json::parse(bytes.begin() + h.debug_offset,
                            bytes.begin() + h.debug_offset + h.debug_bytes, nullptr, false);
  if (!debug.is_object() || !debug.contains("model") || !debug["model"].is_string())
    return fallback;
  return debug["model"].get<std::string>();
}

nlohmann::json read_runtime_manifest(const std::string& dir_or_file) {
  std::filesystem::path path(dir_or_file);
  if (std::filesystem::is_directory(path)) path /= kRuntimeManifestFile;
  const std::vector<uint8_t> text = read_file(path.string());
  nlohmann::json manifest = nlohmann::json::parse(text.begin(), text.end(), nullptr, false);
  if (!manifest.is_object())
    throw std::runtime_error("'" + path.string() + "' is not a JSON runtime manifest");
  return manifest;
}

}  // namespace tinyaot::cli
