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
  std::vector<uint8_t> ties;  // kTies: 1 where output value i is a tie
};

// The operators with a generator (TFLite builtin names).
std::vector<std::string> generated_ops();

// Deterministic in (op, seed). Throws std::invalid_argument for an unknown op.
DiffCase generate_case(const std::string& op, uint64_t seed);

// The largest share of an operator's compared values (over all its cases in
// a run) that may sit one tolerated step from tfjs; 0 for operators that
// must match exactly. Set from measured rates with margin, and below what a
// rounding bug would cause (one that truncates, or rounds negative values
// the wrong way, moves a quarter to a half of the values).
double tolerated_share_cap(const std::string& op);

}  // namespace tinyaot::difftest
