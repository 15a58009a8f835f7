// Differential test: random single-operator models for every operator
// tinyaot imports, compiled by tinyaot and run on the host runtime, against
// tfjs-tflite (TFLite in WebAssembly) run in one Node process.
//
// One test per ISA class: the cases are planned for a scalar (cortex-m0), a
// DSP (cortex-m4) and an MVE (cortex-m55) target, half of each operator's
// cases with --prefer memory and half with --prefer speed, and run on the
// host, whose runtime accepts every class (each variant's intrinsic path has
// a portable twin there). A DSP or MVE plan must also give exactly the
// scalar plan's output.
//
// Each operator is compared in the rounding mode of the engine tfjs uses for
// it (/work/shared/docs/oracle.md): single rounding for CONV_2D,
// DEPTHWISE_CONV_2D, FULLY_CONNECTED and BATCH_MATMUL; TFLite Micro's double
// rounding for the rest; within one step only where tfjs's arithmetic is
// neither (XNNPACK's: MUL, MEAN, LEAKY_RELU, QUANTIZE int8->int8, per-tensor
// TRANSPOSE_CONV; TFLite's float-table SOFTMAX) and at the half-step ties of
// QUANTIZE from float32. case_generator.cpp says why, operator by operator,
// and how each case stays inside what tfjs's TFLite accepts. The share of
// values off by that step is printed per operator and capped
// (tolerated_share); those operators get several times the cases, so that
// the share is measured on enough values.
//
// Failing cases keep their files under <build>/differential/cases/ with a
// case.txt holding the parameters and the commands to reproduce them.
//
// Environment:
//   TINYAOT_DIFF_CASES=N       number of cases per ISA class (default 12 per
//                              operator and case_weight), dealt round-robin
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

constexpr int kDefaultCasesPerOp = 12;  // per unit of case_weight
constexpr uint64_t kDefaultSeed = 1;

// The plan every other class's output must equal.
constexpr Core kScalarCore = Core::kCortexM0;

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

enum class Outcome { kPass, kCompileFail, kRunFail, kScalarMismatch, kOracleFail, kMismatch };

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
  bool prefer_speed = false;
};

struct OpSummary {
  int cases = 0, passed = 0, compile_fail = 0, run_fail = 0, oracle_fail = 0, mismatch = 0;
  int scalar_mismatch = 0;
  int64_t values = 0, tolerated = 0;
  std::string first_compile_error;
};

void write(const fs::path& path, const std::vector<uint8_t>& bytes) {
  test::write_file(path.string(), bytes);
}

