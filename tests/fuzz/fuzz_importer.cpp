// libFuzzer target: bytes as a model (.tflite, or .onnx when they look like
// a protobuf ModelProto) through the whole compiler.
// A CompileError is the expected answer to a bad model; any other exception,
// a crash or a sanitizer report is a bug. A model that compiles must give a
// program the runtime loads (and runs, when its arena is modest).
#include <cstdint>
#include <exception>
#include <string>

#include "compiler/compile.h"
#include "fuzz_target_support.h"

namespace tinyaot::fuzz {
namespace {

void check_program(const std::vector<uint8_t>& bytes) {
  ExactBuffer copy(bytes.size());
  std::memcpy(copy.data(), bytes.data(), bytes.size());
  Program program;
  const Status status = load_program(copy.data(), static_cast<uint32_t>(bytes.size()), &program);
  if (status != Status::kOk) die("compiled program does not load", status_name(status));
  const Status ran = run_bounded(program);
  if (ran != Status::kOk) die("compiled program does not run", status_name(ran));
}

}  // namespace
}  // namespace tinyaot::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace tinyaot;
  CompileOptions options;
  options.model_name = "fuzz";
  std::vector<uint8_t> program;
  try {
    program = compile_model(data, size, options).program;
  } catch (const CompileError& e) {
    if (e.what()[0] == '\0') fuzz::die("CompileError", "empty message");
    return 0;
  } catch (const std::exception& e) {
    fuzz::die("unexpected exception (not CompileError)", e.what());
  }
  fuzz::check_program(program);
  return 0;
}
