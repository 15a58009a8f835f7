// The tinyaot command line: compile, run, report, verify.
#include <CLI/CLI.hpp>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <memory>

#include "compiler/compile.h"
#include "compiler/emit/report.h"
#include "compiler/import/import_model.h"
#include "export.h"
#include "file_io.h"
#include "qemu_runner.h"
#include "runtime_manifest.h"
#include "runtime_verify.h"
#include "tinyaot/runtime.h"

namespace tinyaot::cli {
namespace {

// A usage or input problem: printed as "tinyaot: <message>", exit code 1.
struct Failure : std::runtime_error {
  using std::runtime_error::runtime_error;
};

void log_to_stderr(const char* line) { std::cerr << line << "\n"; }

// The loader needs 16-byte alignment; keep the program in aligned storage.
class AlignedProgram {
 public:
  explicit AlignedProgram(const std::vector<uint8_t>& bytes)
      : storage_(bytes.size() + kConstantAlignment), size_(static_cast<uint32_t>(bytes.size())) {
    const auto misalignment = reinterpret_cast<uintptr_t>(storage_.data()) % kConstantAlignment;
    data_ = storage_.data() + (misalignment ? kConstantAlignment - misalignment : 0);
    if (!bytes.empty()) std::memcpy(data_, bytes.data(), bytes.size());
  }
  const uint8_t* data() const { return data_; }
  uint32_t size() const { return size_; }

