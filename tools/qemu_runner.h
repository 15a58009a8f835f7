// Running and measuring programs on emulated Cortex-M cores: the CLI's
// `--on qemu:<core>` hands the work to tools/qemu/tinyaot-qemu (firmware
// built at -O2 under <build>/arm, by arm-none-eabi-gcc unless a bench asks
// for clang; QEMU 7.2 boards as in targets/README.md).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace tinyaot::cli {

// "qemu:cortex-m4" -> "m4". Anything else (the host, unknown or unemulated
// cores) throws std::runtime_error naming what is supported.
std::string qemu_core(const std::string& on);

// Runs the program `steps` times on the core as one stream from a reset
// (step k reads the k-th input-sized slice of each input file and writes
// the k-th slice of each output file). Throws std::runtime_error with the
// firmware's exit status explained on failure.
void run_on_qemu(const std::string& core, const std::string& program,
                 const std::vector<std::string>& inputs, const std::vector<std::string>& outputs,
                 uint32_t steps = 1);

struct BenchArgs {
  std::string program, on;
  std::vector<std::string> inputs;
  bool json = false;
  bool per_op = false;           // also count each operation (tools/per_op.h)
  std::string compiler = "gcc";  // that builds the firmware: gcc or clang
};

// Counts instructions per inference and sizes flash and RAM; prints a
// summary (or JSON). Without inputs, feeds one deterministic pseudo-random
// vector so repeated runs give identical counts.
int do_bench(const BenchArgs& a);

}  // namespace tinyaot::cli
