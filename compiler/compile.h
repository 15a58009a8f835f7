// The compiler's front door: .tflite bytes in, a planned .tao program out.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "compiler/ir/graph.h"
#include "compiler/lower/lowering.h"
#include "compiler/planner/planner.h"
#include "tinyaot/runtime.h"

namespace tinyaot {

struct CompileOptions {
  Target target;
  std::string model_name = "model";
  bool debug_info = true;  // embed names and the plan for `tinyaot report`
  std::function<void(const std::string&)> progress;  // one line per stage
};

// Everything the compiler decided, kept for reports and tests.
struct Compilation {
  Graph graph;                 // after the pipeline
  std::vector<LoweredOp> ops;  // in execution order
  std::vector<int32_t> op_of;  // graph operation index of each lowered op
  std::vector<BufferRequest> buffers;
  std::vector<int32_t> buffer_of_tensor;  // storage tensor id -> buffer index, -1 when none
  std::vector<int32_t> scratch_buffer;    // op index -> buffer index, -1 when none
  Plan plan;
  std::vector<uint8_t> program;  // the .tao bytes
};

// Throws CompileError with a message naming what and where.
Compilation compile_model(const uint8_t* tflite, size_t bytes, const CompileOptions& options);

// Parses a --target core name ("cortex-m4", also "m4"); throws on unknown.
Core parse_core(const std::string& name);
// Validates --isa against the core: it may lower the class, never raise it.
IsaClass resolve_isa(Core core, const std::string& isa);
Rounding parse_rounding(const std::string& name);

}  // namespace tinyaot
