// The loader: every claim a program makes is checked here, before anything
// runs, so that a program that loads cannot make a kernel touch memory
// outside its operands, write over bytes it still reads, read a word off
// its boundary, or form an index past its type (docs/architecture.md).
#include <string.h>

#include "kernels/onnx_kernels.h"
#include "tinyaot/config.h"
#include "tinyaot/load_time.h"
#include "tinyaot/refusal_text.h"
#include "tinyaot/runtime.h"

namespace tinyaot {
namespace {

// The ISA class of this build, from the compiler's predefined macros. A
// unit test may force it with TINYAOT_RUNTIME_ISA.
#if defined(TINYAOT_RUNTIME_ISA)
constexpr bool kAcceptsAnyIsa = false;
constexpr IsaClass kRuntimeIsa = static_cast<IsaClass>(TINYAOT_RUNTIME_ISA);
#elif defined(__arm__) && defined(__ARM_FEATURE_MVE)
constexpr bool kAcceptsAnyIsa = false;
constexpr IsaClass kRuntimeIsa = IsaClass::kMve;
#elif defined(__arm__) && defined(__ARM_FEATURE_DSP)
constexpr bool kAcceptsAnyIsa = false;
constexpr IsaClass kRuntimeIsa = IsaClass::kDsp;
#elif defined(__arm__)
constexpr bool kAcceptsAnyIsa = false;
constexpr IsaClass kRuntimeIsa = IsaClass::kScalar;
#else
// Host: portable implementations of every variant, so a program planned
// for any core can be validated here before it is flashed.
constexpr bool kAcceptsAnyIsa = true;
constexpr IsaClass kRuntimeIsa = IsaClass::kMve;
#endif

bool section_fits(uint32_t file_bytes, uint32_t offset, uint64_t count, uint64_t item_bytes) {
  const uint64_t end = static_cast<uint64_t>(offset) + count * item_bytes;
  return count <= 0xffffffffu && end <= file_bytes;
}

bool aligned(uint32_t value, uint32_t alignment) { return value % alignment == 0; }

uint32_t dtype_bytes(uint32_t dtype) {
  switch (static_cast<DType>(dtype)) {
    case DType::kInt8:
      return 1;
    case DType::kInt16:
      return 2;
    case DType::kInt32:
    case DType::kFloat32:
      return 4;
    case DType::kInt64:
      break;  // never an input or output
  }
  return 0;
}

TINYAOT_LOAD_TIME Status check_sections(const ProgramHeader& h) {
  const uint32_t n = h.file_bytes;
  if (!section_fits(n, h.inputs_offset, h.num_inputs, sizeof(IoDesc)) ||
      !section_fits(n, h.outputs_offset, h.num_outputs, sizeof(IoDesc)) ||
      !section_fits(n, h.ops_offset, h.num_ops, sizeof(OpRecord)) ||
      !section_fits(n, h.operands_offset, h.num_operands, sizeof(BufferRef)) ||
      !section_fits(n, h.kernels_offset, h.num_kernels, sizeof(AbiEntry)) ||
      !section_fits(n, h.params_offset, h.params_bytes, 1) ||
      !section_fits(n, h.constants_offset, h.constants_bytes, 1) ||
      !section_fits(n, h.debug_offset, h.debug_bytes, 1) ||
      !section_fits(n, h.state_regions_offset, h.num_state_regions, sizeof(StateRegion))) {
    log_message("tinyaot: a section lies outside the %u-byte program", n);
    return Status::kSectionOutOfFile;
  }
  if (!aligned(h.inputs_offset, 4) || !aligned(h.outputs_offset, 4) || !aligned(h.ops_offset, 4) ||
      !aligned(h.operands_offset, 4) || !aligned(h.kernels_offset, 4) ||
      !aligned(h.params_offset, 4) || !aligned(h.constants_offset, kConstantAlignment) ||
      !aligned(h.state_regions_offset, 4)) {
    log_message("tinyaot: a section offset is not aligned");
    return Status::kMisaligned;
  }
  return Status::kOk;
}

TINYAOT_LOAD_TIME Status check_target(const ProgramHeader& h, const char* model) {
  if (h.core >= static_cast<uint32_t>(Core::kCount) ||
      h.isa > static_cast<uint32_t>(IsaClass::kMve) ||
      h.isa > static_cast<uint32_t>(core_isa(static_cast<Core>(h.core)))) {
    log_message("tinyaot: unknown target (core %u, ISA class %u)", h.core, h.isa);
    return Status::kUnknownTarget;
  }
  if (!kAcceptsAnyIsa && h.isa != static_cast<uint32_t>(kRuntimeIsa)) {
    log_message(TINYAOT_REFUSE_PROGRAM TINYAOT_DIFFERS_ISA, model,
                core_name(static_cast<Core>(h.core)), isa_name(static_cast<IsaClass>(h.isa)),
                isa_name(kRuntimeIsa));
    return Status::kIsaMismatch;
  }
  if (h.rounding > static_cast<uint32_t>(kLastRounding)) {
    log_message("tinyaot: unknown rounding mode %u", h.rounding);
    return Status::kBadRounding;
  }
#if defined(TINYAOT_ROUNDING_ONLY)
  if (h.rounding != static_cast<uint32_t>(TINYAOT_ROUNDING_ONLY)) {
    log_message(TINYAOT_REFUSE_PROGRAM TINYAOT_DIFFERS_ROUNDING, model,
                rounding_name(static_cast<Rounding>(h.rounding)),
                rounding_name(static_cast<Rounding>(TINYAOT_ROUNDING_ONLY)));
    return Status::kBadRounding;
  }
#endif
  return Status::kOk;
}

TINYAOT_LOAD_TIME Status check_io(const IoDesc* descs, uint32_t count, uint32_t arena_bytes,
                                  const char* kind) {
  for (uint32_t i = 0; i < count; ++i) {
    const IoDesc& d = descs[i];
    const uint32_t element_bytes = dtype_bytes(d.dtype);
    uint64_t elements = 1;
    bool ok = element_bytes != 0 && d.rank <= kMaxRank && d.name[kNameBytes - 1] == '\0';
    for (uint32_t r = 0; ok && r < d.rank; ++r) {
      ok = d.dims[r] >= 1 && elements * static_cast<uint64_t>(d.dims[r]) <= 0x7fffffffu;
      if (ok) elements *= static_cast<uint64_t>(d.dims[r]);
    }
    ok = ok && elements * element_bytes == d.bytes &&
         static_cast<uint64_t>(d.arena_offset) + d.bytes <= arena_bytes &&
         aligned(d.arena_offset, element_bytes);
    if (!ok) {
      log_message("tinyaot: %s %u description is malformed or outside the arena", kind, i);
      return Status::kBadIo;
    }
  }
  return Status::kOk;
}

// State regions lie in the arena, each byte in at most one of them, with
// a fill that is a byte.
TINYAOT_LOAD_TIME Status check_state(const StateRegion* regions, uint32_t count,
                                     uint32_t arena_bytes) {
  for (uint32_t i = 0; i < count; ++i) {
    const StateRegion& r = regions[i];
    bool ok = r.bytes != 0 && r.fill <= 0xff &&
              static_cast<uint64_t>(r.arena_offset) + r.bytes <= arena_bytes;
    for (uint32_t j = 0; ok && j < i; ++j)
      ok = r.arena_offset >= regions[j].arena_offset + regions[j].bytes ||
           regions[j].arena_offset >= r.arena_offset + r.bytes;
    if (!ok) {
      log_message("tinyaot: state region %u is malformed, outside the arena or overlaps another",
                  i);
      return Status::kBadState;
    }
  }
  return Status::kOk;
}

bool names_equal(const char* program_name, const char* runtime_name) {
  return strncmp(program_name, runtime_name, kNameBytes) == 0;
}

// The id this runtime registered a variant under, or kernel_count().
uint32_t registered_id(const char* name) {
  for (uint32_t id = 0; id < kernel_count(); ++id) {
    const KernelDescriptor* d = find_kernel(id);
    if (d != nullptr && names_equal(name, d->name)) return id;
  }
  return kernel_count();
}

// One operation's variant as the program recorded it (its kernel table
// entry and operand counts) against the one this runtime registered,
// refused in the words of `tinyaot verify --runtime` (refusal_text.h).
TINYAOT_LOAD_TIME Status check_operation_abi(const Program& p, uint32_t index, const char* model) {
  const OpRecord& op = p.ops[index];
  const AbiEntry& e = p.kernels[op.kernel];
  const KernelDescriptor* d = find_kernel(e.kernel_id);
  if (d == nullptr || !names_equal(e.name, d->name)) {
    const uint32_t id = registered_id(e.name);
    if (id == kernel_count())
      log_message(TINYAOT_REFUSE_OPERATION TINYAOT_DIFFERS_MISSING, model, index, e.name);
    else
      log_message(TINYAOT_REFUSE_OPERATION TINYAOT_DIFFERS_KERNEL_ID, model, index, e.name,
                  e.kernel_id, id);
    // An id this runtime does not have at all, or one that holds another variant.
    return d == nullptr ? Status::kUnknownKernel : Status::kAbiMismatch;
  }
  if (p.header->rounding == static_cast<uint32_t>(Rounding::kOnnx) &&
      !kernel_has_onnx_rounding(d->name)) {
    log_message(TINYAOT_REFUSE_OPERATION TINYAOT_DIFFERS_NO_ONNX, model, index, e.name);
    return Status::kBadRounding;
  }
  // Every difference, one line each, as verify lists them.
  bool differs = false;
  if (e.version != d->version) {
    log_message(TINYAOT_REFUSE_OPERATION TINYAOT_DIFFERS_VERSION, model, index, e.name, e.version,
                d->version);
    differs = true;
  }
  if (op.params_bytes != d->params_bytes || e.params_bytes != d->params_bytes) {
    const uint32_t supplied = op.params_bytes != d->params_bytes ? op.params_bytes : e.params_bytes;
    log_message(TINYAOT_REFUSE_OPERATION TINYAOT_DIFFERS_PARAMS, model, index, e.name, supplied,
                d->params_bytes);
    differs = true;
  }
  if (op.num_inputs < d->min_inputs || op.num_inputs > d->max_inputs) {
    if (d->min_inputs == d->max_inputs)
      log_message(TINYAOT_REFUSE_OPERATION TINYAOT_DIFFERS_INPUTS, model, index, e.name,
                  op.num_inputs, d->min_inputs);
    else
      log_message(TINYAOT_REFUSE_OPERATION TINYAOT_DIFFERS_INPUT_RANGE, model, index, e.name,
                  op.num_inputs, d->min_inputs, d->max_inputs);
    differs = true;
  }
  if (op.num_outputs != d->num_outputs) {
    log_message(TINYAOT_REFUSE_OPERATION TINYAOT_DIFFERS_OUTPUTS, model, index, e.name,
                op.num_outputs, d->num_outputs);
    differs = true;
  }
  if (e.isa != static_cast<uint8_t>(d->isa)) {
    log_message(TINYAOT_REFUSE_OPERATION TINYAOT_DIFFERS_VARIANT_ISA, model, index, e.name,
                e.isa <= static_cast<uint8_t>(IsaClass::kMve)
                    ? isa_name(static_cast<IsaClass>(e.isa))
                    : "unknown",
                isa_name(d->isa));
    differs = true;
  }
  // The fingerprint also covers what is compared above; alone, it means the
  // operand or parameter signature changed.
  if (!differs && (e.fingerprint != abi_fingerprint(*d) || e.min_inputs != d->min_inputs ||
                   e.max_inputs != d->max_inputs || e.num_outputs != d->num_outputs)) {
    log_message(TINYAOT_REFUSE_OPERATION TINYAOT_DIFFERS_SIGNATURE, model, index, e.name,
                e.fingerprint, abi_fingerprint(*d));
    differs = true;
  }
  return differs ? Status::kAbiMismatch : Status::kOk;
}

TINYAOT_LOAD_TIME Status check_abi(const Program& p, const char* model) {
  for (uint32_t i = 0; i < p.header->num_kernels; ++i) {
    if (p.kernels[i].name[kNameBytes - 1] != '\0') {
      log_message("tinyaot: kernel table entry %u has an unterminated name", i);
      return Status::kAbiMismatch;
    }
  }
  for (uint32_t i = 0; i < p.header->num_ops; ++i) {
    if (p.ops[i].kernel >= p.header->num_kernels) {
      log_message("tinyaot: operation %u: kernel index %u out of the table", i, p.ops[i].kernel);
      return Status::kUnknownKernel;
    }
  }
  // Every operation is compared, so the log names each one that differs
  // (as verify does); the first refusal's status is returned.
  Status first = Status::kOk;
  for (uint32_t i = 0; i < p.header->num_ops; ++i) {
    const Status s = check_operation_abi(p, i, model);
    if (first == Status::kOk) first = s;
  }
  return first;
}

bool in_arena(const BufferRef& ref) { return ref.region == static_cast<uint32_t>(Region::kArena); }

TINYAOT_LOAD_TIME Status check_operand(const ProgramHeader& h, const BufferRef& ref, bool writable,
                                       uint32_t op_index, const char* name) {
  if (ref.region > static_cast<uint32_t>(Region::kConstants)) {
    log_message("tinyaot: operation %u (%s): operand in unknown region %u", op_index, name,
                ref.region);
    return Status::kOperandOutOfBounds;
  }
  const bool arena = in_arena(ref);
  if (writable && !arena) {
    log_message("tinyaot: operation %u (%s): output or scratch is not in the arena", op_index,
                name);
    return Status::kOperandNotWritable;
  }
  const uint32_t limit = arena ? h.arena_bytes : h.constants_bytes;
  if (static_cast<uint64_t>(ref.offset) + ref.bytes > limit) {
    log_message("tinyaot: operation %u (%s): operand [%u, +%u) outside the %s (%u bytes)", op_index,
                name, ref.offset, ref.bytes, arena ? "arena" : "constants", limit);
    return Status::kOperandOutOfBounds;
  }
  if (!arena && !aligned(ref.offset, 4)) {
    log_message("tinyaot: operation %u (%s): constant operand not 4-byte aligned", op_index, name);
    return Status::kMisaligned;
  }
  return Status::kOk;
}

// An operation's operands as the checks below name them: inputs, then
// outputs, then its scratch.
enum class Role : uint8_t { kInput, kOutput, kScratch };

const char* role_name(Role role) {
  return role == Role::kInput ? "input" : role == Role::kOutput ? "output" : "scratch";
}

struct Operands {
  const Program& p;
  const OpRecord& op;
  uint32_t count() const { return static_cast<uint32_t>(op.num_inputs) + op.num_outputs + 1; }
  Role role(uint32_t i) const {
    return i < op.num_inputs ? Role::kInput : i + 1 < count() ? Role::kOutput : Role::kScratch;
  }
  // Its number among those of its role.
  uint32_t number(uint32_t i) const {
    const Role r = role(i);
    return r == Role::kInput ? i : r == Role::kOutput ? i - op.num_inputs : 0;
  }
  BufferRef ref(uint32_t i) const {
    return i + 1 < count() ? p.operands[op.first_operand + i] : op.scratch;
  }
};

bool share_bytes(const BufferRef& a, const BufferRef& b) {
  return in_arena(a) && in_arena(b) && a.bytes != 0 && b.bytes != 0 &&
         uint64_t{a.offset} < uint64_t{b.offset} + b.bytes &&
         uint64_t{b.offset} < uint64_t{a.offset} + a.bytes;
}

// No two arena operands of an operation share a byte when one of them is
// written (an output or the scratch), except an input the variant declares
// safe in place starting where an output starts and no shorter than it
// (kernel_abi.h): a kernel never
// reads bytes it has already written, nor writes one result over another.
// Operands lie inside the arena (check_operand).
TINYAOT_LOAD_TIME Status check_overlap(const Program& p, uint32_t index,
                                       const KernelDescriptor& d) {
  const Operands o{p, p.ops[index]};
  for (uint32_t a = 0; a < o.count(); ++a) {
    for (uint32_t b = a + 1; b < o.count(); ++b) {
      const BufferRef x = o.ref(a), y = o.ref(b);
      // Two inputs are both only read.
      if (o.role(b) == Role::kInput || !share_bytes(x, y)) continue;
      const bool in_place = o.role(a) == Role::kInput && o.role(b) == Role::kOutput &&
                            (d.in_place_inputs & operand_bit(a)) != 0 && x.offset == y.offset &&
                            y.bytes <= x.bytes;
      if (in_place) continue;
      log_message(
          "tinyaot: operation %u (%s): %s %u [%u, +%u) overlaps %s %u [%u, +%u) in the arena",
          index, d.name, role_name(o.role(a)), o.number(a), x.offset, x.bytes, role_name(o.role(b)),
          o.number(b), y.offset, y.bytes);
      return Status::kOperandsOverlap;
    }
  }
  return Status::kOk;
}

// An arena operand lies on its elements' boundary (the signature's element
// types; the arena itself is 16-byte aligned, run_program): a variant reads
// and writes them whole, and a misaligned halfword or word access faults on
// the M0 and in every variant's LDRD/SMLAD/MVE loads.
TINYAOT_LOAD_TIME Status check_aligned(const BufferRef& ref, const OperandAlignment& masks,
                                       uint32_t index, const char* name, Role role,
                                       uint32_t number) {
  const uint32_t alignment = masks.of(number);
  if (!in_arena(ref) || aligned(ref.offset, alignment)) return Status::kOk;
  log_message("tinyaot: operation %u (%s): %s %u at arena offset %u is not %u-byte aligned", index,
              name, role_name(role), number, ref.offset, alignment);
  return Status::kMisaligned;
}

TINYAOT_LOAD_TIME Status check_operation(const Program& p, uint32_t index) {
  const ProgramHeader& h = *p.header;
  const OpRecord& op = p.ops[index];  // its kernel index and ABI: check_abi
  const AbiEntry& entry = p.kernels[op.kernel];
  const KernelDescriptor& d = *find_kernel(entry.kernel_id);
  const uint32_t total = static_cast<uint32_t>(op.num_inputs) + op.num_outputs;
  if (op.num_inputs < d.min_inputs || op.num_inputs > d.max_inputs ||
      op.num_outputs != d.num_outputs || total > kMaxOperands ||
      static_cast<uint64_t>(op.first_operand) + total > h.num_operands ||
      op.params_bytes != d.params_bytes || !aligned(op.params_offset, 4) ||
      static_cast<uint64_t>(op.params_offset) + op.params_bytes > h.params_bytes) {
    log_message("tinyaot: operation %u (%s): malformed record", index, d.name);
    return Status::kBadOperation;
  }
  // What the kernel's validate sees: every operand's size, and the
  // contents of constant ones (checked above to lie inside the constants).
  OperandView inputs[kMaxOperands];
  OperandView outputs[kMaxOperands];
  for (uint32_t i = 0; i < total; ++i) {
    const BufferRef& ref = p.operands[op.first_operand + i];
    const bool is_output = i >= op.num_inputs;
    Status s = check_operand(h, ref, is_output, index, d.name);
    if (s != Status::kOk) return s;
    const uint32_t number = is_output ? i - op.num_inputs : i;
    s = check_aligned(ref, is_output ? d.signature.output_alignment : d.signature.input_alignment,
                      index, d.name, is_output ? Role::kOutput : Role::kInput, number);
    if (s != Status::kOk) return s;
    const bool constant = ref.region == static_cast<uint32_t>(Region::kConstants);
    const OperandView view{constant ? p.constants + ref.offset : nullptr, ref.bytes};
    if (is_output) {
      outputs[i - op.num_inputs] = view;
    } else {
      inputs[i] = view;
    }
  }
  if (op.scratch.bytes != 0) {
    Status s = check_operand(h, op.scratch, true, index, d.name);
    if (s != Status::kOk) return s;
    if (s = check_aligned(op.scratch, OperandAlignment{.word = 1}, index, d.name, Role::kScratch,
                          0);
        s != Status::kOk)
      return s;
  }
  if (const Status s = check_overlap(p, index, d); s != Status::kOk) return s;
  const void* params = p.params + op.params_offset;
  if (d.validate(params, inputs, op.num_inputs, outputs, op.num_outputs) != Status::kOk) {
    log_message("tinyaot: operation %u (%s): parameters or constants out of range for its operands",
                index, d.name);
    return Status::kBadParams;
  }
  // Memory safety needs at least the kernel's own need; the check build
  // (executor) demands equality.
  const uint32_t need = d.scratch_bytes ? d.scratch_bytes(params) : 0;
  if (op.scratch.bytes < need) {
    log_message("tinyaot: operation %u (%s): planned scratch %u bytes, kernel needs %u", index,
                d.name, op.scratch.bytes, need);
    return Status::kScratchMismatch;
  }
  return Status::kOk;
}

}  // namespace

bool runtime_accepts_any_isa() { return kAcceptsAnyIsa; }
IsaClass runtime_isa() { return kRuntimeIsa; }
uint32_t runtime_context_bytes() { return sizeof(Program) + kMaxOperands * sizeof(Operand); }

TINYAOT_LOAD_TIME Status load_program(const void* data, uint32_t bytes, Program* program,
                                      const char* model) {
  if (data == nullptr || program == nullptr) return Status::kNullArgument;
  memset(program, 0, sizeof(*program));
  const auto* base = static_cast<const uint8_t*>(data);
  if (reinterpret_cast<uintptr_t>(base) % kConstantAlignment != 0) {
    log_message("tinyaot: program data must be %u-byte aligned", kConstantAlignment);
    return Status::kMisaligned;
  }
  if (bytes < sizeof(ProgramHeader)) {
    log_message("tinyaot: program is %u bytes, shorter than its header", bytes);
    return Status::kTruncated;
  }
  const auto* h = reinterpret_cast<const ProgramHeader*>(base);
  if (memcmp(h->magic, kProgramMagic, sizeof(kProgramMagic)) != 0) {
    log_message("tinyaot: bad magic: not a tinyaot program");
    return Status::kBadMagic;
  }
  if (h->format_version != kProgramFormatVersion) {
    log_message(TINYAOT_REFUSE_PROGRAM TINYAOT_DIFFERS_FORMAT, model, h->format_version,
                kProgramFormatVersion);
    return Status::kUnsupportedVersion;
  }
  if (h->file_bytes < sizeof(ProgramHeader) || h->file_bytes > bytes) {
    log_message("tinyaot: program declares %u bytes but %u are present", h->file_bytes, bytes);
    return Status::kTruncated;
  }
  if (program_checksum(base, h->file_bytes) != h->checksum) {
    log_message("tinyaot: checksum mismatch: the program is corrupt");
    return Status::kChecksumMismatch;
  }
  Status s = check_sections(*h);
  if (s != Status::kOk) return s;
  if (s = check_target(*h, model); s != Status::kOk) return s;
  if (!aligned(h->arena_bytes, kArenaAlignment)) {
    log_message("tinyaot: arena size %u is not a multiple of %u", h->arena_bytes, kArenaAlignment);
    return Status::kBadHeader;
  }
  Program p;
  p.base = base;
  p.header = h;
  p.inputs = reinterpret_cast<const IoDesc*>(base + h->inputs_offset);
  p.outputs = reinterpret_cast<const IoDesc*>(base + h->outputs_offset);
  p.ops = reinterpret_cast<const OpRecord*>(base + h->ops_offset);
  p.operands = reinterpret_cast<const BufferRef*>(base + h->operands_offset);
  p.kernels = reinterpret_cast<const AbiEntry*>(base + h->kernels_offset);
  p.params = base + h->params_offset;
  p.constants = base + h->constants_offset;
  p.state_regions = reinterpret_cast<const StateRegion*>(base + h->state_regions_offset);
  if (s = check_io(p.inputs, h->num_inputs, h->arena_bytes, "input"); s != Status::kOk) return s;
  if (s = check_io(p.outputs, h->num_outputs, h->arena_bytes, "output"); s != Status::kOk) return s;
  if (s = check_state(p.state_regions, h->num_state_regions, h->arena_bytes); s != Status::kOk)
    return s;
  if (s = check_abi(p, model); s != Status::kOk) return s;
  for (uint32_t i = 0; i < h->num_ops; ++i) {
    if (s = check_operation(p, i); s != Status::kOk) return s;
  }
  *program = p;
  return Status::kOk;
}

}  // namespace tinyaot
