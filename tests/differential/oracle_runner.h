// Runs a batch of models through tests/oracle/tfjs_oracle.js (tfjs-tflite in
// Node) in one process: the WebAssembly start-up is paid once per batch.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace tinyaot::difftest {

struct OracleJob {
  std::string model;  // absolute paths
  std::vector<std::string> inputs, outputs;
  // Inferences on one interpreter, state carried: each file holds the
  // steps' tensors one after the other (tfjs_oracle.js's "steps").
  size_t steps = 1;
};

struct OracleResult {
  bool ok = false;
  std::string error;  // tfjs's message when !ok
};

// Why the oracle cannot run here (node or the npm packages missing), or
// nullopt when it can.
std::optional<std::string> oracle_unavailable(const std::string& source_dir,
                                              const std::string& node);

// One result per job, in job order. Throws std::runtime_error when the
// runner itself fails (its stderr is kept in `workdir`).
std::vector<OracleResult> run_oracle(const std::string& source_dir, const std::string& node,
                                     const std::string& workdir,
                                     const std::vector<OracleJob>& jobs);

}  // namespace tinyaot::difftest
