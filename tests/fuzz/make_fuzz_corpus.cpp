// Writes random single-operator models, drawn by the differential test's
// generator (tests/differential/case_generator.h), as seeds of the on-core
// fuzzer's corpus: their shapes lead the compiler to kernel variants the
// shared models never pick (soak-on-core.sh compiles them for its core).
//
//   tinyaot_fuzz_corpus DIR [--per-op N] [--seed S]
//
// Writes DIR/<operator>-<seed>.tflite, N per operator (default 4), seeds S,
// S+1, ... (default 1); deterministic in (N, S).
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <string>

#include "differential/case_generator.h"

int main(int argc, char** argv) {
  if (argc < 2 || argv[1][0] == '-') {
    std::cerr << "usage: tinyaot_fuzz_corpus DIR [--per-op N] [--seed S]\n";
    return 2;
  }
  const std::string dir = argv[1];
  uint64_t per_op = 4;
  uint64_t seed = 1;
  for (int i = 2; i + 1 < argc; i += 2) {
    const std::string option = argv[i];
    const uint64_t value = std::strtoull(argv[i + 1], nullptr, 10);
    if (option == "--per-op") {
      per_op = value;
    } else if (option == "--seed") {
      seed = value;
    } else {
      std::cerr << "tinyaot_fuzz_corpus: unknown option " << option << "\n";
      return 2;
    }
  }
  for (const std::string& op : tinyaot::difftest::generated_ops()) {
    for (uint64_t i = 0; i < per_op; ++i) {
      const tinyaot::difftest::DiffCase c = tinyaot::difftest::generate_case(op, seed + i);
      const std::string path = dir + "/" + op + "-" + std::to_string(seed + i) + ".tflite";
      std::ofstream out(path, std::ios::binary);
      out.write(reinterpret_cast<const char*>(c.model.data()),
                static_cast<std::streamsize>(c.model.size()));
      if (!out) {
        std::cerr << "tinyaot_fuzz_corpus: cannot write " << path << "\n";
        return 1;
      }
    }
  }
  return 0;
}
