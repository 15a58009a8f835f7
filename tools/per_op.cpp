#include "per_op.h"

#include <cstdio>
#include <sstream>
#include <stdexcept>

#include "numbers.h"

namespace tinyaot::cli {
namespace {

// A call of tinyaot_op_boundary and its return (tools/qemu/tinyaot-qemu
// takes them off every segment).
constexpr uint64_t kBoundaryInstructions = 2;

// "12.34", or "-" where the operation has no MACs (or they are unknown).
std::string per_mac(uint64_t instructions, bool macs_known, uint64_t macs) {
  if (!macs_known || macs == 0) return "-";
  char text[32];
  std::snprintf(text, sizeof text, "%.2f",
                static_cast<double>(instructions) / static_cast<double>(macs));
  return text;
}

double share_of(uint64_t part, uint64_t whole) {
  return whole == 0 ? 0.0 : 100.0 * static_cast<double>(part) / static_cast<double>(whole);
}

std::string percent(uint64_t part, uint64_t whole) {
  char text[32];
  std::snprintf(text, sizeof text, "%.1f%%", share_of(part, whole));
  return text;
}

std::string pad_left(const std::string& s, size_t width) {
  return s.size() >= width ? s : std::string(width - s.size(), ' ') + s;
}

std::string pad_right(const std::string& s, size_t width) {
  return s.size() >= width ? s : s + std::string(width - s.size(), ' ');
}

std::string row(const std::string& index, const std::string& op, const std::string& variant,
                const std::string& macs, const std::string& instructions, const std::string& ratio,
                const std::string& share) {
  return pad_left(index, 4) + "  " + pad_right(op, 18) + " " + pad_right(variant, 30) +
         pad_left(macs, 13) + pad_left(instructions, 14) + pad_left(ratio, 11) +
         pad_left(share, 8) + "\n";
}

}  // namespace

PerOpProfile per_op_profile(const nlohmann::json& report, const nlohmann::json& profiled,
                            const nlohmann::json& unprofiled) {
  const nlohmann::json& ops = report.at("operations");
  const nlohmann::json& segments = profiled.at("segments");
  const nlohmann::json& spans = profiled.at("instructions");
  PerOpProfile p;
  const size_t expected = ops.size() + 2;
  if (!segments.is_array() || segments.empty() || segments.size() != spans.size())
    throw std::runtime_error("the profiling run reported no per-operation counts");
  std::vector<uint64_t> sums(expected, 0);
  for (size_t run = 0; run < segments.size(); ++run) {
    const nlohmann::json& inference = segments[run];
    if (inference.size() != expected)
      throw std::runtime_error("the profiling run reported " + std::to_string(inference.size()) +
                               " segments for a program of " + std::to_string(ops.size()) +
                               " operations (expected " + std::to_string(expected) + ")");
    uint64_t sum = 0;
    for (size_t k = 0; k < expected; ++k) {
      sums[k] += inference[k].get<uint64_t>();
      sum += inference[k].get<uint64_t>();
    }
    p.profiled_all += sum;
    // Every boundary between two segments costs its call and its return.
    if (sum + kBoundaryInstructions * (expected - 1) != spans[run].get<uint64_t>())
      throw std::runtime_error("the profiling run's segments (" + std::to_string(sum) +
                               " instructions) do not add up to its span (" + spans[run].dump() +
                               ")");
  }
  const uint64_t runs = segments.size();
  p.inferences = runs;
  for (const nlohmann::json& count : unprofiled.at("instructions"))
    p.unprofiled_all += count.get<uint64_t>();
  p.whole_inference = unprofiled.at("instructions_mean").get<uint64_t>();
  // Rows: means rounded to nearest. Total: the mean of the whole spans,
  // rounded down as tinyaot-qemu rounds instructions_mean.
  const auto mean = [runs](uint64_t sum) { return (sum + runs / 2) / runs; };
  p.before_first = mean(sums.front());
  p.after_last = mean(sums.back());
  p.profiled_total = p.profiled_all / runs;
  for (size_t i = 0; i < ops.size(); ++i) {
    const nlohmann::json& o = ops[i];
    OpProfile op;
    op.index = static_cast<uint32_t>(i);
    op.op_type = o.value("type", "");
    op.variant = o.at("kernel").get<std::string>();
    op.macs_known = o.contains("macs");
    op.macs = op.macs_known ? o["macs"].get<uint64_t>() : 0;
    op.instructions = mean(sums[i + 1]);
    p.macs += op.macs;
    p.ops.push_back(op);
  }
  return p;
}

std::string per_op_table(const PerOpProfile& p) {
  std::ostringstream s;
  const uint64_t total = p.profiled_total;
  bool all_macs = true;
  for (const OpProfile& op : p.ops) all_macs = all_macs && op.macs_known;
  s << "\nper operation, in execution order:\n"
    << row("#", "operator", "variant", "MACs", "instructions", "instr/MAC", "share");
  for (const OpProfile& op : p.ops)
    s << row(std::to_string(op.index), op.op_type.empty() ? "?" : op.op_type, op.variant,
             op.macs_known ? with_commas(op.macs) : "?", with_commas(op.instructions),
             per_mac(op.instructions, op.macs_known, op.macs), percent(op.instructions, total));
  s << row("", "(runtime)", "before the first operation", "", with_commas(p.before_first), "",
           percent(p.before_first, total))
    << row("", "(runtime)", "after the last operation", "", with_commas(p.after_last), "",
           percent(p.after_last, total))
    << row("", "total", std::to_string(p.ops.size()) + " operations",
           all_macs ? with_commas(p.macs) : "?", with_commas(total),
           per_mac(total, all_macs, p.macs), percent(total, total));
  s << "whole inference on the unprofiled firmware: " << with_commas(p.whole_inference)
    << " instructions";
  if (p.inferences > 1)
    s << " (mean of " << p.inferences << " inferences; each row is a mean, rounded)";
  if (p.profiled_all == p.unprofiled_all) {
    s << (p.inferences > 1 ? "; summed over the inferences, the rows give the same count\n"
                           : ", the total above\n");
  } else {
    // Only the executor's loop differs between the two firmwares.
    const bool more = p.profiled_all > p.unprofiled_all;
    s << "; over " << p.inferences << " inference(s) the rows count "
      << with_commas(more ? p.profiled_all - p.unprofiled_all : p.unprofiled_all - p.profiled_all)
      << (more ? " more" : " fewer")
      << " (the executor's loop compiles differently around the profiling calls)\n";
  }
  if (!all_macs) s << "MACs marked ? are unknown: the program was compiled with --strip\n";
  return s.str();
}

nlohmann::json per_op_json(const PerOpProfile& p) {
  nlohmann::json ops = nlohmann::json::array();
  for (const OpProfile& op : p.ops) {
    nlohmann::json o = {{"index", op.index},
                        {"operator", op.op_type},
                        {"variant", op.variant},
                        {"instructions", op.instructions},
                        {"share", share_of(op.instructions, p.profiled_total) / 100.0}};
    o["macs"] = op.macs_known ? nlohmann::json(op.macs) : nlohmann::json();
    o["instructions_per_mac"] =
        op.macs_known && op.macs != 0
            ? nlohmann::json(static_cast<double>(op.instructions) / static_cast<double>(op.macs))
            : nlohmann::json();
    ops.push_back(o);
  }
  return {{"operations", ops},
          {"runtime_before_first_operation", p.before_first},
          {"runtime_after_last_operation", p.after_last},
          {"total_instructions", p.profiled_total},
          {"total_macs", p.macs},
          {"whole_inference_unprofiled", p.whole_inference},
          {"inferences", p.inferences},
          {"all_inferences_profiled", p.profiled_all},
          {"all_inferences_unprofiled", p.unprofiled_all}};
}

}  // namespace tinyaot::cli
