// `tinyaot export` through the real CLI: what the folder holds (the sources
// of only the kernel variants the program uses, the C API's figures, the
// manifest's shape, each format's layout), and that a refused export names
// what and where and leaves no folder behind. Building and running an
// exported folder on the cores is tests/export/export-firmware.sh (QEMU).
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "support/subprocess.h"
#include "support/test_support.h"
#include "tinyaot/runtime.h"

namespace tinyaot::test {
namespace {

namespace fs = std::filesystem;

class Export : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto shared = shared_dir();
    if (!shared) GTEST_SKIP() << "no shared data (" << shared_dir_searched() << ")";
    shared_ = *shared;
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() /
           ("tinyaot-export-" + std::to_string(getpid()) + "-" + info->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    if (!dir_.empty()) fs::remove_all(dir_);
  }

  ChildResult cli(std::vector<std::string> args) const {
    args.insert(args.begin(), TINYAOT_CLI);
    return run_child(args, dir_.string());
  }

  // Compiles a shared model for cortex-m4 into dir_/<stem>.tao.
  std::string compile(const std::string& model, const std::string& stem) const {
    const std::string out = (dir_ / (stem + ".tao")).string();
    const ChildResult r =
        cli({"compile", shared_ + "/models/" + model, "-q", "--target", "cortex-m4", "-o", out});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return out;
  }

  // Every entry of dir_ whose name starts with `prefix` (leftover temporaries).
  std::vector<std::string> entries_starting(const std::string& prefix) const {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(dir_)) {
      const std::string name = e.path().filename().string();
      if (name.rfind(prefix, 0) == 0) names.push_back(name);
    }
    return names;
  }

  std::string shared_;
  fs::path dir_;
};

// The kernel names a program's table records, read through the host loader.
std::set<std::string> program_kernels(const std::string& path) {
  const std::vector<uint8_t> bytes = read_file(path);
  std::vector<uint8_t> storage(bytes.size() + kConstantAlignment);
  uint8_t* aligned =
      storage.data() +
      (kConstantAlignment - reinterpret_cast<uintptr_t>(storage.data()) % kConstantAlignment) %
          kConstantAlignment;
  std::memcpy(aligned, bytes.data(), bytes.size());
  Program program;
  EXPECT_EQ(load_program(aligned, static_cast<uint32_t>(bytes.size()), &program), Status::kOk);
  std::set<std::string> names;
  for (uint32_t i = 0; i < program.header->num_kernels; ++i) names.insert(program.kernels[i].name);
  return names;
}

bool contains(const std::string& text, const std::string& needle) {
  return text.find(needle) != std::string::npos;
}

