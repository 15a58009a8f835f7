// The one pipeline definition: the ordered passes every entry point (CLI,
// tests, docs, examples) runs. Nothing else strings passes together.
#pragma once

#include <functional>
#include <vector>

#include "compiler/ir/graph.h"
#include "compiler/lower/lowering.h"

namespace tinyaot {

struct PassInfo {
  const char* name;
  const char* purpose;
  void (*run)(Graph& graph, const Target& target);
};

const std::vector<PassInfo>& pipeline();

void run_pipeline(Graph& graph, const Target& target,
                  const std::function<void(const PassInfo&)>& on_pass = {});

}  // namespace tinyaot
