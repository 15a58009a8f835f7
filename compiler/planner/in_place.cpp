#include "compiler/planner/in_place.h"

#include <algorithm>
#include <set>

#include "tinyaot/kernel_abi.h"

namespace tinyaot {
namespace {

std::set<int32_t> storages_of(const Graph& g, const std::vector<int32_t>& ids) {
  std::set<int32_t> out;
  for (int32_t id : ids) out.insert(g.storage_of(id));
  return out;
}

// The input tensor whose bytes op's output may take over: the first its
// variant declares safe in place (KernelDescriptor::in_place_inputs, what
// the loader allows) with as many elements as the output; -1 when none.
int32_t in_place_candidate(const Graph& g, const LoweredOp& op) {
  const KernelDescriptor* kernel = find_kernel(static_cast<uint32_t>(op.kernel));
  if (kernel == nullptr || op.outputs.size() != 1) return -1;
  const int64_t elements = g.tensors[static_cast<size_t>(op.outputs[0])].num_elements();
  for (size_t k = 0; k < op.inputs.size(); ++k) {
    const int32_t tensor = op.inputs[k].tensor;
    if ((kernel->in_place_inputs & operand_bit(static_cast<uint32_t>(k))) == 0 || tensor < 0)
      continue;
    if (g.tensors[static_cast<size_t>(tensor)].num_elements() == elements) return tensor;
  }
  return -1;
}

}  // namespace

int32_t placement_root(const std::vector<Placement>& placement, int32_t storage, uint32_t* offset) {
  while (static_cast<size_t>(storage) < placement.size() &&
         placement[static_cast<size_t>(storage)].host >= 0) {
    *offset += placement[static_cast<size_t>(storage)].offset;
    storage = placement[static_cast<size_t>(storage)].host;
  }
  return storage;
}

void place_concatenation_slices(Compilation& c) {
  const Graph& g = c.graph;
  c.slice_placement.assign(g.tensors.size(), Placement{});
  const std::set<int32_t> graph_inputs = storages_of(g, g.inputs);
  const std::set<int32_t> graph_outputs = storages_of(g, g.outputs);
  std::set<int32_t> produced;
  for (const LoweredOp& op : c.ops)
    for (int32_t t : op.outputs) produced.insert(g.storage_of(t));

  std::set<int32_t> grouped;  // already a host or a slice
  std::vector<bool> removed(c.ops.size(), false);
  for (size_t i = 0; i < c.ops.size(); ++i) {
    const LoweredOp& op = c.ops[i];
    if (op.input_slices.empty() || op.input_slices.size() != op.inputs.size()) continue;
    const int32_t output = g.storage_of(op.outputs[0]);
    if (grouped.count(output)) continue;
    // Each input must be an activation of its own, written by one operation
    // of this program and read by nobody outside it (not a model input or
    // output), so that its bytes can be the output's bytes from birth.
    std::set<int32_t> slices;
    bool all = true;
    for (size_t k = 0; k < op.inputs.size() && all; ++k) {
      const int32_t tensor = op.inputs[k].tensor;
      if (tensor < 0) {
        all = false;
        break;
      }
      const int32_t storage = g.storage_of(tensor);
      const Tensor& t = g.tensors[static_cast<size_t>(storage)];
      all = !t.is_constant() && !t.is_variable && produced.count(storage) &&
            !graph_inputs.count(storage) && !graph_outputs.count(storage) &&
            !grouped.count(storage) && storage != output && slices.insert(storage).second &&
            g.tensors[static_cast<size_t>(tensor)].bytes() == t.bytes();
    }
    if (!all) continue;
    for (size_t k = 0; k < op.inputs.size(); ++k) {
      const int32_t storage = g.storage_of(op.inputs[k].tensor);
      c.slice_placement[static_cast<size_t>(storage)] = {output, op.input_slices[k]};
      grouped.insert(storage);
    }
    grouped.insert(output);
    removed[i] = true;
  }

  std::vector<LoweredOp> ops;
  std::vector<int32_t> op_of;
  for (size_t i = 0; i < c.ops.size(); ++i) {
    if (removed[i]) continue;
    ops.push_back(std::move(c.ops[i]));
    op_of.push_back(c.op_of[i]);
  }
  c.ops = std::move(ops);
  c.op_of = std::move(op_of);
}

void place_in_place_outputs(Compilation& c) {
  const Graph& g = c.graph;
  c.placement = c.slice_placement;
  c.placement.resize(g.tensors.size());
  std::vector<bool> grouped(g.tensors.size(), false);
  for (size_t s = 0; s < c.slice_placement.size(); ++s) {
    const int32_t host = c.slice_placement[s].host;
    if (host < 0) continue;
    grouped[s] = true;
    grouped[static_cast<size_t>(host)] = true;
  }
  const std::set<int32_t> graph_outputs = storages_of(g, g.outputs);
  std::vector<int32_t> last_reader(g.tensors.size(), -1);
  for (size_t i = 0; i < c.ops.size(); ++i)
    for (const LoweredOperand& operand : c.ops[i].inputs)
      if (operand.tensor >= 0)
        last_reader[static_cast<size_t>(g.storage_of(operand.tensor))] = static_cast<int32_t>(i);

  for (size_t i = 0; i < c.ops.size(); ++i) {
    const LoweredOp& op = c.ops[i];
    const int32_t tensor = in_place_candidate(g, op);
    if (tensor < 0) continue;
    const int32_t input = g.storage_of(tensor);
    const int32_t output = g.storage_of(op.outputs[0]);
    const Tensor& in = g.tensors[static_cast<size_t>(input)];
    const Tensor& out = g.tensors[static_cast<size_t>(output)];
    // The model's outputs must survive the run, state every run; slices
    // already share bytes
    // with another tensor. A model input is like any other buffer: the
    // caller writes it before each run and its bytes are free after its
    // last reader (a float32 input quantized in place needs no second
    // buffer). The output may be narrower than the input, never wider.
    if (input == output || in.is_constant() || in.is_variable || out.is_variable ||
        graph_outputs.count(input) || last_reader[static_cast<size_t>(input)] != int32_t(i) ||
        grouped[static_cast<size_t>(input)] || grouped[static_cast<size_t>(output)] ||
        c.placement[static_cast<size_t>(output)].host >= 0 || out.bytes() > in.bytes())
      continue;
    c.placement[static_cast<size_t>(output)] = {input, 0};
  }
}

}  // namespace tinyaot
