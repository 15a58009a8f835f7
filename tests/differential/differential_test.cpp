// Differential test: random single-operator models for every operator
// tinyaot imports, compiled by tinyaot and run on the host runtime, against
// tfjs-tflite (TFLite in WebAssembly) run in one Node process.
//
// Each operator is compared in the rounding mode of the engine tfjs uses for
// it (/work/shared/docs/oracle.md): single rounding for CONV_2D,
// DEPTHWISE_CONV_2D, FULLY_CONNECTED and BATCH_MATMUL; TFLite Micro's double
// rounding for the rest; within one step only where tfjs's arithmetic is
// neither (XNNPACK's: MUL, MEAN, LEAKY_RELU, QUANTIZE int8->int8, per-tensor
// TRANSPOSE_CONV; TFLite's float-table SOFTMAX) and at the half-step ties of
// QUANTIZE from float32. case_generator.cpp says why, operator by operator,
// and how each case stays inside what tfjs's TFLite accepts.
//
// Failing cases keep their files under <build>/differential/cases/ with a
// case.txt holding the parameters and the commands to reproduce them.
//
// Environment:
//   TINYAOT_DIFF_CASES=N       number of cases (default 360), dealt round-robin
//   TINYAOT_DIFF_SEED=S        base seed (default 1)
//   TINYAOT_DIFF_OPS=A,B       only these operators
//   TINYAOT_DIFF_CASE_SEED=X   one case per selected operator, with this case
//                              seed (printed with every failure)
//   TINYAOT_DIFF_KEEP=1        keep every case's files, not only the failing ones
//   TINYAOT_NODE=path          the node binary (default: node on PATH)
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <map>
#include <set>
#include <sstream>

#include "differential/case_generator.h"
#include "differential/oracle_runner.h"
#include "support/test_support.h"
#include "tools/modelgen/rng.h"

