// The compiler's front door: model bytes (.tflite or .onnx) in, a planned
// .tao program out.
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
  // Every tensor's name in the debug info, not only the inputs' and
  // outputs' (each converter-made name can run to hundreds of bytes).
  bool keep_names = false;
  // By default no kernel's scratch may raise the arena above what the
  // activations alone need (a scratch-free variant is used there instead);
  // true keeps the fastest variant everywhere.
  bool prefer_speed = false;
  // ONNX models: rank-4 inputs and outputs in NHWC, the kernels' layout,
  // rather than the model's NCHW (no transposes at the boundary).
  bool nhwc_io = false;
  // RAM the part gives the model (arena + runtime context); 0: no limit. A
  // model that needs more is refused at compile time, naming both figures.
  uint64_t ram_limit_bytes = 0;
  std::function<void(const std::string&)> progress;  // one line per stage
};

// A storage tensor that lives inside another's bytes rather than in a
// buffer of its own.
struct Placement {
  int32_t host = -1;    // storage tensor id holding it; -1: its own buffer
  uint32_t offset = 0;  // bytes from the host's start
};

// Everything the compiler decided, kept for reports and tests.
struct Compilation {
  Graph graph;                 // after the pipeline
  std::vector<LoweredOp> ops;  // in execution order
  std::vector<int32_t> op_of;  // graph operation index of each lowered op
  std::vector<BufferRequest> buffers;
  std::vector<int32_t> buffer_of_tensor;   // storage tensor id -> buffer index, -1 when none
  std::vector<int32_t> scratch_buffer;     // op index -> buffer index, -1 when none
  std::vector<Placement> slice_placement;  // storage tensor id -> concatenation slice
  std::vector<Placement> placement;        // the above plus in-place outputs
  Plan plan;
  std::vector<uint8_t> program;  // the .tao bytes
};

// Where tensor `id` starts in the arena under the plan (follows aliases
// and placements).
uint32_t arena_offset_of(const Compilation& c, int32_t id);

// Throws CompileError with a message naming what and where.
Compilation compile_model(const uint8_t* model, size_t bytes, const CompileOptions& options);

// Parses a --target core name ("cortex-m4", also "m4"); throws on unknown.
Core parse_core(const std::string& name);
// Validates --isa against the core: it may lower the class, never raise it.
IsaClass resolve_isa(Core core, const std::string& isa);
Rounding parse_rounding(const std::string& name);

}  // namespace tinyaot
