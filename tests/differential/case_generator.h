// Random single-operator int8 models for the differential test against
// tfjs-tflite: one generator per operator tinyaot imports, each drawing
// shapes, options and quantization within what TFLite itself accepts.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tinyaot/target.h"

namespace tinyaot::difftest {

// How tinyaot's output must relate to the oracle's (see
// /work/shared/docs/oracle.md: tfjs runs some operators on XNNPACK).
enum class Tolerance : uint8_t {
  kExact,
  kOneStep,  // |difference| <= 1 anywhere (XNNPACK's own int8 arithmetic)
  kTies,     // exact, except +-1 where the flagged value sits on a half-step tie
};

struct DiffCase {
  std::string op;      // TFLite builtin name
  std::string params;  // human-readable summary of every random choice
  std::vector<uint8_t> model;
  // When not empty, the oracle runs this equivalent model on these inputs
  // instead (works around a tfjs defect; `params` says which).
  std::vector<uint8_t> oracle_model;
  std::vector<std::vector<uint8_t>> oracle_inputs;
  std::vector<std::vector<uint8_t>> inputs;
  Rounding rounding = Rounding::kDouble;
  Tolerance tolerance = Tolerance::kExact;
  bool float_output = false;  // DEQUANTIZE: compare float32 values
  size_t output_bytes = 1;    // else the output's element size (int8, int16, int32)
  std::vector<uint8_t> ties;  // kTies: 1 where output value i is a tie
};

// The operators with a generator: TFLite builtin names, and for the
// int16x8 cases the builtin name followed by kInt16Suffix.
std::vector<std::string> generated_ops();
constexpr const char* kInt16Suffix = "_INT16";
// The builtin name of a generator's name.
std::string builtin_of(const std::string& generator);

// Deterministic in (op, seed). Throws std::invalid_argument for an unknown op.
DiffCase generate_case(const std::string& op, uint64_t seed);

// How far an operator's output may sit from tfjs's, over all its cases in a
// run: the share of compared values one tolerated step away.
struct ToleratedShare {
  double cap = 0;       // the largest share allowed; 0: the operator must match exactly
  int case_weight = 1;  // its cases per round of the deal, so that the share
                        // is measured on enough values to tell a bug apart
};
ToleratedShare tolerated_share(const std::string& op);

}  // namespace tinyaot::difftest