TEST_F(Export, HoldsOnlyTheKernelsTheProgramUsesAndItsFigures) {
  const std::string tao = compile("kws_ref_model.tflite", "kws_ref_model");
  const fs::path out = dir_ / "kws";
  const ChildResult r = cli({"export", tao, "-o", out.string(), "--name", "kws"});
  ASSERT_EQ(r.exit_code, 0) << r.err;

  // Manifest: the program's kernels, each with its ABI, in the shape
  // `verify --runtime` reads.
  const nlohmann::json m = nlohmann::json::parse(slurp((out / "tinyaot-runtime.json").string()));
  EXPECT_EQ(m["format_version"], kProgramFormatVersion);
  EXPECT_EQ(m["isa_classes"], nlohmann::json::array({"dsp"}));
  // One rounding mode in the program: the kernels are built for it alone.
  EXPECT_EQ(m["rounding_modes"], nlohmann::json::array({"tflm"}));
  EXPECT_TRUE(contains(slurp((out / "src" / "tinyaot" / "config.h").string()),
                       "#define TINYAOT_ROUNDING_ONLY"));
  std::set<std::string> listed;
  for (const auto& k : m["kernels"]) {
    for (const char* key : {"name", "id", "version", "params_bytes", "min_inputs", "max_inputs",
                            "num_outputs", "isa", "fingerprint"})
      EXPECT_TRUE(k.contains(key)) << key;
    const KernelDescriptor* d = find_kernel(k["id"].get<uint32_t>());
    ASSERT_NE(d, nullptr);
    EXPECT_EQ(k["name"], d->name);
    EXPECT_EQ(k["fingerprint"], abi_fingerprint(*d));
    listed.insert(k["name"].get<std::string>());
  }
  EXPECT_EQ(listed, program_kernels(tao));

  // The other side of the same manifest: verify --runtime accepts the
  // program it was exported with.
  const ChildResult verified = cli({"verify", tao, "--runtime", out.string()});
  EXPECT_EQ(verified.exit_code, 0) << verified.out << verified.err;

  // Sources: each listed variant's definition is there; a variant nothing
  // in the export uses is not (kws on M4 has no reference convolution).
  for (const std::string& name : listed) {
    bool defined = false;
    for (const auto& e : fs::recursive_directory_iterator(out / "src" / "kernels")) {
      defined =
          defined || (e.path().extension() == ".cpp" &&
                      contains(slurp(e.path().string()), "KernelDescriptor kernel_" + name + " "));
    }
    EXPECT_TRUE(defined) << name;
  }
  EXPECT_FALSE(fs::exists(out / "src" / "kernels" / "conv2d" / "conv2d_s8_ref.cpp"));
  EXPECT_FALSE(fs::exists(out / "src" / "kernels" / "kernel_list.h"));

  // The C API's figures: the golden manifest's (shared data), the report's arena.
  const std::string header = slurp((out / "src" / "kws.h").string());
  const nlohmann::json report = nlohmann::json::parse(cli({"report", tao, "--json"}).out);
  EXPECT_TRUE(contains(header, "#define KWS_ARENA_BYTES " + report["arena_bytes"].dump() + " "));
  EXPECT_TRUE(contains(header, "#define KWS_INPUT0_BYTES 490\n"));
  EXPECT_TRUE(contains(header, "#define KWS_INPUT0_ZERO_POINT 83\n"));
  EXPECT_TRUE(contains(header, "#define KWS_INPUT0_SCALE 0.584702909f\n"));
  EXPECT_TRUE(contains(header, "#define KWS_OUTPUT0_BYTES 12\n"));
  for (const char* f :
       {"int kws_init(void);", "void* kws_input(uint8_t* arena, int index);",
        "const void* kws_output(const uint8_t* arena, int index);",
        "int kws_invoke(uint8_t* arena);", "const char* kws_status_text(int status);"})
    EXPECT_TRUE(contains(header, f)) << f;
  const std::string cmake = slurp((out / "CMakeLists.txt").string());
  EXPECT_TRUE(contains(cmake, "add_library(kws STATIC"));
  EXPECT_FALSE(contains(cmake, std::string(TINYAOT_SOURCE_DIR))) << "a path outside the folder";
}