 private:
  std::vector<uint8_t> storage_;
  uint8_t* data_;
  uint32_t size_;
};

Program load_or_fail(const AlignedProgram& bytes, const std::string& path) {
  Program program;
  const Status status = load_program(bytes.data(), bytes.size(), &program);
  if (status != Status::kOk)
    throw Failure("'" + path + "' does not load: " + status_text(status) + " (" +
                  status_name(status) + ")");
  return program;
}

// "65536", "64K", "64KiB", "1M": a byte count for a flag; throws otherwise.
uint64_t parse_byte_count(const std::string& text, const std::string& flag) {
  size_t digits = 0;
  while (digits < text.size() && std::isdigit(static_cast<unsigned char>(text[digits]))) ++digits;
  const std::string unit = text.substr(digits);
  uint64_t scale = 0;
  if (unit.empty()) scale = 1;
  if (unit == "K" || unit == "k" || unit == "KiB") scale = 1024;
  if (unit == "M" || unit == "MiB") scale = 1024 * 1024;
  if (digits == 0 || digits > 12 || scale == 0)
    throw Failure(flag + " takes a byte count such as 65536, 64K or 1M, not '" + text + "'");
  return std::stoull(text.substr(0, digits)) * scale;
}

struct CompileArgs {
  std::string model, output, target = "cortex-m4", isa, rounding, prefer = "memory", ram_limit,
                             io_layout = "model";
  bool quiet = false, strip = false, keep_names = false;
};

int do_compile(const CompileArgs& a) {
  CompileOptions options;
  options.target.core = parse_core(a.target);
  options.target.isa = resolve_isa(options.target.core, a.isa);
  options.model_name = std::filesystem::path(a.model).stem().string();
  options.debug_info = !a.strip;
  options.keep_names = a.keep_names;
  if (a.prefer != "memory" && a.prefer != "speed")
    throw Failure("--prefer takes memory or speed, not '" + a.prefer + "'");
  options.prefer_speed = a.prefer == "speed";
  if (a.io_layout != "model" && a.io_layout != "nhwc")
    throw Failure("--io-layout takes model or nhwc, not '" + a.io_layout + "'");
  options.nhwc_io = a.io_layout == "nhwc";
  if (!a.ram_limit.empty()) options.ram_limit_bytes = parse_byte_count(a.ram_limit, "--ram-limit");
  if (!a.quiet)
    options.progress = [](const std::string& stage) { std::cerr << "tinyaot: " << stage << "\n"; };
  const std::vector<uint8_t> model = read_file(a.model);
  // By default each format gets its engine's arithmetic: onnxruntime's for
  // an ONNX model, TFLite Micro's for a .tflite.
  const bool onnx = detect_model_format(model.data(), model.size()) == ModelFormat::kOnnx;
  options.target.rounding = !a.rounding.empty() ? parse_rounding(a.rounding)
                            : onnx              ? Rounding::kOnnx
                                                : Rounding::kDouble;
  const Compilation c = compile_model(model.data(), model.size(), options);
  write_files_atomically({{a.output, c.program}});
  if (!a.quiet)
    std::cerr << "tinyaot: wrote " << a.output << " (" << c.program.size() << " bytes; arena "
              << c.plan.arena_bytes << " bytes, lower bound " << c.plan.lower_bound_bytes << ", "
              << c.ops.size() << " operations)\n";
  return 0;
}

struct RunArgs {
  std::string program, on;
  std::vector<std::string> inputs, outputs;
  uint32_t steps = 1;
};

int do_run(const RunArgs& a) {
  const AlignedProgram bytes(read_file(a.program));
  const Program program = load_or_fail(bytes, a.program);
  const ProgramHeader& h = *program.header;
  if (a.inputs.size() != h.num_inputs)
    throw Failure("the program takes " + std::to_string(h.num_inputs) + " input(s), " +
                  std::to_string(a.inputs.size()) + " given");
  if (a.outputs.size() != h.num_outputs)
    throw Failure("the program produces " + std::to_string(h.num_outputs) + " output(s), " +
                  std::to_string(a.outputs.size()) + " given");
  // calloc, not a vector: a program may declare up to 4 GiB, and a host
  // that cannot give it must get a clear error, not an abort.
  const size_t arena_request = size_t{h.arena_bytes} + kArenaAlignment;
  const std::unique_ptr<uint8_t, decltype(&std::free)> arena_storage(
      static_cast<uint8_t*>(std::calloc(arena_request, 1)), &std::free);
  if (!arena_storage)
    throw Failure("cannot allocate the program's arena of " + std::to_string(h.arena_bytes) +
                  " bytes on this host");
  uint8_t* arena =
      arena_storage.get() +
      (kArenaAlignment - reinterpret_cast<uintptr_t>(arena_storage.get()) % kArenaAlignment) %
          kArenaAlignment;
  // Step k reads bytes [k * size, (k + 1) * size) of each input file.
  std::vector<std::vector<uint8_t>> inputs;
  for (uint32_t i = 0; i < h.num_inputs; ++i) {
    inputs.push_back(read_file(a.inputs[i]));
    const IoDesc& d = program.inputs[i];
    if (inputs.back().size() != uint64_t{d.bytes} * a.steps)
      throw Failure("input " + std::to_string(i) + " ('" + d.name + "') needs " +
                    std::to_string(d.bytes) + " bytes a step" +
                    (a.steps > 1 ? " x " + std::to_string(a.steps) + " steps" : "") + "; '" +
                    a.inputs[i] + "' has " + std::to_string(inputs.back().size()));
  }
  if (!a.on.empty()) {
    run_on_qemu(qemu_core(a.on), a.program, a.inputs, a.outputs, a.steps);
    return 0;
  }
  auto check = [](Status status) {
    if (status != Status::kOk)
      throw Failure(std::string("run failed: ") + status_text(status) + " (" + status_name(status) +
                    ")");
  };
  std::vector<std::pair<std::string, std::vector<uint8_t>>> files;
  for (uint32_t i = 0; i < h.num_outputs; ++i) files.push_back({a.outputs[i], {}});
  // One runtime instance: state carries from step to step, from a reset.
  check(reset_state(program, arena, h.arena_bytes));
  for (uint32_t step = 0; step < a.steps; ++step) {
    for (uint32_t i = 0; i < h.num_inputs; ++i)
      std::memcpy(input_data(program, arena, i),
                  inputs[i].data() + size_t{step} * program.inputs[i].bytes,
                  program.inputs[i].bytes);
    check(run_program(program, arena, h.arena_bytes));
    for (uint32_t i = 0; i < h.num_outputs; ++i) {
      const uint8_t* out = output_data(program, arena, i);
      files[i].second.insert(files[i].second.end(), out, out + program.outputs[i].bytes);
    }
  }
  write_files_atomically(files);
  return 0;
}

struct ReportArgs {
  std::string program, svg;
  bool json = false;
};

int do_report(const ReportArgs& a) {
  nlohmann::json report;
  try {
    report = program_report(read_file(a.program));
  } catch (const CompileError& e) {
    throw Failure("'" + a.program + "': " + e.what());
  }
  if (!a.svg.empty()) {
    const std::string svg = report_svg(report);
    write_files_atomically({{a.svg, std::vector<uint8_t>(svg.begin(), svg.end())}});
  }
  if (a.json) {
    std::cout << report.dump(1, ' ', false, nlohmann::json::error_handler_t::replace) << "\n";
  } else {
    std::cout << report_text(report);
  }
  return 0;
}

struct VerifyArgs {
  std::string program, runtime;
  bool print_manifest = false;
};

// Against another runtime build, from its manifest: one FAIL line per
// mismatch on stdout, exit 1 if any.
int verify_against_runtime(const VerifyArgs& a) {
  const std::vector<uint8_t> bytes = read_file(a.program);
  const nlohmann::json manifest = read_runtime_manifest(a.runtime);
  const std::string model =
      program_model_name(bytes, std::filesystem::path(a.program).stem().string());
  std::vector<std::string> failures;
  try {
    failures = verify_against_manifest(bytes, model, manifest);
  } catch (const nlohmann::json::exception& e) {
    throw Failure("runtime manifest '" + a.runtime + "': " + e.what());
  } catch (const std::runtime_error& e) {
    throw Failure("'" + a.program + "': " + e.what());
  }
  for (const std::string& line : failures) std::cout << line << "\n";
  if (!failures.empty()) return 1;
  std::cout << "ok\n";
  return 0;
}

int do_verify(const VerifyArgs& a) {
  if (a.print_manifest) {
    std::cout << builtin_runtime_manifest().dump(1) << "\n";
    return 0;
  }
  if (a.program.empty()) throw Failure("verify needs a program (or --print-manifest)");
  if (!a.runtime.empty()) return verify_against_runtime(a);
  const std::string& path = a.program;
  const AlignedProgram bytes(read_file(path));
  const Program program = load_or_fail(bytes, path);
  const ProgramHeader& h = *program.header;
  std::cout << path << ": ok: " << core_name(static_cast<Core>(h.core)) << " ("
            << isa_name(static_cast<IsaClass>(h.isa)) << "), rounding "
            << rounding_name(static_cast<Rounding>(h.rounding)) << ", " << h.num_ops
            << " operations, " << h.num_kernels
            << " kernels, every operator ABI matches this runtime\n";
  return 0;
}

}  // namespace
}  // namespace tinyaot::cli

