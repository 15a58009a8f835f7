// Lowering: one IR operation becomes one kernel call. Each kernel family
// provides its lowering in its own folder (kernels/<family>/*_lower.cpp):
// it chooses the variant for the target, builds the parameter struct,
// computes constants (requantization per channel, lookup tables, packed
// weights) and asks the variant's own size function for its scratch.
#pragma once

#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "compiler/ir/graph.h"
#include "kernels/kernel_list.h"
#include "tinyaot/kernel_abi.h"

namespace tinyaot {

// Why an operation got its kernel variant, for `tinyaot report`.
struct VariantChoice {
  enum class Reason : uint8_t {
    kOnly = 0,     // the only variant for this operator, shape and ISA class
    kFastest = 1,  // the cheapest of several by the family's cost model
    kArena = 2,    // a faster variant's scratch would raise the arena (--prefer memory)
    kRescale = 3,  // the family's reference: a channel's rescale is not the usual case
  };
  Reason reason = Reason::kOnly;
  uint32_t candidates = 1;  // variants that could run the operation
  std::string faster;       // kArena: the variant passed over
  uint32_t faster_scratch_bytes = 0;
};

struct Target {
  Core core = Core::kCortexM4;
  IsaClass isa = IsaClass::kDsp;
  Rounding rounding = Rounding::kDouble;
  // The most scratch a variant may ask for. The compiler lowers it at an
  // operation whose scratch would raise the arena's peak: a slower
  // variant that needs none keeps the arena at the activations' bound.
  uint32_t max_scratch_bytes = UINT32_MAX;
  // Where choose_variant records why it chose (lower_operation sets it for
  // the operation it lowers); nullptr records nothing.
  VariantChoice* choice = nullptr;
};

// Any compile failure: the message names what and where.
struct CompileError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// An operand of a kernel call: a graph tensor (activation or constant) or a
// constant the lowering computed.
struct LoweredOperand {
  int32_t tensor = -1;            // graph tensor id, or -1 for `constant`
  std::vector<uint8_t> constant;  // emitted 16-byte aligned into constants

  static LoweredOperand of_tensor(int32_t id) { return {id, {}}; }
  template <typename T>
  static LoweredOperand of_values(const std::vector<T>& values) {
    LoweredOperand operand;
    operand.constant.resize(values.size() * sizeof(T));
    if (!values.empty())
      std::memcpy(operand.constant.data(), values.data(), operand.constant.size());
    return operand;
  }
};

struct LoweredOp {
  KernelId kernel = KernelId::kCount;
  std::vector<uint8_t> params;
  std::vector<LoweredOperand> inputs;
  std::vector<int32_t> outputs;  // graph tensor ids
  uint32_t scratch_bytes = 0;    // from the variant's own size function
  // When not empty, input i may live at byte input_slices[i] of the output:
  // the producers then write straight into the output and this operation
  // has nothing left to do (concatenation along the outermost axis).
  std::vector<uint32_t> input_slices;
  // Multiply-accumulates of the operation (compiler/lower/operation_macs.h).
  uint64_t macs = 0;
  VariantChoice choice;
};

template <typename Params>
std::vector<uint8_t> params_bytes(const Params& params) {
  static_assert(std::is_trivially_copyable<Params>::value, "params must be plain structs");
  std::vector<uint8_t> bytes(sizeof(Params));
  std::memcpy(bytes.data(), &params, sizeof(Params));
  return bytes;
}

// Builds a LoweredOp for `kernel` with `params`, sizing its scratch with the
// variant's own size function (the same one the runtime checks against).
template <typename Params>
LoweredOp make_lowered(KernelId kernel, const Params& params) {
  LoweredOp op;
  op.kernel = kernel;
  op.params = params_bytes(params);
  const KernelDescriptor* descriptor = find_kernel(static_cast<uint32_t>(kernel));
  if (descriptor == nullptr) throw CompileError("internal: kernel id not in the registry");
  if (descriptor->params_bytes != sizeof(Params))
    throw CompileError(std::string("internal: params size mismatch for ") + descriptor->name);
  op.scratch_bytes = descriptor->scratch_bytes ? descriptor->scratch_bytes(&params) : 0;
  return op;
}

// Message prefix naming an operation: "operation 3 (CONV_2D)".
std::string describe(const Operation& op);

// Whether the lowering of `type` applies the operation's act_min/act_max
// to its output (so a clamp after it can be folded into it).
bool lowering_applies_clamp(OpType type);

// Lowers one operation for the target; throws CompileError when it cannot.
LoweredOp lower_operation(const Graph& graph, const Operation& op, const Target& target);

}  // namespace tinyaot
