#include "differential/oracle_runner.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <stdexcept>

namespace tinyaot::difftest {
namespace {

namespace fs = std::filesystem;

// Single-quoted for /bin/sh.
std::string quoted(const std::string& s) {
  std::string q = "'";
  for (char ch : s) q += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
  return q + "'";
}

fs::path script_path(const std::string& source_dir) {
  return fs::path(source_dir) / "tests" / "oracle" / "tfjs_oracle.js";
}

}  // namespace

std::optional<std::string> oracle_unavailable(const std::string& source_dir,
                                              const std::string& node) {
  const fs::path package = fs::path(source_dir) / "tests" / "oracle" / "node_modules" /
                           "@tensorflow" / "tfjs-tflite" / "package.json";
  if (!fs::exists(package))
    return "the tfjs oracle is not installed (run: npm ci --prefix tests/oracle)";
  if (std::system((quoted(node) + " --version >/dev/null 2>&1").c_str()) != 0)
    return "node ('" + node + "') is not available (install Node.js 20 or set TINYAOT_NODE)";
  return std::nullopt;
}

namespace {

// One node process over jobs[first..]; returns the results by model path.
std::map<std::string, OracleResult> run_batch(const std::string& source_dir,
                                              const std::string& node, const fs::path& dir,
                                              const std::vector<OracleJob>& jobs, size_t first,
                                              int batch) {
  const std::string suffix = batch == 0 ? "" : "." + std::to_string(batch);
  const fs::path jobs_path = dir / ("oracle_jobs" + suffix + ".jsonl");
  const fs::path results_path = dir / ("oracle_results" + suffix + ".jsonl");
  const fs::path stderr_path = dir / ("oracle_stderr" + suffix + ".txt");
  {
    std::ofstream out(jobs_path);
    for (size_t j = first; j < jobs.size(); ++j)
      out << nlohmann::json{{"model", jobs[j].model},
                            {"inputs", jobs[j].inputs},
                            {"outputs", jobs[j].outputs},
                            {"steps", jobs[j].steps}}
                 .dump()
          << "\n";
  }
  const std::string command = quoted(node) + " " + quoted(script_path(source_dir).string()) + " " +
                              quoted(jobs_path.string()) + " >" + quoted(results_path.string()) +
                              " 2>" + quoted(stderr_path.string());
  const int status = std::system(command.c_str());
  if (status != 0)
    throw std::runtime_error("the tfjs oracle failed (status " + std::to_string(status) +
                             "); see " + stderr_path.string());
  std::map<std::string, OracleResult> by_model;
  std::ifstream in(results_path);
  for (std::string line; std::getline(in, line);) {
    if (line.empty()) continue;
    const nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
    if (j.is_discarded() || !j.contains("model")) continue;
    OracleResult r;
    r.ok = j.value("ok", false);
    r.error = j.value("error", std::string());
    by_model[j["model"].get<std::string>()] = r;
  }
  return by_model;
}

}  // namespace

std::vector<OracleResult> run_oracle(const std::string& source_dir, const std::string& node,
                                     const std::string& workdir,
                                     const std::vector<OracleJob>& jobs) {
  // Normally one process runs the whole batch. A job that crashes the
  // WebAssembly instance ("memory access out of bounds") leaves it unusable:
  // every later job fails too. Then the jobs after the first failure rerun
  // in a fresh process.
  std::vector<OracleResult> results(jobs.size());
  size_t first = 0;
  for (int batch = 0; first < jobs.size(); ++batch) {
    const std::map<std::string, OracleResult> by_model =
        run_batch(source_dir, node, fs::path(workdir), jobs, first, batch);
    size_t first_failure = jobs.size();
    bool later_success = false;
    for (size_t j = first; j < jobs.size(); ++j) {
      const auto found = by_model.find(jobs[j].model);
      results[j] = found != by_model.end() ? found->second
                                           : OracleResult{false, "no result line from the oracle"};
      if (!results[j].ok && first_failure == jobs.size()) first_failure = j;
      if (results[j].ok && first_failure < j) later_success = true;
    }
    first = later_success || first_failure + 1 >= jobs.size() ? jobs.size() : first_failure + 1;
  }
  return results;
}

}  // namespace tinyaot::difftest