int main(int argc, char** argv) {
  using namespace tinyaot;
  using namespace tinyaot::cli;
  set_log_hook(log_to_stderr);
  CLI::App app{
      "tinyaot: ahead-of-time compiler and runtime for int8 TFLite and quantized ONNX models on "
      "Cortex-M"};
  app.require_subcommand(1);

  CompileArgs compile_args;
  auto* compile =
      app.add_subcommand("compile", "Compile a .tflite or .onnx model into a planned .tao program");
  compile
      ->add_option("model", compile_args.model,
                   "int8 .tflite model, or quantized .onnx model (QDQ or QOperator); the "
                   "format is recognized from the bytes")
      ->required()
      ->check(CLI::ExistingFile);
  compile->add_option("-o,--output", compile_args.output, "program to write (.tao)")->required();
  compile
      ->add_option("--target", compile_args.target,
                   "core: cortex-m0, m0plus, m3, m4, m7, m23, m33, m35p, m52, m55, m85")
      ->capture_default_str();
  compile->add_option("--isa", compile_args.isa,
                      "lower the ISA class: scalar, dsp or mve (never above the core's)");
  compile->add_option("--rounding", compile_args.rounding,
                      "requantization rounding: tflm (double), single or onnx (onnxruntime's "
                      "float32 step); default onnx for an ONNX model, tflm for a .tflite");
  compile
      ->add_option("--prefer", compile_args.prefer,
                   "memory: no kernel scratch may raise the arena (a scratch-free variant runs "
                   "there); speed: the fastest variant everywhere")
      ->capture_default_str();
  compile->add_option("--ram-limit", compile_args.ram_limit,
                      "refuse a model needing more RAM (arena + runtime context) than this: "
                      "bytes, or with K/M (KiB/MiB)");
  compile
      ->add_option("--io-layout", compile_args.io_layout,
                   "ONNX models: model (rank-4 inputs and outputs in the model's NCHW, "
                   "transposed at the boundary) or nhwc (the kernels' layout, no transposes)")
      ->capture_default_str();
  compile->add_flag("--strip", compile_args.strip, "omit names and plan (report shows less)");
  compile->add_flag("--keep-names", compile_args.keep_names,
                    "name every tensor in the report's plan, not only inputs and outputs "
                    "(converter-made names can add kilobytes to the program)");
  compile->add_flag("-q,--quiet", compile_args.quiet, "no progress lines");

  RunArgs run_args;
  auto* run = app.add_subcommand("run", "Run a program on the host runtime");
  run->add_option("program", run_args.program, ".tao program")
      ->required()
      ->check(CLI::ExistingFile);
  run->add_option("--input", run_args.inputs,
                  "raw little-endian input tensor, in the model's input order")
      ->required();
  run->add_option("--output", run_args.outputs,
                  "file for each output tensor, in the model's output order")
      ->required();
  run->add_option("--steps", run_args.steps,
                  "run N inferences on one runtime instance, state carried from a reset: step "
                  "k reads bytes [k x size, (k+1) x size) of each input file and appends to "
                  "each output file")
      ->check(CLI::Range(1u, 1000000u));
  run->add_option("--on", run_args.on,
                  "run on an emulated core instead of the host: qemu:cortex-m0|m3|m4|m7|m33|m55");

  BenchArgs bench_args;
  auto* bench = app.add_subcommand(
      "bench", "Count instructions per inference and size flash and RAM on an emulated core");
  bench->add_option("program", bench_args.program, ".tao program")
      ->required()
      ->check(CLI::ExistingFile);
  bench->add_option("--on", bench_args.on, "qemu:cortex-m0|m3|m4|m7|m33|m55")->required();
  bench->add_option("--input", bench_args.inputs,
                    "input tensor(s) (default: one generated vector)");
  bench->add_flag("--json", bench_args.json, "machine-readable JSON");
  bench->add_flag("--per-op", bench_args.per_op,
                  "also count each operation's instructions (a second run, on a firmware that "
                  "marks the operations): MACs, instructions per MAC and share, in execution "
                  "order");
  bench
      ->add_option("--compiler", bench_args.compiler,
                   "compiler of the firmware (-O2): gcc (arm-none-eabi-gcc) or clang")
      ->check(CLI::IsMember({"gcc", "clang"}))
      ->capture_default_str();

  ReportArgs report_args;
  auto* report = app.add_subcommand("report", "Show a program's memory plan and operations");
  report->add_option("program", report_args.program, ".tao program")
      ->required()
      ->check(CLI::ExistingFile);
  report->add_flag("--json", report_args.json, "machine-readable JSON");
  report->add_option("--svg", report_args.svg, "also draw the arena over time into this SVG file");

  VerifyArgs verify_args;
  auto* verify = app.add_subcommand(
      "verify",
      "Check a program against this runtime or another's manifest (format, target, "
      "operator ABI)");
  verify->add_option("program", verify_args.program, ".tao program")->check(CLI::ExistingFile);
  verify
      ->add_option("--runtime", verify_args.runtime,
                   "check against that runtime instead: a folder holding tinyaot-runtime.json, "
                   "or the manifest file; prints ok or one FAIL line per mismatch")
      ->check(CLI::ExistingPath);
  verify->add_flag("--print-manifest", verify_args.print_manifest,
                   "print this runtime's manifest (tinyaot-runtime.json) and exit");

  ExportArgs export_args;
  auto* export_command = add_export_command(app, export_args);

  try {
    app.parse(argc, argv);
    if (*compile) return do_compile(compile_args);
    if (*run) return do_run(run_args);
    if (*bench) return do_bench(bench_args);
    if (*report) return do_report(report_args);
    if (*verify) return do_verify(verify_args);
    if (*export_command) return do_export(export_args);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  } catch (const std::exception& e) {
    std::cerr << "tinyaot: error: " << e.what() << "\n";
    return 1;
  }
  return 1;
}
