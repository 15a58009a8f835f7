#include "qemu_runner.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "compiler/emit/report.h"
#include "file_io.h"
#include "numbers.h"
#include "per_op.h"
#include "tinyaot/runtime.h"

extern char** environ;

namespace tinyaot::cli {
namespace {

using Error = std::runtime_error;

const char* const kEmulatedCores[] = {"m0", "m3", "m4", "m7", "m33", "m55"};

std::string tool_path() { return std::string(TINYAOT_SOURCE_DIR) + "/tools/qemu/tinyaot-qemu"; }

// The firmware sits beside this CLI's build, so a source tree with several
// build directories never mixes their firmwares.
std::string build_root() { return std::string(TINYAOT_BINARY_DIR) + "/arm"; }

// The board exit codes of targets/boards/common/board.h and the wrapper's.
std::string explain_exit(int code) {
  switch (code) {
    case 0xe1:
      return "firmware usage error";
    case 0xe2:
      return "file transfer failed";
    case 0xe3:
      return "program and arena do not fit the board";
    case 0xfa:
      return "fault on the target";
    case 0xfb:
      return "stack overflow on the target";
    case 0xfc:
      return "firmware runs on the wrong CPU";
    case 124:
      return "QEMU timed out";
    case 134:
      return "QEMU aborted (CPU lockup)";
    case 2:
      return "tinyaot-qemu could not start the run";
    default:
      if (code > 0 && code < 0x40) {
        const Status s = static_cast<Status>(code);
        return std::string(status_text(s)) + " (" + status_name(s) + ")";
      }
      return "unexpected exit status";
  }
}

// Runs argv without a shell (paths stay intact); returns the exit status.
// With `captured`, the child's standard output is collected there.
int spawn(const std::vector<std::string>& args, std::string* captured) {
  std::vector<char*> argv;
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  int pipe_fds[2] = {-1, -1};
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  if (captured) {
    if (pipe(pipe_fds) != 0) throw Error("cannot create a pipe");
    posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], STDOUT_FILENO);
    posix_spawn_file_actions_addclose(&actions, pipe_fds[0]);
    posix_spawn_file_actions_addclose(&actions, pipe_fds[1]);
  }
  pid_t pid = 0;
  const int spawned = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (captured) close(pipe_fds[1]);
  if (spawned != 0) {
    if (captured) close(pipe_fds[0]);
    throw Error("cannot start " + args[0] + ": " + std::strerror(spawned));
  }
  if (captured) {
    char buffer[4096];
    ssize_t n = 0;
    while ((n = read(pipe_fds[0], buffer, sizeof buffer)) > 0)
      captured->append(buffer, static_cast<size_t>(n));
    close(pipe_fds[0]);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) throw Error("lost the child process");
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

std::vector<std::string> tool_command(const std::string& core, const std::string& program,
                                      const std::string& compiler = "gcc") {
  std::vector<std::string> command = {tool_path(), "--core", core, "--opt", "2"};
  command.insert(command.end(), {"--compiler", compiler, "--build-root", build_root(), program});
  return command;
}

void check_paths(const std::vector<std::string>& paths) {
  // The semihosting command line is split at spaces.
  for (const std::string& p : paths)
    if (std::filesystem::absolute(p).string().find(' ') != std::string::npos)
      throw Error("'" + p + "': paths with spaces cannot be passed to the emulated board");
}

// Input sizes from the program itself, as the host loader reads them.
std::vector<uint32_t> input_sizes(const std::string& path) {
  const std::vector<uint8_t> bytes = read_file(path);
  struct alignas(kConstantAlignment) Block {
    uint8_t b[kConstantAlignment];
  };
  std::vector<Block> storage(bytes.size() / sizeof(Block) + 1);
  std::memcpy(storage.data(), bytes.data(), bytes.size());
  Program program;
  const Status status = load_program(reinterpret_cast<const uint8_t*>(storage.data()),
                                     static_cast<uint32_t>(bytes.size()), &program);
  if (status != Status::kOk)
    throw Error("'" + path + "' does not load: " + status_text(status) + " (" +
                status_name(status) + ")");
  std::vector<uint32_t> sizes;
  for (uint32_t i = 0; i < program.header->num_inputs; ++i)
    sizes.push_back(program.inputs[i].bytes);
  return sizes;
}

// A fixed 32-bit LCG: the same bytes on every machine and every run.
std::vector<uint8_t> generated_input(uint32_t bytes, uint32_t seed) {
  std::vector<uint8_t> data(bytes);
  uint32_t state = 0x9e3779b9u ^ seed;
  for (uint8_t& b : data) {
    state = state * 1664525u + 1013904223u;
    b = static_cast<uint8_t>(state >> 24);
  }
  return data;
}

// Temporary files removed however the bench ends.
struct TempDir {
  std::filesystem::path path;
  TempDir() {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "tinyaot-bench-XXXXXX").string();
    if (!mkdtemp(pattern.data())) throw Error("cannot create a temporary directory");
    path = pattern;
  }
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path, ignored);
  }
};

