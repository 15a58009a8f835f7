// The executor: calls each operation's kernel with operands resolved to
// addresses. The program was validated by the loader; nothing is decided
// here that the compiler could have decided.
#include <string.h>

#include "tinyaot/profile.h"
#include "tinyaot/runtime.h"

namespace tinyaot {

namespace {

Status check_arena(const Program& p, const uint8_t* arena, uint32_t arena_bytes) {
  if (p.header == nullptr || arena == nullptr) return Status::kNullArgument;
  if (reinterpret_cast<uintptr_t>(arena) % kArenaAlignment != 0) return Status::kMisaligned;
  if (arena_bytes < p.header->arena_bytes) {
    log_message("tinyaot: arena of %u bytes, the program needs %u", arena_bytes,
                p.header->arena_bytes);
    return Status::kArenaTooSmall;
  }
  return Status::kOk;
}

}  // namespace

Status reset_state(const Program& p, uint8_t* arena, uint32_t arena_bytes) {
  const Status status = check_arena(p, arena, arena_bytes);
  if (status != Status::kOk) return status;
  for (uint32_t i = 0; i < p.header->num_state_regions; ++i) {
    const StateRegion& region = p.state_regions[i];
    memset(arena + region.arena_offset, static_cast<int>(region.fill), region.bytes);
  }
  return Status::kOk;
}

Status run_program(const Program& p, uint8_t* arena, uint32_t arena_bytes) {
  if (const Status status = check_arena(p, arena, arena_bytes); status != Status::kOk)
    return status;
  uint8_t* const regions[2] = {arena, const_cast<uint8_t*>(p.constants)};
  Operand operands[kMaxOperands];
  const Rounding rounding = static_cast<Rounding>(p.header->rounding);
  for (uint32_t index = 0; index < p.header->num_ops; ++index) {
    TINYAOT_OP_BOUNDARY();
    const OpRecord& op = p.ops[index];
    const KernelDescriptor& kernel = *find_kernel(p.kernels[op.kernel].kernel_id);
    const uint32_t total = static_cast<uint32_t>(op.num_inputs) + op.num_outputs;
    for (uint32_t i = 0; i < total; ++i) {
      const BufferRef& ref = p.operands[op.first_operand + i];
      operands[i] = {regions[ref.region] + ref.offset, ref.bytes};
    }
    KernelArgs args;
    args.params = p.params + op.params_offset;
    args.inputs = operands;
    args.num_inputs = op.num_inputs;
    args.outputs = operands + op.num_inputs;
    args.num_outputs = op.num_outputs;
    args.scratch = {op.scratch.bytes ? arena + op.scratch.offset : nullptr, op.scratch.bytes};
    args.rounding = rounding;
#if defined(TINYAOT_RUNTIME_CHECKS)
    const uint32_t need = kernel.scratch_bytes ? kernel.scratch_bytes(args.params) : 0;
    if (need != op.scratch.bytes) {
      log_message("tinyaot: operation %u (%s): planned scratch %u bytes, kernel needs %u", index,
                  kernel.name, op.scratch.bytes, need);
      return Status::kScratchMismatch;
    }
#endif
    const Status status = kernel.run(args);
    if (status != Status::kOk) {
      log_message("tinyaot: operation %u (%s) failed: %s", index, kernel.name, status_text(status));
      return status;
    }
  }
  TINYAOT_OP_BOUNDARY();
  return Status::kOk;
}

}  // namespace tinyaot