namespace tinyaot::difftest {
namespace {

namespace fs = std::filesystem;

constexpr int kDefaultCases = 360;
constexpr uint64_t kDefaultSeed = 1;

std::string env(const char* name, const std::string& fallback = "") {
  const char* value = std::getenv(name);
  return value && *value ? std::string(value) : fallback;
}

std::vector<std::string> imported_ops() {
  return {
#define TINYAOT_DIFF_OP_NAME(id, name) name,
      TINYAOT_OP_LIST(TINYAOT_DIFF_OP_NAME)
#undef TINYAOT_DIFF_OP_NAME
  };
}

std::vector<std::string> split(const std::string& list) {
  std::vector<std::string> items;
  std::stringstream in(list);
  for (std::string item; std::getline(in, item, ',');)
    if (!item.empty()) items.push_back(item);
  return items;
}

std::string hex(uint64_t v) {
  std::ostringstream out;
  out << "0x" << std::hex << v;
  return out.str();
}

std::string coordinates(int64_t index, const std::vector<int32_t>& shape) {
  std::vector<int64_t> at(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    at[d] = index % shape[d];
    index /= shape[d];
  }
  std::string text = "[";
  for (size_t d = 0; d < at.size(); ++d) text += (d ? "," : "") + std::to_string(at[d]);
  return text + "]";
}

enum class Outcome { kPass, kCompileFail, kRunFail, kOracleFail, kMismatch };

struct CaseRun {
  int index = 0;
  uint64_t seed = 0;
  DiffCase c;
  fs::path dir;
  Outcome outcome = Outcome::kPass;
  std::string detail;  // the error, or the differing values
  std::vector<int32_t> output_shape;
  std::vector<uint8_t> ours;
  int64_t tolerated = 0;  // values off by the tolerated step
};

struct OpSummary {
  int cases = 0, passed = 0, compile_fail = 0, run_fail = 0, oracle_fail = 0, mismatch = 0;
  int64_t values = 0, tolerated = 0;
  std::string first_compile_error;
};

void write(const fs::path& path, const std::vector<uint8_t>& bytes) {
  test::write_file(path.string(), bytes);
}

// Compares one output; fills `run.detail` and returns false on a mismatch.
bool compare(CaseRun& run, const std::vector<uint8_t>& oracle) {
  const std::vector<uint8_t>& ours = run.ours;
  if (ours.size() != oracle.size()) {
    run.detail = "output sizes differ: tinyaot " + std::to_string(ours.size()) + " bytes, tfjs " +
                 std::to_string(oracle.size());
    return false;
  }
  std::ostringstream detail;
  int64_t bad = 0, max_diff = 0;
  if (run.c.float_output) {
    const size_t n = ours.size() / 4;
    for (size_t i = 0; i < n; ++i) {
      float a, b;
      std::memcpy(&a, ours.data() + 4 * i, 4);
      std::memcpy(&b, oracle.data() + 4 * i, 4);
      if (std::memcmp(&a, &b, 4) == 0) continue;
      if (bad++ < 5)
        detail << "\n      at " << coordinates(static_cast<int64_t>(i), run.output_shape)
               << ": tinyaot " << std::setprecision(9) << a << ", tfjs " << b;
    }
  } else {
    for (size_t i = 0; i < ours.size(); ++i) {
      const int a = static_cast<int8_t>(ours[i]), b = static_cast<int8_t>(oracle[i]);
      const int diff = std::abs(a - b);
      if (diff == 0) continue;
      max_diff = std::max<int64_t>(max_diff, diff);
      const bool allowed =
          diff == 1 && (run.c.tolerance == Tolerance::kOneStep ||
                        (run.c.tolerance == Tolerance::kTies && run.c.ties.at(i) != 0));
      if (allowed) {
        ++run.tolerated;
        continue;
      }
      if (bad++ < 5)
        detail << "\n      at " << coordinates(static_cast<int64_t>(i), run.output_shape)
               << " (flat " << i << "): tinyaot " << a << ", tfjs " << b;
    }
  }
  if (bad == 0) return true;
  std::ostringstream head;
  head << bad << " of " << (run.c.float_output ? ours.size() / 4 : ours.size()) << " values differ";
  if (!run.c.float_output) head << " (max |diff| " << max_diff << ")";
  run.detail = head.str() + ", first:" + detail.str();
  return false;
}

const char* tolerance_name(Tolerance t) {
  switch (t) {
    case Tolerance::kExact:
      return "exact";
    case Tolerance::kOneStep:
      return "+-1";
    case Tolerance::kTies:
      return "exact except +-1 at ties";
  }
  return "?";
}

void write_case_notes(const CaseRun& run, const std::string& rounding) {
  std::ofstream notes(run.dir / "case.txt");
  notes << "operator  " << run.c.op << "\ncase      " << run.index << "\ncase seed "
        << hex(run.seed) << "\nrounding  " << rounding << "\ncompare   "
        << tolerance_name(run.c.tolerance) << "\nparams    " << run.c.params
        << "\n\nreproduce:\n  TINYAOT_DIFF_OPS=" << run.c.op
        << " TINYAOT_DIFF_CASE_SEED=" << hex(run.seed)
        << " tinyaot_differential\n  tinyaot compile " << (run.dir / "model.tflite").string()
        << " --target cortex-m4 --rounding " << rounding
        << " -o /tmp/case.tao\n  tinyaot run /tmp/case.tao";
  for (size_t i = 0; i < run.c.inputs.size(); ++i)
    notes << " --input " << (run.dir / ("input" + std::to_string(i) + ".bin")).string();
  notes << " --output /tmp/case.out\n  (tfjs's output: oracle0.bin; tinyaot's: tinyaot0.bin)\n";
}

TEST(Differential, EveryOperatorAgainstTfjs) {
  const std::string source_dir = TINYAOT_SOURCE_DIR;
  const std::string node = env("TINYAOT_NODE", "node");
  if (const auto why = oracle_unavailable(source_dir, node)) GTEST_SKIP() << *why;

  // Every imported operator needs a generator; a new operator without one
  // fails here rather than going untested.
  const std::vector<std::string> generated = generated_ops();
  const std::set<std::string> has_generator(generated.begin(), generated.end());
  std::vector<std::string> ops;
  for (const std::string& op : imported_ops()) {
    EXPECT_TRUE(has_generator.count(op)) << "no differential generator for " << op;
    if (has_generator.count(op)) ops.push_back(op);
  }
  if (const std::string filter = env("TINYAOT_DIFF_OPS"); !filter.empty()) {
    std::vector<std::string> selected;
    for (const std::string& op : split(filter)) {
      if (std::find(ops.begin(), ops.end(), op) == ops.end()) {
        ADD_FAILURE() << "TINYAOT_DIFF_OPS names " << op << ", which has no generator";
        continue;
      }
      selected.push_back(op);
    }
    ops = selected;
  }
  ASSERT_FALSE(ops.empty());

  const uint64_t seed =
      std::stoull(env("TINYAOT_DIFF_SEED", std::to_string(kDefaultSeed)), nullptr, 0);
  const std::string case_seed = env("TINYAOT_DIFF_CASE_SEED");
  const int num_cases = case_seed.empty()
                            ? std::stoi(env("TINYAOT_DIFF_CASES", std::to_string(kDefaultCases)))
                            : static_cast<int>(ops.size());
  const bool keep_all = env("TINYAOT_DIFF_KEEP") == "1";
  const fs::path workdir = fs::path(env("TINYAOT_DIFF_WORKDIR", TINYAOT_DIFF_WORKDIR));
  // Only this test's own files: the directory may be one the user named.
  fs::remove_all(workdir / "cases");
  if (fs::exists(workdir))
    for (const auto& entry : fs::directory_iterator(workdir))
      if (entry.path().filename().string().rfind("oracle_", 0) == 0) fs::remove(entry.path());
  fs::create_directories(workdir / "cases");

  std::vector<CaseRun> runs(static_cast<size_t>(num_cases));
  std::vector<OracleJob> jobs;
  std::vector<size_t> job_case;
  modelgen::Rng seeds(seed);
  for (int i = 0; i < num_cases; ++i) {
    CaseRun& run = runs[static_cast<size_t>(i)];
    run.index = i;
    run.seed = case_seed.empty() ? seeds.next() : std::stoull(case_seed, nullptr, 0);
    const std::string& op = ops[static_cast<size_t>(i) % ops.size()];
    run.c = generate_case(op, run.seed);
    std::ostringstream name;
    name << std::setw(4) << std::setfill('0') << i << "_" << op;
    run.dir = workdir / "cases" / name.str();
    fs::create_directories(run.dir);
    write(run.dir / "model.tflite", run.c.model);
    OracleJob job;
    job.model = (run.dir / "model.tflite").string();
    if (!run.c.oracle_model.empty()) {
      write(run.dir / "oracle_model.tflite", run.c.oracle_model);
      job.model = (run.dir / "oracle_model.tflite").string();
    }
    for (size_t k = 0; k < run.c.inputs.size(); ++k) {
      const fs::path path = run.dir / ("input" + std::to_string(k) + ".bin");
      write(path, run.c.inputs[k]);
      job.inputs.push_back(path.string());
    }
    if (!run.c.oracle_inputs.empty()) {
      job.inputs.clear();
      for (size_t k = 0; k < run.c.oracle_inputs.size(); ++k) {
        const fs::path path = run.dir / ("oracle_input" + std::to_string(k) + ".bin");
        write(path, run.c.oracle_inputs[k]);
        job.inputs.push_back(path.string());
      }
    }
    job.outputs.push_back((run.dir / "oracle0.bin").string());
    write_case_notes(run, rounding_name(run.c.rounding));

    CompileOptions options;
    options.target.rounding = run.c.rounding;
    options.model_name = op;
    options.debug_info = false;
    Compilation compilation;
    try {
      compilation = compile_model(run.c.model.data(), run.c.model.size(), options);
    } catch (const std::exception& e) {
      run.outcome = Outcome::kCompileFail;
      run.detail = e.what();
      continue;
    }
    const Graph& g = compilation.graph;
    run.output_shape = g.tensors[static_cast<size_t>(g.outputs.at(0))].shape;
    std::vector<std::vector<uint8_t>> outputs;
    const Status status = test::run_on_host(compilation.program, run.c.inputs, &outputs);
    if (status != Status::kOk || outputs.size() != 1) {
      run.outcome = Outcome::kRunFail;
      run.detail = std::string("run_on_host: ") + status_name(status);
      continue;
    }
    run.ours = outputs[0];
    write(run.dir / "tinyaot0.bin", run.ours);
    jobs.push_back(job);
    job_case.push_back(static_cast<size_t>(i));
  }

  const std::vector<OracleResult> results = run_oracle(source_dir, node, workdir.string(), jobs);
  for (size_t j = 0; j < jobs.size(); ++j) {
    CaseRun& run = runs[job_case[j]];
    if (!results[j].ok) {
      run.outcome = Outcome::kOracleFail;
      run.detail = "tfjs rejected the case: " + results[j].error;
      continue;
    }
    if (!compare(run, test::read_file(jobs[j].outputs[0]))) run.outcome = Outcome::kMismatch;
  }

  // Report: one line per operator, then each failure.
  std::map<std::string, OpSummary> summary;
  for (const CaseRun& run : runs) {
    OpSummary& s = summary[run.c.op];
    ++s.cases;
    s.values += static_cast<int64_t>(run.ours.size() / (run.c.float_output ? 4 : 1));
    s.tolerated += run.tolerated;
    switch (run.outcome) {
      case Outcome::kPass:
        ++s.passed;
        break;
      case Outcome::kCompileFail:
        if (s.compile_fail++ == 0) s.first_compile_error = run.detail;
        break;
      case Outcome::kRunFail:
        ++s.run_fail;
        break;
      case Outcome::kOracleFail:
        ++s.oracle_fail;
        break;
      case Outcome::kMismatch:
        ++s.mismatch;
        break;
    }
  }
  std::ostringstream table;
  table << "differential test: " << num_cases << " cases, seed " << seed << ", " << ops.size()
        << " operators; failing cases kept under " << (workdir / "cases").string() << "\n  "
        << std::left << std::setw(19) << "operator" << std::right << std::setw(6) << "cases"
        << std::setw(6) << "pass" << std::setw(9) << "compile" << std::setw(5) << "run"
        << std::setw(7) << "oracle" << std::setw(10) << "mismatch" << std::setw(9) << "values"
        << "  notes\n";
  std::vector<std::string> not_compiling;
  for (const std::string& op : ops) {
    const OpSummary& s = summary[op];
    table << "  " << std::left << std::setw(19) << op << std::right << std::setw(6) << s.cases
          << std::setw(6) << s.passed << std::setw(9) << s.compile_fail << std::setw(5)
          << s.run_fail << std::setw(7) << s.oracle_fail << std::setw(10) << s.mismatch
          << std::setw(9) << s.values;
    if (s.tolerated > 0) table << "  " << s.tolerated << " values +-1 (tolerated)";
    table << "\n";
    if (s.compile_fail > 0) not_compiling.push_back(op);
  }
  std::cout << table.str() << std::flush;
  if (!not_compiling.empty()) {
    std::ostringstream message;
    message << "operators with cases that tinyaot fails to compile:";
    for (const std::string& op : not_compiling)
      message << "\n  " << op << " (" << summary[op].compile_fail << " of " << summary[op].cases
              << "): " << summary[op].first_compile_error;
    ADD_FAILURE() << message.str();
  }
  std::map<std::string, int> reported;
  for (const CaseRun& run : runs) {
    const bool failed = run.outcome != Outcome::kPass;
    if (!failed) {
      if (!keep_all) fs::remove_all(run.dir);
      continue;
    }
    if (run.outcome == Outcome::kCompileFail) continue;  // summarized above
    if (reported[run.c.op]++ >= 3) continue;             // the first few per operator
    const char* what = run.outcome == Outcome::kRunFail      ? "run failure"
                       : run.outcome == Outcome::kOracleFail ? "oracle failure"
                                                             : "MISMATCH";
    ADD_FAILURE() << what << ": " << run.c.op << " case " << run.index << " (case seed "
                  << hex(run.seed) << ", rounding " << rounding_name(run.c.rounding) << ", compare "
                  << tolerance_name(run.c.tolerance) << ")\n    " << run.c.params << "\n    "
                  << run.detail << "\n    files: " << run.dir.string();
  }
}

}  // namespace
}  // namespace tinyaot::difftest
