#include "compiler/emit/program_writer.h"

#include <cstring>
#include <map>
#include <nlohmann/json.hpp>

#include "compiler/compile.h"
#include "compiler/planner/in_place.h"

namespace tinyaot {
namespace {

class ByteBuffer {
 public:
  uint32_t size() const { return static_cast<uint32_t>(bytes_.size()); }
  void align(uint32_t alignment) { bytes_.resize(align_up(size(), alignment), 0); }
  uint32_t append(const void* data, size_t count) {
    const uint32_t at = size();
    const auto* p = static_cast<const uint8_t*>(data);
    bytes_.insert(bytes_.end(), p, p + count);
    return at;
  }
  template <typename T>
  uint32_t append_items(const std::vector<T>& items) {
    return append(items.data(), items.size() * sizeof(T));
  }
  std::vector<uint8_t>& bytes() { return bytes_; }

 private:
  std::vector<uint8_t> bytes_;
};

void copy_name(char (&out)[kNameBytes], const std::string& name) {
  std::memset(out, 0, kNameBytes);
  std::memcpy(out, name.data(), std::min<size_t>(name.size(), kNameBytes - 1));
}

IoDesc io_desc(const Compilation& c, int32_t tensor_id) {
  const Graph& g = c.graph;
  const Tensor& t = g.tensors[static_cast<size_t>(tensor_id)];
  IoDesc d{};
  copy_name(d.name, t.name);
  d.dtype = static_cast<uint32_t>(t.dtype);
  d.zero_point = t.quant.zero_point();
  d.scale = t.quant.scale();
  d.rank = static_cast<uint32_t>(t.shape.size());
  for (size_t i = 0; i < t.shape.size(); ++i) d.dims[i] = t.shape[i];
  d.arena_offset = arena_offset_of(c, tensor_id);
  d.bytes = static_cast<uint32_t>(t.bytes());
  return d;
}

// The debug section (docs/program-format.md): what `tinyaot report` shows
// that the runtime's tables do not hold, in arrays rather than objects, as
// it ships in flash with the program. Only the model's inputs and outputs
// keep their tensor names unless options.keep_names (converter-made names
// run to hundreds of bytes each); scratch buffers are in the operation
// records.
nlohmann::json debug_json(const Compilation& c, const CompileOptions& options) {
  using nlohmann::json;
  const Graph& g = c.graph;
  json j;
  j["model"] = options.model_name;
  j["planner"] = c.plan.strategy;
  j["lower_bound_bytes"] = c.plan.lower_bound_bytes;
  json types = json::array(), ops = json::array();
  std::map<std::string, size_t> type_index;
  for (size_t i = 0; i < c.ops.size(); ++i) {
    const std::string type = op_type_name(g.operations[static_cast<size_t>(c.op_of[i])].type);
    if (!type_index.count(type)) {
      type_index[type] = types.size();
      types.push_back(type);
    }
    // [type, MACs, why the variant (VariantChoice::Reason), candidates,
    //  and for kArena the faster variant passed over and its scratch]
    const VariantChoice& why = c.ops[i].choice;
    json op = {type_index[type], c.ops[i].macs, static_cast<unsigned>(why.reason), why.candidates};
    if (why.reason == VariantChoice::Reason::kArena) {
      op.push_back(why.faster);
      op.push_back(why.faster_scratch_bytes);
    }
    ops.push_back(op);
  }
  j["types"] = types;
  j["operations"] = ops;
  // The node each operation comes from, where the model names its nodes
  // (ONNX): one name per operation, "" for one without.
  json names = json::array();
  bool named = false;
  for (size_t i = 0; i < c.ops.size(); ++i) {
    const std::string& name = g.operations[static_cast<size_t>(c.op_of[i])].source_name;
    named = named || !name.empty();
    names.push_back(name);
  }
  if (named) j["sources"] = names;
  std::vector<bool> io_tensor(g.tensors.size(), false);
  for (int32_t t : g.inputs) io_tensor[static_cast<size_t>(t)] = true;
  for (int32_t t : g.outputs) io_tensor[static_cast<size_t>(t)] = true;
  // Tensors that live inside another's buffer (concatenation slices,
  // in-place outputs), listed with the buffer that holds them.
  std::vector<json> holds(c.buffers.size(), json::array());
  for (size_t s = 0; options.keep_names && s < c.placement.size(); ++s) {
    if (c.placement[s].host < 0) continue;
    uint32_t offset = 0;
    const int32_t root = placement_root(c.placement, static_cast<int32_t>(s), &offset);
    const int32_t buffer = c.buffer_of_tensor[static_cast<size_t>(root)];
    if (buffer < 0) continue;
    holds[static_cast<size_t>(buffer)].push_back({g.tensors[s].name, offset});
  }
  json buffers = json::array();
  for (size_t i = 0; i < c.buffers.size(); ++i) {
    const BufferRequest& b = c.buffers[i];
    if (b.kind != BufferRequest::Kind::kTensor) continue;
    json o = {c.plan.offsets[i], b.bytes, b.first_op, b.last_op};
    if (options.keep_names || io_tensor[static_cast<size_t>(b.tensor)] ||
        g.tensors[static_cast<size_t>(b.tensor)].is_variable)
      o.push_back(b.name);
    if (!holds[i].empty()) o.push_back(holds[i]);
    buffers.push_back(o);
  }
  j["buffers"] = buffers;
  return j;
}

// The kernel's own validate function, the one the loader runs, applied at
// compile time to the same sizes and constants: a lowering that disagrees
// with its kernel must fail here, naming the operation, not leave a program
// no runtime will load.
void refuse_what_the_loader_would(const Compilation& c, size_t index,
                                  const std::vector<BufferRef>& operands,
                                  const std::vector<uint8_t>& constants) {
  const LoweredOp& op = c.ops[index];
  const KernelDescriptor* d = find_kernel(static_cast<uint32_t>(op.kernel));
  OperandView inputs[kMaxOperands] = {};
  OperandView outputs[kMaxOperands] = {};
  const size_t num_inputs = op.inputs.size();
  if (operands.size() > kMaxOperands) throw CompileError("internal: too many operands");
  for (size_t k = 0; k < operands.size(); ++k) {
    const BufferRef& ref = operands[k];
    const bool constant = ref.region == static_cast<uint32_t>(Region::kConstants);
    const OperandView view{constant ? constants.data() + ref.offset : nullptr, ref.bytes};
    (k < num_inputs ? inputs[k] : outputs[k - num_inputs]) = view;
  }
  if (d->validate(op.params.data(), inputs, static_cast<uint32_t>(num_inputs), outputs,
                  static_cast<uint32_t>(op.outputs.size())) == Status::kOk)
    return;
  const Operation& source = c.graph.operations[static_cast<size_t>(c.op_of[index])];
  throw CompileError("operator " + std::to_string(source.source_index) + " (" +
                     op_type_name(source.type) + "): its parameters are outside what kernel " +
                     d->name + " accepts");
}

}  // namespace

std::vector<uint8_t> write_program(const Compilation& c, const CompileOptions& options) {
  const Graph& g = c.graph;
  ProgramHeader h{};
  std::memcpy(h.magic, kProgramMagic, sizeof(kProgramMagic));
  h.format_version = kProgramFormatVersion;
  h.core = static_cast<uint32_t>(options.target.core);
  h.isa = static_cast<uint32_t>(options.target.isa);
  h.rounding = static_cast<uint32_t>(options.target.rounding);
  h.arena_bytes = c.plan.arena_bytes;

  std::vector<IoDesc> inputs, outputs;
  for (int32_t t : g.inputs) inputs.push_back(io_desc(c, t));
  for (int32_t t : g.outputs) outputs.push_back(io_desc(c, t));

  // Kernel table: one entry per variant used, in first-use order.
  std::vector<AbiEntry> kernels;
  std::map<KernelId, uint16_t> kernel_index;
  for (const LoweredOp& op : c.ops) {
    if (kernel_index.count(op.kernel)) continue;
    const KernelDescriptor& d = *find_kernel(static_cast<uint32_t>(op.kernel));
    AbiEntry e{};
    copy_name(e.name, d.name);
    e.kernel_id = static_cast<uint32_t>(op.kernel);
    e.version = d.version;
    e.params_bytes = d.params_bytes;
    e.min_inputs = d.min_inputs;
    e.max_inputs = d.max_inputs;
    e.num_outputs = d.num_outputs;
    e.isa = static_cast<uint8_t>(d.isa);
    e.fingerprint = abi_fingerprint(d);
    kernel_index[op.kernel] = static_cast<uint16_t>(kernels.size());
    kernels.push_back(e);
  }

  // Constants: graph constants once each, then lowering-made blobs.
  ByteBuffer constants;
  std::map<int32_t, BufferRef> constant_of_tensor;
  auto add_constant = [&](const std::vector<uint8_t>& data) {
    constants.align(kConstantAlignment);
    const uint32_t at = constants.append(data.data(), data.size());
    return BufferRef{static_cast<uint32_t>(Region::kConstants), at,
                     static_cast<uint32_t>(data.size())};
  };
  auto arena_ref = [&](int32_t tensor) {
    return BufferRef{static_cast<uint32_t>(Region::kArena), arena_offset_of(c, tensor),
                     static_cast<uint32_t>(g.tensors[static_cast<size_t>(tensor)].bytes())};
  };

  std::vector<OpRecord> records;
  std::vector<BufferRef> operands;
  ByteBuffer params;
  for (size_t i = 0; i < c.ops.size(); ++i) {
    const LoweredOp& op = c.ops[i];
    OpRecord r{};
    r.kernel = kernel_index[op.kernel];
    r.source_index =
        static_cast<uint16_t>(g.operations[static_cast<size_t>(c.op_of[i])].source_index);
    params.align(4);
    r.params_offset = params.append(op.params.data(), op.params.size());
    r.params_bytes = static_cast<uint32_t>(op.params.size());
    r.first_operand = static_cast<uint32_t>(operands.size());
    r.num_inputs = static_cast<uint8_t>(op.inputs.size());
    r.num_outputs = static_cast<uint8_t>(op.outputs.size());
    for (const LoweredOperand& operand : op.inputs) {
      if (operand.tensor < 0) {
        operands.push_back(add_constant(operand.constant));
      } else if (g.tensors[static_cast<size_t>(operand.tensor)].is_constant()) {
        auto found = constant_of_tensor.find(operand.tensor);
        if (found == constant_of_tensor.end())
          found = constant_of_tensor
                      .emplace(operand.tensor,
                               add_constant(*g.tensors[static_cast<size_t>(operand.tensor)].data))
                      .first;
        operands.push_back(found->second);
      } else {
        operands.push_back(arena_ref(operand.tensor));
      }
    }
    for (int32_t output : op.outputs) operands.push_back(arena_ref(output));
    refuse_what_the_loader_would(
        c, i, std::vector<BufferRef>(operands.begin() + r.first_operand, operands.end()),
        constants.bytes());
    if (c.scratch_buffer[i] >= 0) {
      r.scratch = {static_cast<uint32_t>(Region::kArena),
                   c.plan.offsets[static_cast<size_t>(c.scratch_buffer[i])], op.scratch_bytes};
    }
    records.push_back(r);
  }

  // State: each variable tensor's buffer, filled by a reset with its
  // int8 zero point (else 0), as TFLite Micro's ResetVariableTensors does.
  std::vector<StateRegion> state;
  for (size_t i = 0; i < c.buffers.size(); ++i) {
    const BufferRequest& b = c.buffers[i];
    if (b.kind != BufferRequest::Kind::kTensor || b.bytes == 0) continue;
    const Tensor& t = g.tensors[static_cast<size_t>(b.tensor)];
    if (!t.is_variable) continue;
    const int32_t fill = t.dtype == DType::kInt8 ? t.quant.zero_point() : 0;
    state.push_back({c.plan.offsets[i], b.bytes, static_cast<uint32_t>(fill) & 0xffu});
  }

  ByteBuffer file;
  file.append(&h, sizeof(h));
  file.align(4);
  h.num_inputs = static_cast<uint32_t>(inputs.size());
  h.inputs_offset = file.append_items(inputs);
  h.num_outputs = static_cast<uint32_t>(outputs.size());
  h.outputs_offset = file.append_items(outputs);
  h.num_ops = static_cast<uint32_t>(records.size());
  h.ops_offset = file.append_items(records);
  h.num_operands = static_cast<uint32_t>(operands.size());
  h.operands_offset = file.append_items(operands);
  h.num_kernels = static_cast<uint32_t>(kernels.size());
  h.kernels_offset = file.append_items(kernels);
  h.num_state_regions = static_cast<uint32_t>(state.size());
  h.state_regions_offset = file.append_items(state);
  file.align(4);
  h.params_bytes = params.size();
  h.params_offset = file.append(params.bytes().data(), params.size());
  file.align(kConstantAlignment);
  h.constants_bytes = constants.size();
  h.constants_offset = file.append(constants.bytes().data(), constants.size());
  if (options.debug_info) {
    const std::string text =
        debug_json(c, options).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    h.debug_bytes = static_cast<uint32_t>(text.size());
    h.debug_offset = file.append(text.data(), text.size());
  } else {
    h.debug_offset = file.size();
  }
  h.file_bytes = file.size();  // no padding after the last section: nothing reads it
  std::memcpy(file.bytes().data(), &h, sizeof(h));
  h.checksum = program_checksum(file.bytes().data(), h.file_bytes);
  std::memcpy(file.bytes().data(), &h, sizeof(h));
  return std::move(file.bytes());
}

}  // namespace tinyaot