// One measured run of tinyaot-qemu: its JSON (with "segments" when
// per_op: the profiling firmware).
nlohmann::json measure(const std::string& core, const std::string& program,
                       const std::vector<std::string>& inputs, bool per_op,
                       const std::string& compiler) {
  std::vector<std::string> args = tool_command(core, program, compiler);
  args.insert(args.begin() + 1, "--measure");
  if (per_op) args.insert(args.begin() + 2, "--per-op");
  for (const std::string& f : inputs) args.insert(args.end(), {"--input", f});
  std::string out;
  const int status = spawn(args, &out);
  if (status != 0)
    throw Error("bench on qemu:cortex-" + core + (per_op ? " (per operation)" : "") +
                " failed: exit status " + std::to_string(status) + ", " + explain_exit(status));
  try {
    return nlohmann::json::parse(out);
  } catch (const nlohmann::json::exception&) {
    throw Error("tinyaot-qemu printed no measurement: " + out);
  }
}

}  // namespace

std::string qemu_core(const std::string& on) {
  const std::string prefix = "qemu:";
  std::string core = on.rfind(prefix, 0) == 0 ? on.substr(prefix.size()) : "";
  if (core.rfind("cortex-", 0) == 0) core = core.substr(7);
  for (const char* supported : kEmulatedCores)
    if (core == supported) return core;
  throw Error(
      "unsupported --on '" + on +
      "': use qemu:cortex-m0, qemu:cortex-m3, qemu:cortex-m4, qemu:cortex-m7, qemu:cortex-m33 or "
      "qemu:cortex-m55");
}

void run_on_qemu(const std::string& core, const std::string& program,
                 const std::vector<std::string>& inputs, const std::vector<std::string>& outputs,
                 uint32_t steps) {
  check_paths(inputs);
  check_paths(outputs);
  check_paths({program});
  std::vector<std::string> args = tool_command(core, program);
  // Several steps: the firmware runs one vector of files per step as a
  // stream, so each file is cut into per-step slices and joined after.
  TempDir temp;
  std::vector<std::string> step_inputs = inputs, step_outputs = outputs;
  if (steps > 1) {
    args.push_back("--stream");
    step_inputs.clear();
    step_outputs.clear();
    std::vector<std::vector<uint8_t>> data;
    for (const std::string& f : inputs) data.push_back(read_file(f));
    for (uint32_t k = 0; k < steps; ++k) {
      for (size_t i = 0; i < inputs.size(); ++i) {
        const size_t slice = data[i].size() / steps;
        const std::string path =
            (temp.path / ("in" + std::to_string(k) + "_" + std::to_string(i))).string();
        write_files_atomically({{path, std::vector<uint8_t>(data[i].begin() + k * slice,
                                                            data[i].begin() + (k + 1) * slice)}});
        step_inputs.push_back(path);
      }
      for (size_t o = 0; o < outputs.size(); ++o)
        step_outputs.push_back(
            (temp.path / ("out" + std::to_string(k) + "_" + std::to_string(o))).string());
    }
  }
  for (const std::string& f : step_inputs) args.insert(args.end(), {"--input", f});
  for (const std::string& f : step_outputs) args.insert(args.end(), {"--output", f});
  // The firmware's console lines matter only when the run fails: on
  // success the CLI stays as quiet as a host run.
  std::string console;
  const int status = spawn(args, &console);
  if (status != 0) {
    std::cerr << console;
    throw Error("run on qemu:cortex-" + core + " failed: exit status " + std::to_string(status) +
                ", " + explain_exit(status));
  }
  if (steps <= 1) return;
  std::vector<std::pair<std::string, std::vector<uint8_t>>> joined;
  for (size_t o = 0; o < outputs.size(); ++o) {
    joined.push_back({outputs[o], {}});
    for (uint32_t k = 0; k < steps; ++k) {
      const std::vector<uint8_t> part = read_file(step_outputs[k * outputs.size() + o]);
      joined.back().second.insert(joined.back().second.end(), part.begin(), part.end());
    }
  }
  write_files_atomically(joined);
}

