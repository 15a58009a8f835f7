#include "compiler/compile.h"

#include <algorithm>
#include <map>
#include <set>

#include "compiler/emit/program_writer.h"
#include "compiler/import/import_model.h"
#include "compiler/pipeline.h"
#include "compiler/planner/in_place.h"

namespace tinyaot {
namespace {

// Lifetimes of every arena buffer, in lowered-operation indices.
void collect_buffers(Compilation& c) {
  const Graph& g = c.graph;
  const int32_t num_ops = static_cast<int32_t>(c.ops.size());
  const int32_t last_step = std::max(0, num_ops - 1);
  c.buffers.clear();
  c.buffer_of_tensor.assign(g.tensors.size(), -1);
  place_in_place_outputs(c);
  auto touch = [&](int32_t tensor, int32_t step) {
    uint32_t offset_in_root = 0;
    const int32_t storage = placement_root(c.placement, g.storage_of(tensor), &offset_in_root);
    const Tensor& t = g.tensors[static_cast<size_t>(storage)];
    if (t.is_constant()) return;
    int32_t& index = c.buffer_of_tensor[static_cast<size_t>(storage)];
    if (index < 0) {
      BufferRequest request;
      request.name = t.name.empty() ? "tensor" + std::to_string(storage) : t.name;
      request.tensor = storage;
      request.bytes = static_cast<uint32_t>(t.bytes());
      request.first_op = step;
      request.last_op = step;
      index = static_cast<int32_t>(c.buffers.size());
      c.buffers.push_back(request);
    }
    BufferRequest& b = c.buffers[static_cast<size_t>(index)];
    // State outlives every run: alive at every operation, so that no
    // other buffer ever takes its bytes.
    b.first_op = t.is_variable ? 0 : std::min(b.first_op, step);
    b.last_op = t.is_variable ? last_step : std::max(b.last_op, step);
  };
  for (int32_t input : g.inputs) touch(input, 0);
  for (int32_t i = 0; i < num_ops; ++i) {
    for (const LoweredOperand& operand : c.ops[static_cast<size_t>(i)].inputs)
      if (operand.tensor >= 0) touch(operand.tensor, i);
    for (int32_t output : c.ops[static_cast<size_t>(i)].outputs) touch(output, i);
  }
  for (int32_t output : g.outputs) touch(output, last_step);
  c.scratch_buffer.assign(c.ops.size(), -1);
  for (int32_t i = 0; i < num_ops; ++i) {
    const LoweredOp& op = c.ops[static_cast<size_t>(i)];
    if (op.scratch_bytes == 0) continue;
    BufferRequest request;
    request.name = std::string("scratch:") + find_kernel(static_cast<uint32_t>(op.kernel))->name +
                   "#" + std::to_string(i);
    request.kind = BufferRequest::Kind::kScratch;
    request.tensor = i;
    request.bytes = op.scratch_bytes;
    request.first_op = i;
    request.last_op = i;
    c.scratch_buffer[static_cast<size_t>(i)] = static_cast<int32_t>(c.buffers.size());
    c.buffers.push_back(request);
  }
}

// Tensors each lowered op reads and writes, at storage level.
struct OpTensors {
  std::vector<int32_t> reads, writes;
};

std::vector<OpTensors> op_tensors(const Compilation& c) {
  std::vector<OpTensors> out(c.ops.size());
  for (size_t i = 0; i < c.ops.size(); ++i) {
    for (const LoweredOperand& operand : c.ops[i].inputs)
      if (operand.tensor >= 0 &&
          !c.graph.tensors[static_cast<size_t>(operand.tensor)].is_constant())
        out[i].reads.push_back(c.graph.storage_of(operand.tensor));
    for (int32_t t : c.ops[i].outputs) out[i].writes.push_back(c.graph.storage_of(t));
  }
  return out;
}

// A topological order that, at each step, runs the ready operation leaving
// the fewest bytes alive: on graphs that branch (residual adds,
// concatenations) finishing one branch before starting the next lowers the
// peak. Returns an order of op indices.
std::vector<size_t> memory_greedy_order(const Compilation& c) {
  const std::vector<OpTensors> io = op_tensors(c);
  const size_t n = c.ops.size();
  std::map<int32_t, size_t> producer;
  std::map<int32_t, size_t> remaining_readers;
  for (size_t i = 0; i < n; ++i) {
    for (int32_t t : io[i].writes) producer[t] = i;
    for (int32_t t : io[i].reads) ++remaining_readers[t];
  }
  std::vector<size_t> order;
  std::vector<bool> done(n, false);
  std::set<int32_t> outputs;
  for (int32_t t : c.graph.outputs) outputs.insert(c.graph.storage_of(t));
  auto bytes_of = [&](int32_t t) { return c.graph.tensors[static_cast<size_t>(t)].bytes(); };
  for (size_t step = 0; step < n; ++step) {
    size_t best = n;
    int64_t best_delta = 0;
    for (size_t i = 0; i < n; ++i) {
      if (done[i]) continue;
      bool ready = true;
      for (int32_t t : io[i].reads)
        if (producer.count(t) && !done[producer[t]]) ready = false;
      if (!ready) continue;
      int64_t delta = 0;  // bytes allocated minus bytes freed by running i
      for (int32_t t : io[i].writes) delta += bytes_of(t);
      for (int32_t t : io[i].reads)
        if (remaining_readers[t] == 1 && !outputs.count(t)) delta -= bytes_of(t);
      if (best == n || delta < best_delta) {
        best = i;
        best_delta = delta;
      }
    }
    done[best] = true;
    for (int32_t t : io[best].reads) --remaining_readers[t];
    order.push_back(best);
  }
  return order;
}

void apply_order(Compilation& c, const std::vector<size_t>& order) {
  std::vector<LoweredOp> ops;
  std::vector<int32_t> op_of;
  for (size_t i : order) {
    ops.push_back(std::move(c.ops[i]));
    op_of.push_back(c.op_of[i]);
  }
  c.ops = std::move(ops);
  c.op_of = std::move(op_of);
}

// Keeps the model's order unless another valid order has a lower peak.
void choose_schedule(Compilation& c) {
  Compilation trial;
  trial.graph = c.graph;
  trial.ops = c.ops;
  trial.op_of = c.op_of;
  trial.slice_placement = c.slice_placement;
  collect_buffers(trial);
  const uint32_t original = lower_bound_bytes(trial.buffers);
  const std::vector<size_t> order = memory_greedy_order(c);
  Compilation reordered;
  reordered.graph = c.graph;
  reordered.ops = c.ops;
  reordered.op_of = c.op_of;
  reordered.slice_placement = c.slice_placement;
  apply_order(reordered, order);
  collect_buffers(reordered);
  if (lower_bound_bytes(reordered.buffers) < original) apply_order(c, order);
}

// Bytes alive during each operation (aligned as the planner places them),
// with and without the operation's own scratch.
struct LiveBytes {
  std::vector<uint64_t> with_scratch, without_scratch;
};

LiveBytes live_bytes(const Compilation& c) {
  LiveBytes live;
  live.with_scratch.assign(c.ops.size(), 0);
  live.without_scratch.assign(c.ops.size(), 0);
  for (const BufferRequest& b : c.buffers) {
    const uint64_t bytes = align_up(b.bytes, kPlanAlignment);
    for (int32_t step = b.first_op; step <= b.last_op; ++step) {
      live.with_scratch[static_cast<size_t>(step)] += bytes;
      if (b.kind != BufferRequest::Kind::kScratch)
        live.without_scratch[static_cast<size_t>(step)] += bytes;
    }
  }
  return live;
}

// Scratch must not be what sets the arena: at each operation where the
// scratch lifts the bytes alive to the peak, re-lower with a variant that
// needs less (the next-highest step's bytes leave the room it may use).
// Slower there, but the arena stays at the activations' own bound.
void keep_scratch_off_the_peak(Compilation& c, const Target& target) {
  for (size_t round = 0; round < c.ops.size(); ++round) {
    const LiveBytes live = live_bytes(c);
    const uint64_t peak = *std::max_element(live.with_scratch.begin(), live.with_scratch.end());
    const uint64_t floor =
        *std::max_element(live.without_scratch.begin(), live.without_scratch.end());
    if (peak <= floor) return;
    bool changed = false;
    for (size_t i = 0; i < c.ops.size(); ++i) {
      if (live.with_scratch[i] != peak || c.ops[i].scratch_bytes == 0) continue;
      Target capped = target;
      capped.max_scratch_bytes = static_cast<uint32_t>(
          std::max<uint64_t>(floor, live.without_scratch[i]) - live.without_scratch[i]);
      LoweredOp relowered =
          lower_operation(c.graph, c.graph.operations[static_cast<size_t>(c.op_of[i])], capped);
      if (align_up(relowered.scratch_bytes, kPlanAlignment) <
          align_up(c.ops[i].scratch_bytes, kPlanAlignment)) {
        c.ops[i] = std::move(relowered);
        changed = true;
      }
    }
    if (!changed) return;
    collect_buffers(c);
  }
}

// The planner and the program format count bytes in 32 bits. When every
// buffer fits side by side below 4 GiB no offset can wrap; past that the
// model is far beyond any microcontroller, so it is refused by name.
void refuse_unaddressable_arena(const std::vector<BufferRequest>& buffers) {
  uint64_t total = 0;
  for (const BufferRequest& b : buffers)
    total += (uint64_t{b.bytes} + kPlanAlignment - 1) / kPlanAlignment * kPlanAlignment;
  if (total <= UINT32_MAX - kPlanAlignment) return;
  throw CompileError("model: its tensors and scratch total " + std::to_string(total) +
                     " bytes; the arena of a program is limited to 4 GiB");
}

}  // namespace

Core parse_core(const std::string& name) {
  std::string wanted = name;
  if (wanted.rfind("cortex-", 0) != 0) wanted = "cortex-" + wanted;
  if (wanted == "cortex-m0+") wanted = "cortex-m0plus";
  for (uint32_t i = 0; i < static_cast<uint32_t>(Core::kCount); ++i)
    if (wanted == core_name(static_cast<Core>(i))) return static_cast<Core>(i);
  std::string known;
  for (uint32_t i = 0; i < static_cast<uint32_t>(Core::kCount); ++i)
    known += std::string(known.empty() ? "" : ", ") + core_name(static_cast<Core>(i));
  throw CompileError("unknown target '" + name + "'; known targets: " + known);
}

IsaClass resolve_isa(Core core, const std::string& isa) {
  const IsaClass native = core_isa(core);
  if (isa.empty()) return native;
  IsaClass wanted;
  if (isa == "scalar") {
    wanted = IsaClass::kScalar;
  } else if (isa == "dsp") {
    wanted = IsaClass::kDsp;
  } else if (isa == "mve") {
    wanted = IsaClass::kMve;
  } else {
    throw CompileError("unknown ISA class '" + isa + "'; use scalar, dsp or mve");
  }
  if (static_cast<int>(wanted) > static_cast<int>(native)) {
    const char* lacks = wanted == IsaClass::kMve ? "the M-profile Vector Extension (MVE, Helium)"
                                                 : "the DSP extension (SIMD multiply-accumulate)";
    throw CompileError(std::string("--isa ") + isa + " is not available on " + core_name(core) +
                       ": it lacks " + lacks + " (its ISA class is " + isa_name(native) + ")");
  }
  return wanted;
}

Rounding parse_rounding(const std::string& name) {
  if (name == "tflm" || name == "double") return Rounding::kDouble;
  if (name == "single") return Rounding::kSingle;
  if (name == "onnx") return Rounding::kOnnx;
  throw CompileError("unknown rounding mode '" + name + "'; use tflm, single or onnx");
}

uint32_t arena_offset_of(const Compilation& c, int32_t id) {
  uint32_t offset = 0;
  const int32_t root = placement_root(c.placement, c.graph.storage_of(id), &offset);
  const int32_t buffer = c.buffer_of_tensor[static_cast<size_t>(root)];
  return c.plan.offsets[static_cast<size_t>(buffer)] + offset;
}

Compilation compile_model(const uint8_t* model, size_t bytes, const CompileOptions& options) {
  auto progress = [&](const std::string& line) {
    if (options.progress) options.progress(line);
  };
  Compilation c;
  progress("import");
  OnnxImportOptions onnx;
  onnx.nhwc_io = options.nhwc_io;
  c.graph = import_model(model, bytes, onnx);
  run_pipeline(c.graph, options.target,
               [&](const PassInfo& pass) { progress(std::string("pass ") + pass.name); });
  progress("lower");
  for (size_t i = 0; i < c.graph.operations.size(); ++i) {
    c.ops.push_back(lower_operation(c.graph, c.graph.operations[i], options.target));
    c.op_of.push_back(static_cast<int32_t>(i));
  }
  if (c.ops.empty()) throw CompileError("model: no operations are left to run after the pipeline");
  progress("plan");
  place_concatenation_slices(c);
  choose_schedule(c);
  collect_buffers(c);
  if (!options.prefer_speed) keep_scratch_off_the_peak(c, options.target);
  refuse_unaddressable_arena(c.buffers);
  c.plan = plan_memory(c.buffers);
  const std::string problem = verify_plan(c.buffers, c.plan);
  if (!problem.empty()) throw CompileError("internal: memory plan is unsound: " + problem);
  const uint64_t ram = uint64_t{c.plan.arena_bytes} + runtime_context_bytes();
  if (options.ram_limit_bytes != 0 && ram > options.ram_limit_bytes)
    throw CompileError("model: needs " + std::to_string(ram) + " bytes of RAM (arena " +
                       std::to_string(c.plan.arena_bytes) + " + runtime context " +
                       std::to_string(runtime_context_bytes()) + "), " +
                       std::to_string(ram - options.ram_limit_bytes) +
                       " more than the RAM limit of " + std::to_string(options.ram_limit_bytes) +
                       " bytes");
  progress("emit");
  c.program = write_program(c, options);
  return c;
}

}  // namespace tinyaot
