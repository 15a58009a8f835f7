#include "compiler/pipeline.h"

#include "compiler/passes/passes.h"

namespace tinyaot {

const std::vector<PassInfo>& pipeline() {
  static const std::vector<PassInfo> passes = {
      {"resolve-activations", "fused activations become int8 clamp ranges", resolve_activations},
      {"fold-activations", "standalone RELU/RELU6 folded into the producer's clamp",
       fold_activations},
      {"fold-pad", "explicit PAD folded into the following convolution",
       [](Graph& graph, const Target&) { fold_pad_into_conv(graph); }},
      {"alias-reshapes", "RESHAPE/SQUEEZE/EXPAND_DIMS become views (no copy, no bytes)",
       alias_reshapes},
      {"remove-dead", "operations whose outputs nobody reads are dropped", remove_dead_operations},
  };
  return passes;
}

void run_pipeline(Graph& graph, const Target& target,
                  const std::function<void(const PassInfo&)>& on_pass) {
  for (const PassInfo& pass : pipeline()) {
    if (on_pass) on_pass(pass);
    pass.run(graph, target);
  }
}

}  // namespace tinyaot