int do_bench(const BenchArgs& a) {
  const std::string core = qemu_core(a.on);
  const std::vector<uint32_t> sizes = input_sizes(a.program);
  TempDir temp;
  std::vector<std::string> inputs = a.inputs;
  if (inputs.empty()) {
    for (uint32_t i = 0; i < sizes.size(); ++i) {
      const std::string path = (temp.path / ("input" + std::to_string(i) + ".bin")).string();
      write_files_atomically({{path, generated_input(sizes[i], i)}});
      inputs.push_back(path);
    }
  } else if (sizes.empty() || inputs.size() % sizes.size() != 0) {
    throw Error("the program takes " + std::to_string(sizes.size()) + " input(s) per inference, " +
                std::to_string(inputs.size()) + " given");
  }
  check_paths(inputs);
  check_paths({a.program});
  const nlohmann::json m = measure(core, a.program, inputs, false, a.compiler);
  const auto& flash = m.at("flash_bytes");
  const auto& ram = m.at("ram_bytes");
  const uint64_t instructions = m.at("instructions_mean").get<uint64_t>();
  // Flash counts the program wherever it lives: linked in, or (file form)
  // as it would be when shipped.
  const uint64_t flash_total = flash.at("total_with_program").get<uint64_t>();
  const uint64_t ram_total = ram.at("total").get<uint64_t>();
  const auto& runtime_kernels = flash.at("runtime_kernels");
  const uint64_t runtime_kernels_total = runtime_kernels.at("total").get<uint64_t>();
  PerOpProfile profile;
  if (a.per_op)
    profile = per_op_profile(program_report(read_file(a.program)),
                             measure(core, a.program, inputs, true, a.compiler), m);
  if (a.json) {
    nlohmann::json r = {{"program", a.program},
                        {"on", "qemu:cortex-" + core},
                        {"board", m.at("board")},
                        {"firmware_opt", m.at("opt")},
                        {"input", a.inputs.empty() ? "generated" : "given"},
                        {"instructions_per_inference", instructions},
                        {"instructions", m.at("instructions")},
                        {"flash_bytes", flash_total},
                        {"runtime_kernels_code_bytes", runtime_kernels_total},
                        {"ram_bytes", ram_total},
                        {"flash", flash},
                        {"ram", ram}};
    if (a.per_op) r["per_op"] = per_op_json(profile);
    std::cout << r.dump(1) << "\n";
    return 0;
  }
  const uint64_t program_bytes = m.at("program_bytes").get<uint64_t>();
  std::cout << a.program << " on qemu:cortex-" << core << " (" << m.at("board").get<std::string>()
            << ", firmware -" << m.at("opt").get<std::string>() << ", "
            << (a.inputs.empty() ? "generated" : "given") << " input, "
            << m.at("vectors").get<int>() << " inference(s))\n"
            << "instructions per inference: " << with_commas(instructions) << "\n"
            << "flash bytes: " << with_commas(flash_total) << " (code "
            << with_commas(flash.at("text")) << ", constants " << with_commas(flash.at("rodata"))
            << ", data image " << with_commas(flash.at("data")) << ", program "
            << with_commas(program_bytes) << ")\n"
            << "runtime + kernels code: " << with_commas(runtime_kernels_total) << " (code "
            << with_commas(runtime_kernels.at("text")) << ", constants "
            << with_commas(runtime_kernels.at("rodata"))
            << "; every kernel variant linked; program, runner, startup and C library excluded)\n"
            << "RAM bytes: " << with_commas(ram_total) << " (data " << with_commas(ram.at("data"))
            << ", bss " << with_commas(ram.at("bss")) << ", arena " << with_commas(ram.at("arena"))
            << ", stack high-water " << with_commas(ram.at("stack_peak")) << ")\n";
  if (a.per_op) std::cout << per_op_table(profile);
  return 0;
}

}  // namespace tinyaot::cli
