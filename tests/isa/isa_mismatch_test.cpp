// An embedded runtime build knows its own ISA class and refuses a program
// planned for another, naming both. This test links a runtime built with
// the class forced to DSP (TINYAOT_RUNTIME_ISA=1), as an M4 firmware's is.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "tinyaot/runtime.h"

namespace tinyaot {
namespace {

std::string g_log;
void capture(const char* line) { g_log += std::string(line) + "\n"; }

std::string shared_models() {
  const auto dir = std::filesystem::path(TINYAOT_SOURCE_DIR) / ".." / "shared" / "models";
  return std::filesystem::exists(dir) ? dir.string() : "";
}

// Compiles with the real CLI; returns its exit status and fills `program`.
int compile(const std::string& model, const std::string& flags, std::vector<uint8_t>* program,
            std::string* errors = nullptr) {
  // CTest runs each test in its own process, in parallel: the name must be
  // unique across processes, not only within one.
  static int serial = 0;
  const std::string out =
      std::filesystem::temp_directory_path() /
      ("isa_test_" + std::to_string(getpid()) + "_" + std::to_string(serial++) + ".tao");
  const std::string log = out + ".log";
  const std::string command =
      std::string(TINYAOT_CLI) + " compile -q " + model + " " + flags + " -o " + out + " 2>" + log;
  const int status = std::system(command.c_str());
  std::ifstream in(out, std::ios::binary);
  if (in) program->assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  std::ifstream log_in(log);
  if (errors)
    errors->assign(std::istreambuf_iterator<char>(log_in), std::istreambuf_iterator<char>());
  std::remove(out.c_str());
  std::remove(log.c_str());
  return status;
}

Status load(const std::vector<uint8_t>& bytes) {
  alignas(16) static uint8_t storage[1 << 20];
  if (bytes.size() > sizeof(storage)) return Status::kBadArgument;
  std::memcpy(storage, bytes.data(), bytes.size());
  Program program;
  return load_program(storage, static_cast<uint32_t>(bytes.size()), &program);
}

TEST(IsaClass, DspRuntimeRefusesAnMveProgramNamingBoth) {
  if (shared_models().empty()) GTEST_SKIP() << "../shared is absent";
  ASSERT_FALSE(runtime_accepts_any_isa());
  ASSERT_EQ(runtime_isa(), IsaClass::kDsp);
  set_log_hook(capture);
  const std::string model = shared_models() + "/hello_world_int8.tflite";
  std::vector<uint8_t> mve, dsp, m55_as_dsp;
  ASSERT_EQ(compile(model, "--target cortex-m55", &mve), 0);
  ASSERT_EQ(compile(model, "--target cortex-m4", &dsp), 0);
  ASSERT_EQ(compile(model, "--target cortex-m55 --isa dsp", &m55_as_dsp), 0);

  g_log.clear();
  EXPECT_EQ(load(mve), Status::kIsaMismatch);
  EXPECT_NE(g_log.find("cortex-m55"), std::string::npos) << g_log;
  EXPECT_NE(g_log.find("mve"), std::string::npos) << g_log;
  EXPECT_NE(g_log.find("dsp"), std::string::npos) << g_log;

  EXPECT_EQ(load(dsp), Status::kOk);
  EXPECT_EQ(load(m55_as_dsp), Status::kOk) << "an M55 program lowered to the DSP class runs here";
}

TEST(IsaClass, CompilerRefusesRaisingTheIsaClass) {
  if (shared_models().empty()) GTEST_SKIP() << "../shared is absent";
  std::vector<uint8_t> program;
  std::string errors;
  const int status = compile(shared_models() + "/hello_world_int8.tflite",
                             "--target cortex-m4 --isa mve", &program, &errors);
  EXPECT_NE(status, 0);
  EXPECT_TRUE(program.empty()) << "no output file on failure";
  EXPECT_NE(errors.find("cortex-m4"), std::string::npos) << errors;
  EXPECT_NE(errors.find("MVE"), std::string::npos) << errors;
}

}  // namespace
}  // namespace tinyaot