// Element i of a little-endian buffer of signed `width`-byte integers.
int64_t signed_element(const std::vector<uint8_t>& bytes, size_t i, size_t width) {
  uint64_t value = 0;
  for (size_t b = 0; b < width; ++b) value |= uint64_t{bytes[i * width + b]} << (8 * b);
  const unsigned unused = 64 - 8 * static_cast<unsigned>(width);
  return static_cast<int64_t>(value << unused) >> unused;
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
    const size_t width = run.c.output_bytes;
    for (size_t i = 0; i < ours.size() / width; ++i) {
      const int64_t a = signed_element(ours, i, width), b = signed_element(oracle, i, width);
      const int64_t diff = std::abs(a - b);
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
  head << bad << " of " << ours.size() / (run.c.float_output ? 4 : run.c.output_bytes)
       << " values differ";
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

void write_case_notes(const CaseRun& run, const std::string& rounding, Core core) {
  std::ofstream notes(run.dir / "case.txt");
  notes << "operator  " << run.c.op << "\ncase      " << run.index << "\ncase seed "
        << hex(run.seed) << "\nrounding  " << rounding << "\ncompare   "
        << tolerance_name(run.c.tolerance) << "\nparams    " << run.c.params
        << "\n\nreproduce:\n  TINYAOT_DIFF_OPS=" << run.c.op
        << " TINYAOT_DIFF_CASE_SEED=" << hex(run.seed) << " tinyaot_differential --gtest_filter='*"
        << core_name(core) << "*'\n  tinyaot compile " << (run.dir / "model.tflite").string()
        << " --target " << core_name(core) << " --rounding " << rounding << " --prefer "
        << (run.prefer_speed ? "speed" : "memory")
        << " -o /tmp/case.tao\n  tinyaot run /tmp/case.tao";
  for (size_t i = 0; i < run.c.inputs.size(); ++i)
    notes << " --input " << (run.dir / ("input" + std::to_string(i) + ".bin")).string();
  notes << " --output /tmp/case.out\n  (tfjs's output: oracle0.bin; tinyaot's: tinyaot0.bin)\n";
}

// The kernel variants a target's plans used.
struct VariantTally {
  std::map<std::string, int> operations;  // variant name -> operations planned on it
  int own_class = 0;                      // operations on a variant of the target's class
};

// Compiles a case for `core` and runs it on the host; false (with `detail`
// and `outcome` filled) when either fails. With `variants`, counts the plan's
// variants and records the output shape.
bool compile_and_run(CaseRun& run, Core core, std::vector<uint8_t>* output,
                     VariantTally* variants) {
  CompileOptions options;
  options.target.core = core;
  options.target.isa = core_isa(core);
  options.target.rounding = run.c.rounding;
  options.prefer_speed = run.prefer_speed;
  options.model_name = run.c.op;
  options.debug_info = false;
  Compilation compilation;
  try {
    compilation = compile_model(run.c.model.data(), run.c.model.size(), options);
  } catch (const std::exception& e) {
    run.outcome = Outcome::kCompileFail;
    run.detail = std::string(core_name(core)) + ": " + e.what();
    return false;
  }
  if (variants != nullptr) {
    for (const LoweredOp& op : compilation.ops)
      if (const KernelDescriptor* d = find_kernel(static_cast<uint32_t>(op.kernel))) {
        ++variants->operations[d->name];
        variants->own_class += d->isa == core_isa(core);
      }
    const Graph& g = compilation.graph;
    run.output_shape = g.tensors[static_cast<size_t>(g.outputs.at(0))].shape;
  }
  std::vector<std::vector<uint8_t>> outputs;
  const Status status = test::run_on_host(compilation.program, run.c.inputs, &outputs);
  if (status != Status::kOk || outputs.size() != 1) {
    run.outcome = Outcome::kRunFail;
    run.detail = std::string(core_name(core)) + " plan, run_on_host: " + status_name(status);
    return false;
  }
  *output = std::move(outputs[0]);
  return true;
}

class Differential : public ::testing::TestWithParam<Core> {};

TEST_P(Differential, EveryOperatorAgainstTfjs) {
  const Core core = GetParam();
  const IsaClass isa = core_isa(core);
  const std::string source_dir = TINYAOT_SOURCE_DIR;
  const std::string node = env("TINYAOT_NODE", "node");
  if (const auto why = oracle_unavailable(source_dir, node)) GTEST_SKIP() << *why;

  // Every imported operator needs a generator; a new operator without one
  // fails here rather than going untested. The ones only ONNX graphs reach
  // (the TFLite importer never emits them) are tested against onnxruntime
  // instead, by tests/onnx_ops/differential.py.
  const std::set<std::string> onnx_only = {"RESIZE_NEAREST_NEIGHBOR", "LOOKUP_TABLE"};
  const std::vector<std::string> generated = generated_ops();
  const std::set<std::string> has_generator(generated.begin(), generated.end());
  std::vector<std::string> ops;
  const std::vector<std::string> imported = imported_ops();
  for (const std::string& op : imported) {
    if (onnx_only.count(op)) continue;
    EXPECT_TRUE(has_generator.count(op)) << "no differential generator for " << op;
    if (has_generator.count(op)) ops.push_back(op);
  }
  // The int16x8 generators of imported operators.
  for (const std::string& name : generated)
    if (builtin_of(name) != name &&
        std::find(imported.begin(), imported.end(), builtin_of(name)) != imported.end())
      ops.push_back(name);
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

  // The order cases are dealt in: every operator once, then the weighted
  // ones again until each has its case_weight turns per round.
  int max_weight = 1;
  for (const std::string& op : ops)
    max_weight = std::max(max_weight, tolerated_share(op).case_weight);
  std::vector<std::string> deal;
  for (int turn = 0; turn < max_weight; ++turn)
    for (const std::string& op : ops)
      if (tolerated_share(op).case_weight > turn) deal.push_back(op);

  const uint64_t seed =
      std::stoull(env("TINYAOT_DIFF_SEED", std::to_string(kDefaultSeed)), nullptr, 0);
  const std::string case_seed = env("TINYAOT_DIFF_CASE_SEED");
  if (!case_seed.empty()) deal = ops;
  const int default_cases = kDefaultCasesPerOp * static_cast<int>(deal.size());
  const int num_cases = case_seed.empty()
                            ? std::stoi(env("TINYAOT_DIFF_CASES", std::to_string(default_cases)))
                            : static_cast<int>(ops.size());
  const bool keep_all = env("TINYAOT_DIFF_KEEP") == "1";
  // One directory per class: CTest may run the three tests at once.
  const fs::path workdir =
      fs::path(env("TINYAOT_DIFF_WORKDIR", TINYAOT_DIFF_WORKDIR)) / core_name(core);
  // Only this test's own files: the directory may be one the user named.
  fs::remove_all(workdir / "cases");
  if (fs::exists(workdir))
    for (const auto& entry : fs::directory_iterator(workdir))
      if (entry.path().filename().string().rfind("oracle_", 0) == 0) fs::remove(entry.path());
  fs::create_directories(workdir / "cases");

  std::vector<CaseRun> runs(static_cast<size_t>(num_cases));
  VariantTally variants;
  std::vector<OracleJob> jobs;
  std::vector<size_t> job_case;
  modelgen::Rng seeds(seed);
  for (int i = 0; i < num_cases; ++i) {
    CaseRun& run = runs[static_cast<size_t>(i)];
    run.index = i;
    run.seed = case_seed.empty() ? seeds.next() : std::stoull(case_seed, nullptr, 0);
    const std::string& op = deal[static_cast<size_t>(i) % deal.size()];
    run.c = generate_case(op, run.seed);
    // Alternate rounds: the scratch-free variants memory picks at the
    // arena's peak, and the fastest ones.
    run.prefer_speed = (static_cast<size_t>(i) / deal.size()) % 2 == 1;
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
    write_case_notes(run, rounding_name(run.c.rounding), core);

    if (!compile_and_run(run, core, &run.ours, &variants)) continue;
    write(run.dir / "tinyaot0.bin", run.ours);
    if (isa != IsaClass::kScalar) {
      std::vector<uint8_t> scalar;
      if (!compile_and_run(run, kScalarCore, &scalar, nullptr)) continue;
      if (scalar != run.ours) {
        write(run.dir / "scalar0.bin", scalar);
        size_t differing = 0;
        for (size_t k = 0; k < scalar.size() && k < run.ours.size(); ++k)
          differing += scalar[k] != run.ours[k];
        run.outcome = Outcome::kScalarMismatch;
        run.detail = std::to_string(differing) + " of " + std::to_string(run.ours.size()) +
                     " bytes differ from the " + core_name(kScalarCore) +
                     " plan's output (scalar0.bin)";
        continue;
      }
    }
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
    if (run.outcome == Outcome::kPass || run.outcome == Outcome::kMismatch)
      s.values +=
          static_cast<int64_t>(run.ours.size() / (run.c.float_output ? 4 : run.c.output_bytes));
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
      case Outcome::kScalarMismatch:
        ++s.scalar_mismatch;
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
  table << "differential test, planned for " << core_name(core) << " (ISA class " << isa_name(isa)
        << "): " << num_cases << " cases, seed " << seed << ", " << ops.size()
        << " operators; failing cases kept under " << (workdir / "cases").string() << "\n  "
        << std::left << std::setw(24) << "operator" << std::right << std::setw(6) << "cases"
        << std::setw(6) << "pass" << std::setw(9) << "compile" << std::setw(5) << "run"
        << std::setw(10) << "!=scalar" << std::setw(7) << "oracle" << std::setw(10) << "mismatch"
        << std::setw(9) << "values"
        << "  values +-1 (share, cap)\n";
  std::vector<std::string> not_compiling, over_cap;
  for (const std::string& op : ops) {
    const OpSummary& s = summary[op];
    table << "  " << std::left << std::setw(24) << op << std::right << std::setw(6) << s.cases
          << std::setw(6) << s.passed << std::setw(9) << s.compile_fail << std::setw(5)
          << s.run_fail << std::setw(10) << s.scalar_mismatch << std::setw(7) << s.oracle_fail
          << std::setw(10) << s.mismatch << std::setw(9) << s.values;
    const double cap = tolerated_share(op).cap;
    const double share = s.values > 0 ? static_cast<double>(s.tolerated) / s.values : 0.0;
    if (cap > 0 || s.tolerated > 0)
      table << "  " << s.tolerated << " (" << std::fixed << std::setprecision(2) << 100 * share
            << "%, cap " << 100 * cap << "%)" << std::defaultfloat;
    table << "\n";
    if (s.compile_fail > 0) not_compiling.push_back(op);
    if (share > cap) over_cap.push_back(op);
  }
  table << "  variants planned:";
  for (const auto& [name, count] : variants.operations) table << " " << name << " x" << count;
  std::cout << table.str() << std::endl;
  for (const std::string& op : over_cap)
    ADD_FAILURE() << op << ": " << summary[op].tolerated << " of " << summary[op].values
                  << " values are one step from tfjs, above the cap of "
                  << 100 * tolerated_share(op).cap
                  << "% (tolerated_share): a rounding fault, not tfjs's arithmetic";
  // The plan must reach the class's own variants, or this test would
  // compare the scalar code again.
  if (env("TINYAOT_DIFF_OPS").empty() && case_seed.empty()) {
    EXPECT_GT(variants.own_class, 0)
        << "no operation was planned on a " << isa_name(isa) << " variant";
  }
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
    const char* what = run.outcome == Outcome::kRunFail          ? "run failure"
                       : run.outcome == Outcome::kOracleFail     ? "oracle failure"
                       : run.outcome == Outcome::kScalarMismatch ? "MISMATCH with the scalar plan"
                                                                 : "MISMATCH";
    ADD_FAILURE() << what << ": " << run.c.op << " case " << run.index << " (case seed "
                  << hex(run.seed) << ", rounding " << rounding_name(run.c.rounding) << ", compare "
                  << tolerance_name(run.c.tolerance) << ")\n    " << run.c.params << "\n    "
                  << run.detail << "\n    files: " << run.dir.string();
  }
}

std::string target_name(const ::testing::TestParamInfo<Core>& info) {
  std::string name = std::string(isa_name(core_isa(info.param))) + "_" + core_name(info.param);
  std::replace(name.begin(), name.end(), '-', '_');
  return name;
}

INSTANTIATE_TEST_SUITE_P(IsaClasses, Differential,
                         ::testing::Values(Core::kCortexM0, Core::kCortexM4, Core::kCortexM55),
                         target_name);

}  // namespace
}  // namespace tinyaot::difftest
