// `tinyaot bench --per-op`: where the instructions of one inference go.
// A profiling firmware (targets/: TINYAOT_PROFILE_OPS) marks each
// operation; tools/qemu/tinyaot-qemu --per-op returns the instruction
// count of every segment between marks. This file pairs those counts with
// the program's own description of its operations (operator, kernel
// variant, MACs from the compiler's debug info) and lays out the table.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace tinyaot::cli {

struct OpProfile {
  uint32_t index = 0;
  std::string op_type;  // "CONV_2D"; empty when the program was stripped
  std::string variant;  // the kernel, e.g. "conv2d_s8_1x1"
  bool macs_known = false;
  uint64_t macs = 0;
  uint64_t instructions = 0;
};

struct PerOpProfile {
  std::vector<OpProfile> ops;  // in execution order
  // The runtime's own work outside every operation: entry checks before
  // the first, the return after the last.
  uint64_t before_first = 0, after_last = 0;
  uint64_t profiled_total = 0;   // mean of ops + before + after, by construction
  uint64_t whole_inference = 0;  // mean of the same inferences on the normal firmware
  uint64_t macs = 0;             // over the operations whose MACs are known
  // Over all inferences, unrounded: what the profiling firmware's segments
  // add up to, and what the normal firmware counts.
  uint64_t inferences = 0, profiled_all = 0, unprofiled_all = 0;
};

// `report`: tinyaot::program_report of the program. `profiled`: the JSON
// of tinyaot-qemu --measure --per-op, whose "segments" hold one list of
// num_ops + 2 counts per inference (each row shows the mean, rounded);
// `unprofiled`: the same inferences measured without --per-op.
// Throws std::runtime_error when the counts do not match the program or
// do not add up to the profiling run's span.
PerOpProfile per_op_profile(const nlohmann::json& report, const nlohmann::json& profiled,
                            const nlohmann::json& unprofiled);

std::string per_op_table(const PerOpProfile& profile);
nlohmann::json per_op_json(const PerOpProfile& profile);

}  // namespace tinyaot::cli