TEST_F(Export, ArduinoLayoutAndDefaultName) {
  const std::string tao = compile("kws_ref_model.tflite", "kws-ref.model");
  const fs::path out = dir_ / "lib";
  const ChildResult r = cli({"export", tao, "-o", out.string(), "--format", "arduino"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // The name is the file stem made a C identifier.
  EXPECT_TRUE(contains(slurp((out / "library.properties").string()), "name=kws_ref_model\n"));
  EXPECT_TRUE(fs::is_regular_file(out / "src" / "kws_ref_model.h"));
  EXPECT_TRUE(fs::is_regular_file(out / "src" / "tinyaot" / "runtime.h"));
  const fs::path sketch = out / "examples" / "kws_ref_model_basic" / "kws_ref_model_basic.ino";
  EXPECT_TRUE(contains(slurp(sketch.string()), "kws_ref_model_invoke(arena)"));
  EXPECT_FALSE(fs::exists(out / "CMakeLists.txt"));
}

TEST_F(Export, SeveralProgramsGetOnePrefixEach) {
  const std::string kws = compile("kws_ref_model.tflite", "kws");
  const std::string hello = compile("hello_world_int8.tflite", "hello");
  const std::string single = (dir_ / "single.tao").string();
  ASSERT_EQ(cli({"compile", shared_ + "/models/kws_ref_model.tflite", "-q", "--target", "cortex-m4",
                 "--rounding", "single", "-o", single})
                .exit_code,
            0);
  const fs::path out = dir_ / "models";
  const ChildResult r = cli({"export", kws, hello, single, "-o", out.string(), "--name", "Models"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string header = slurp((out / "src" / "models.h").string());
  EXPECT_TRUE(contains(header, "int models_kws_init(void);"));
  EXPECT_TRUE(contains(header, "int models_hello_init(void);"));
  EXPECT_TRUE(contains(header, "int models_single_init(void);"));
  EXPECT_TRUE(contains(header, "#define MODELS_HELLO_INPUT_COUNT 1\n"));
  const nlohmann::json m = nlohmann::json::parse(slurp((out / "tinyaot-runtime.json").string()));
  std::set<std::string> listed;
  for (const auto& k : m["kernels"]) listed.insert(k["name"].get<std::string>());
  std::set<std::string> used = program_kernels(kws);
  for (const std::string& name : program_kernels(hello)) used.insert(name);
  EXPECT_EQ(listed, used);
  // Two rounding modes among the programs: no single-mode build, so every
  // mode the runtime has is built in.
  EXPECT_EQ(m["rounding_modes"], nlohmann::json::array({"tflm", "single", "onnx"}));
  EXPECT_FALSE(
      contains(slurp((out / "src" / "tinyaot" / "config.h").string()), "TINYAOT_ROUNDING_ONLY"));
}

TEST_F(Export, BringsTheSourcesOfFunctionsItsVariantsCall) {
  // resnet on M4 adds with add_s8_flat, whose validate is the family's
  // check, defined beside the reference variant (validate_add_sub).
  const std::string tao = compile("pretrainedResnet_quant.tflite", "resnet");
  ASSERT_TRUE(program_kernels(tao).count("add_s8_flat"));
  ASSERT_FALSE(program_kernels(tao).count("add_s8_ref"));
  const fs::path out = dir_ / "resnet";
  ASSERT_EQ(cli({"export", tao, "-o", out.string()}).exit_code, 0);
  const fs::path ref = out / "src" / "kernels" / "elementwise" / "add_sub_s8_ref.cpp";
  ASSERT_TRUE(fs::is_regular_file(ref));
  EXPECT_TRUE(contains(slurp(ref.string()), "Status validate_add_sub("));
  // The registry still holds only what the program uses.
  const std::string registry = slurp((out / "src" / "runtime" / "registry.cpp").string());
  EXPECT_FALSE(contains(registry, "&kernel_add_s8_ref,"));
  EXPECT_TRUE(contains(registry, "&kernel_add_s8_flat,"));
}

TEST_F(Export, RefusalsNameWhatAndWhereAndLeaveNoFolder) {
  const std::string tao = compile("kws_ref_model.tflite", "kws");
  const fs::path out = dir_ / "out";
  struct Case {
    std::vector<std::string> args;
    std::string needle;
  };
  const std::vector<Case> cases = {
      {{"export", tao, "-o", out.string(), "--name", "9lives"}, "--name '9lives'"},
      {{"export", tao, "-o", out.string(), "--name", "a-b"}, "--name 'a-b'"},
      {{"export", tao, "-o", (dir_ / "missing" / "out").string()}, (dir_ / "missing").string()},
      {{"export", tao, "-o", out.string(), "--format", "make"}, "--format"},
      {{"export", (dir_ / "nothing.tao").string(), "-o", out.string()}, "nothing.tao"},
  };
  for (const Case& c : cases) {
    const ChildResult r = cli(c.args);
    EXPECT_NE(r.exit_code, 0) << c.needle;
    EXPECT_EQ(r.signal, 0) << c.needle;
    EXPECT_TRUE(contains(r.err, c.needle)) << "missing '" << c.needle << "' in:\n" << r.err;
    EXPECT_FALSE(fs::exists(out)) << c.needle;
  }
  // A corrupt program: refused by the loader, naming the file.
  std::vector<uint8_t> bytes = read_file(tao);
  bytes[bytes.size() / 2] ^= 0x40;
  write_file((dir_ / "corrupt.tao").string(), bytes);
  ChildResult r = cli({"export", (dir_ / "corrupt.tao").string(), "-o", out.string()});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_TRUE(contains(r.err, "corrupt.tao")) << r.err;
  EXPECT_FALSE(fs::exists(out));

  // A folder that is not an earlier export is left alone; an earlier
  // export is replaced.
  fs::create_directories(out);
  write_file((out / "notes.txt").string(), {'h', 'i'});
  r = cli({"export", tao, "-o", out.string()});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_TRUE(contains(r.err, out.string())) << r.err;
  EXPECT_TRUE(fs::is_regular_file(out / "notes.txt"));
  fs::remove_all(out);
  ASSERT_EQ(cli({"export", tao, "-o", out.string()}).exit_code, 0);
  r = cli({"export", tao, "-o", out.string(), "--name", "again"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(fs::is_regular_file(out / "src" / "again.h"));
  EXPECT_FALSE(fs::exists(out / "src" / "kws.h"));
  EXPECT_EQ(entries_starting(".out"), std::vector<std::string>{}) << "temporaries left";
}

}  // namespace
}  // namespace tinyaot::test
