#include "compiler/emit/report.h"

#include <algorithm>
#include <cstring>
#include <iomanip>
#include <sstream>

#include "compiler/lower/lowering.h"
#include "tinyaot/runtime.h"

namespace tinyaot {
namespace {

const char* dtype_name(uint32_t dtype) {
  switch (static_cast<DType>(dtype)) {
    case DType::kInt8:
      return "int8";
    case DType::kInt16:
      return "int16";
    case DType::kInt32:
      return "int32";
    case DType::kFloat32:
      return "float32";
    case DType::kInt64:
      return "int64";
  }
  return "?";
}

nlohmann::json io_json(const IoDesc& d) {
  nlohmann::json j;
  j["name"] = std::string(d.name);
  j["dtype"] = dtype_name(d.dtype);
  j["shape"] = std::vector<int32_t>(d.dims, d.dims + d.rank);
  j["scale"] = d.scale;
  j["zero_point"] = d.zero_point;
  j["offset"] = d.arena_offset;
  j["bytes"] = d.bytes;
  return j;
}

std::string with_commas(uint64_t value) {
  std::string digits = std::to_string(value);
  for (int i = static_cast<int>(digits.size()) - 3; i > 0; i -= 3)
    digits.insert(static_cast<size_t>(i), ",");
  return digits;
}

// Why the compiler chose an operation's variant, in words, from the
// debug section's [reason, candidates, faster?, faster scratch?] (see
// VariantChoice); empty when absent or malformed.
std::string choice_text(const nlohmann::json& op) {
  if (op.size() < 4 || !op[2].is_number_unsigned() || !op[3].is_number_unsigned()) return "";
  const auto candidates = op[3].get<uint64_t>();
  switch (static_cast<VariantChoice::Reason>(op[2].get<unsigned>())) {
    case VariantChoice::Reason::kOnly:
      return "only variant";
    case VariantChoice::Reason::kFastest:
      return "fastest of " + std::to_string(candidates);
    case VariantChoice::Reason::kArena:
      if (op.size() < 6 || !op[4].is_string() || !op[5].is_number_unsigned()) return "";
      return "arena: " + op[4].get<std::string>() + " needs " + with_commas(op[5].get<uint64_t>()) +
             " B scratch";
    case VariantChoice::Reason::kRescale:
      return "reference: a channel's rescale";
  }
  return "";
}

// Operation i's type name and MACs from the debug section's "types" and
// "operations" (docs/program-format.md); false when absent or malformed
// (the runtime ignores the section, so nothing has checked it).
bool debug_operation(const nlohmann::json& debug, uint32_t i, std::string* type, uint64_t* macs) {
  const auto types = debug.find("types");
  const auto ops = debug.find("operations");
  if (types == debug.end() || ops == debug.end() || !types->is_array() || !ops->is_array() ||
      i >= ops->size())
    return false;
  const nlohmann::json& op = (*ops)[i];
  if (!op.is_array() || op.size() < 2 || !op[0].is_number_unsigned() ||
      !op[1].is_number_unsigned() || op[0].get<uint64_t>() >= types->size())
    return false;
  const nlohmann::json& name = (*types)[op[0].get<size_t>()];
  if (!name.is_string()) return false;
  *type = name.get<std::string>();
  *macs = op[1].get<uint64_t>();
  return true;
}

// The buffers: the debug section's tensor buffers [offset, bytes, first op,
// last op, name?, [[held name, offset]...]?], a tensor kept without its
// name (the default for all but inputs and outputs) called after the
// operation that writes it; then each operation's scratch from its record.
nlohmann::json buffers_json(const nlohmann::json& debug, const Program& p,
                            const nlohmann::json& ops) {
  nlohmann::json buffers = nlohmann::json::array();
  const auto listed = debug.find("buffers");
  if (listed == debug.end()) return buffers;  // stripped: no plan to show
  if (listed->is_array()) {
    for (const auto& b : *listed) {
      if (!b.is_array() || b.size() < 4 || b.size() > 6) continue;
      bool numbers = true;
      for (size_t k = 0; k < 4; ++k) numbers = numbers && b[k].is_number_unsigned();
      if (!numbers) continue;
      nlohmann::json o = {{"kind", "tensor"},
                          {"offset", b[0]},
                          {"bytes", b[1]},
                          {"first_op", b[2]},
                          {"last_op", b[3]}};
      const auto first = b[2].get<uint64_t>();
      if (b.size() >= 5 && b[4].is_string()) {
        o["name"] = b[4];
      } else if (first < ops.size()) {
        o["name"] = "output of op " + std::to_string(first) + " (" +
                    ops[first].value("type", std::string("?")) + ")";
      } else {
        o["name"] = "?";
      }
      if (b.size() == 6 && b[5].is_array()) {
        o["holds"] = nlohmann::json::array();
        for (const auto& h : b[5])
          if (h.is_array() && h.size() == 2 && h[0].is_string() && h[1].is_number_unsigned())
            o["holds"].push_back({{"name", h[0]}, {"offset", h[1]}});
      }
      buffers.push_back(o);
    }
  }
  for (uint32_t i = 0; i < p.header->num_ops; ++i) {
    const BufferRef& s = p.ops[i].scratch;
    if (s.bytes == 0) continue;
    buffers.push_back({{"kind", "scratch"},
                       {"name", "scratch:" + std::string(p.kernels[p.ops[i].kernel].name) + "#" +
                                    std::to_string(i)},
                       {"offset", s.offset},
                       {"bytes", s.bytes},
                       {"first_op", i},
                       {"last_op", i}});
  }
  return buffers;
}

}  // namespace

nlohmann::json program_report(const std::vector<uint8_t>& bytes) {
  // The loader wants 16-byte alignment; vector storage does not promise it.
  std::vector<uint8_t> storage(bytes.size() + kConstantAlignment);
  uint8_t* aligned =
      storage.data() +
      (kConstantAlignment - reinterpret_cast<uintptr_t>(storage.data()) % kConstantAlignment) %
          kConstantAlignment;
  if (!bytes.empty()) std::memcpy(aligned, bytes.data(), bytes.size());
  Program p;
  const Status status = load_program(aligned, static_cast<uint32_t>(bytes.size()), &p);
  if (status != Status::kOk)
    throw CompileError(std::string("program does not load: ") + status_text(status) + " (" +
                       status_name(status) + ")");
  const ProgramHeader& h = *p.header;
  nlohmann::json j;
  j["format_version"] = h.format_version;
  j["program_bytes"] = h.file_bytes;
  j["core"] = core_name(static_cast<Core>(h.core));
  j["isa"] = isa_name(static_cast<IsaClass>(h.isa));
  j["rounding"] = rounding_name(static_cast<Rounding>(h.rounding));
  j["arena_bytes"] = h.arena_bytes;
  j["constants_bytes"] = h.constants_bytes;
  j["persistent_bytes"] = runtime_context_bytes();
  j["inputs"] = nlohmann::json::array();
  for (uint32_t i = 0; i < h.num_inputs; ++i) j["inputs"].push_back(io_json(p.inputs[i]));
  j["outputs"] = nlohmann::json::array();
  for (uint32_t i = 0; i < h.num_outputs; ++i) j["outputs"].push_back(io_json(p.outputs[i]));
  nlohmann::json debug = nlohmann::json::object();  // stays empty for a stripped program
  if (h.debug_bytes > 0) {
    debug = nlohmann::json::parse(
        reinterpret_cast<const char*>(p.base + h.debug_offset),
        reinterpret_cast<const char*>(p.base + h.debug_offset + h.debug_bytes), nullptr, false);
    if (debug.is_discarded() || !debug.is_object()) debug = nlohmann::json::object();
  }
  j["model"] = debug.value("model", "");
  j["planner"] = debug.value("planner", "");
  j["lower_bound_bytes"] = debug.value("lower_bound_bytes", 0u);
  uint32_t scratch = 0;
  uint64_t macs = 0;
  bool macs_known = h.num_ops > 0;
  nlohmann::json ops = nlohmann::json::array();
  for (uint32_t i = 0; i < h.num_ops; ++i) {
    const OpRecord& r = p.ops[i];
    nlohmann::json o;
    o["index"] = i;
    o["source_index"] = r.source_index;
    o["kernel"] = std::string(p.kernels[r.kernel].name);
    o["scratch_bytes"] = r.scratch.bytes;
    o["scratch_offset"] = r.scratch.offset;
    scratch = std::max(scratch, r.scratch.bytes);
    std::string type;
    uint64_t op_macs = 0;
    if (debug_operation(debug, i, &type, &op_macs)) {
      o["type"] = type;
      o["macs"] = op_macs;
      const std::string why = choice_text(debug["operations"][i]);
      if (!why.empty()) o["why"] = why;
    }
    const auto sources = debug.find("sources");
    if (sources != debug.end() && sources->is_array() && i < sources->size() &&
        (*sources)[i].is_string() && !(*sources)[i].get<std::string>().empty())
      o["source_name"] = (*sources)[i];
    if (o.contains("macs")) {
      macs += o["macs"].get<uint64_t>();
    } else {
      macs_known = false;
    }
    nlohmann::json in = nlohmann::json::array(), out = nlohmann::json::array();
    for (uint32_t k = 0; k < r.num_inputs + r.num_outputs; ++k) {
      const BufferRef& ref = p.operands[r.first_operand + k];
      nlohmann::json b = {{"region", ref.region == 0 ? "arena" : "constants"},
                          {"offset", ref.offset},
                          {"bytes", ref.bytes}};
      (k < r.num_inputs ? in : out).push_back(b);
    }
    o["inputs"] = in;
    o["outputs"] = out;
    ops.push_back(o);
  }
  j["operations"] = ops;
  j["scratch_bytes"] = scratch;
  if (macs_known) j["macs"] = macs;
  j["buffers"] = buffers_json(debug, p, ops);
  j["state"] = nlohmann::json::array();
  for (uint32_t i = 0; i < h.num_state_regions; ++i) {
    const StateRegion& region = p.state_regions[i];
    nlohmann::json o = {
        {"offset", region.arena_offset}, {"bytes", region.bytes}, {"reset_fill", region.fill}};
    for (auto& b : j["buffers"]) {
      if (b["kind"] != "tensor" || b["offset"] != region.arena_offset) continue;
      b["kind"] = "state";
      o["name"] = b["name"];
    }
    j["state"].push_back(o);
  }
  return j;
}

std::string report_text(const nlohmann::json& r) {
  std::ostringstream s;
  s << "program  " << r.value("model", "") << "  ("
    << with_commas(r["program_bytes"].get<uint64_t>()) << " bytes, format " << r["format_version"]
    << ")\n";
  s << "target   " << r["core"].get<std::string>() << ", ISA class " << r["isa"].get<std::string>()
    << ", rounding " << r["rounding"].get<std::string>() << "\n";
  s << "arena    " << with_commas(r["arena_bytes"].get<uint64_t>()) << " bytes   (lower bound "
    << with_commas(r["lower_bound_bytes"].get<uint64_t>()) << ", planner " << r.value("planner", "")
    << ")\n";
  if (!r["state"].empty()) {
    uint64_t bytes = 0;
    for (const auto& region : r["state"]) bytes += region["bytes"].get<uint64_t>();
    s << "state    " << with_commas(bytes) << " bytes in " << r["state"].size()
      << " region(s) of the arena, kept from one inference to the next (reset_state sets "
         "them)\n";
  }
  s << "flash    " << with_commas(r["constants_bytes"].get<uint64_t>())
    << " bytes of constants; runtime context " << r["persistent_bytes"] << " bytes\n";
  if (r.contains("macs"))
    s << "compute  " << with_commas(r["macs"].get<uint64_t>()) << " MACs per inference\n";
  s << "\n";
  for (const char* kind : {"inputs", "outputs"}) {
    for (const auto& io : r[kind]) {
      s << (std::string(kind) == "inputs" ? "input    " : "output   ")
        << io["name"].get<std::string>() << " " << io["dtype"].get<std::string>()
        << io["shape"].dump() << " at arena+" << io["offset"] << " (" << io["bytes"]
        << " bytes, scale " << io["scale"] << ", zero point " << io["zero_point"] << ")\n";
    }
  }
  s << "\n  #  src  operator            kernel                        output @ offset      bytes  "
       "scratch          MACs  why this kernel\n";
  for (const auto& o : r["operations"]) {
    const auto& out = o["outputs"].empty() ? nlohmann::json::object() : o["outputs"][0];
    s << std::setw(3) << o["index"].get<int>() << std::setw(5) << o["source_index"].get<int>()
      << "  " << std::left << std::setw(19) << o.value("type", "") << " " << std::setw(29)
      << o["kernel"].get<std::string>() << std::right << std::setw(10) << out.value("offset", 0u)
      << std::setw(17) << out.value("bytes", 0u) << std::setw(9)
      << o["scratch_bytes"].get<uint32_t>() << std::setw(14)
      << (o.contains("macs") ? with_commas(o["macs"].get<uint64_t>()) : "-") << "  "
      << o.value("why", "");
    if (o.contains("source_name")) s << "  [" << o["source_name"].get<std::string>() << "]";
    s << "\n";
  }
  if (!r["buffers"].empty()) {
    s << "\nbuffers (offset, bytes, alive during operations)\n";
    for (const auto& b : r["buffers"]) {
      s << "  " << std::setw(8) << b["offset"].get<uint32_t>() << std::setw(9)
        << b["bytes"].get<uint32_t>() << "  [" << b["first_op"] << ".." << b["last_op"] << "]  "
        << (b["kind"] == "scratch" ? "scratch "
            : b["kind"] == "state" ? "state   "
                                   : "")
        << b["name"].get<std::string>();
      if (b.contains("holds")) {
        s << "  (also holds";
        for (const auto& h : b["holds"])
          s << " " << h["name"].get<std::string>() << "@+" << h["offset"].get<uint32_t>();
        s << ")";
      }
      s << "\n";
    }
  }
  return s.str();
}

}  // namespace tinyaot
