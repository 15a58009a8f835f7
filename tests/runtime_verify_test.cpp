// `tinyaot verify --runtime`: a program checked against another runtime
// build's manifest (tinyaot-runtime.json). The "runtime from before" is
// this CLI's own manifest with one kernel variant as it was before a change
// of its parameter struct (one version lower, four parameter bytes fewer):
// every operation using that variant must be refused, naming the operator
// and both counts; the unchanged manifest must give ok.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "support/subprocess.h"
#include "support/test_support.h"
#include "tinyaot/runtime.h"

namespace tinyaot {
namespace {

namespace fs = std::filesystem;

class VerifyRuntime : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto shared = test::shared_dir();
    if (!shared) GTEST_SKIP() << "no shared data in " << test::shared_dir_searched();
    dir_ = fs::temp_directory_path() /
           ("verify_runtime_" + std::to_string(getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
    program_path_ = (dir_ / "kws.tao").string();
    const auto compiled = cli({"compile", "-q", *shared + "/models/kws_ref_model.tflite",
                               "--target", "cortex-m4", "-o", program_path_});
    ASSERT_EQ(compiled.exit_code, 0) << compiled.err;
    const auto printed = cli({"verify", "--print-manifest"});
    ASSERT_EQ(printed.exit_code, 0) << printed.err;
    manifest_ = nlohmann::json::parse(printed.out);
  }
  void TearDown() override {
    if (!dir_.empty()) fs::remove_all(dir_);
  }

  test::ChildResult cli(std::vector<std::string> args) {
    args.insert(args.begin(), TINYAOT_CLI);
    return test::run_child(args, dir_.string());
  }
  std::string write_manifest(const nlohmann::json& manifest, const std::string& name) {
    const std::string path = (dir_ / name).string();
    const std::string text = manifest.dump();
    test::write_file(path, std::vector<uint8_t>(text.begin(), text.end()));
    return path;
  }

  fs::path dir_;
  std::string program_path_;
  nlohmann::json manifest_;
};

// The program's operations, read through the host runtime's loader: for
// each, the variant name and its registry descriptor.
struct UsedVariant {
  uint32_t op;
  std::string name;
  const KernelDescriptor* descriptor;
};

std::vector<UsedVariant> used_variants(const std::string& path) {
  const std::vector<uint8_t> bytes = test::read_file(path);
  alignas(16) static uint8_t storage[1 << 20];
  EXPECT_LE(bytes.size(), sizeof(storage));
  std::memcpy(storage, bytes.data(), std::min(bytes.size(), sizeof(storage)));
  Program program;
  EXPECT_EQ(load_program(storage, static_cast<uint32_t>(bytes.size()), &program), Status::kOk);
  std::vector<UsedVariant> used;
  for (uint32_t i = 0; i < program.header->num_ops; ++i) {
    const AbiEntry& entry = program.kernels[program.ops[i].kernel];
    used.push_back({i, entry.name, find_kernel(entry.kernel_id)});
  }
  return used;
}

TEST_F(VerifyRuntime, MatchingRuntimeIsOkInFileAndFolderForm) {
  const std::string file = write_manifest(manifest_, "tinyaot-runtime.json");
  for (const std::string& runtime : {file, dir_.string()}) {
    const auto r = cli({"verify", program_path_, "--runtime", runtime});
    EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
    EXPECT_EQ(r.out, "ok\n");
  }
}

TEST_F(VerifyRuntime, KernelParametersChangedSinceTheRuntimeRefusedPerOperation) {
  const std::vector<UsedVariant> used = used_variants(program_path_);
  ASSERT_FALSE(used.empty());
  const UsedVariant changed = used.back();  // softmax on kws
  ASSERT_NE(changed.descriptor, nullptr);
  const uint32_t now_params = changed.descriptor->params_bytes;
  const uint32_t now_version = changed.descriptor->version;
  ASSERT_GE(now_params, 4u);
  ASSERT_GE(now_version, 1u);
  for (auto& kernel : manifest_["kernels"]) {
    if (kernel["name"] != changed.name) continue;
    kernel["params_bytes"] = now_params - 4;
    kernel["version"] = now_version - 1;
  }
  const auto r = cli({"verify", program_path_, "--runtime", write_manifest(manifest_, "old.json")});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  size_t expected_lines = 0;
  for (const UsedVariant& u : used) {
    if (u.name != changed.name) continue;
    const std::string where = "FAIL kws_ref_model op " + std::to_string(u.op) + " " + u.name + ": ";
    EXPECT_NE(
        r.out.find(where + "program supplies " + std::to_string(now_params) +
                   " parameter bytes, runtime expects " + std::to_string(now_params - 4) + "\n"),
        std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find(where + "program built for version " + std::to_string(now_version) +
                         ", runtime has version " + std::to_string(now_version - 1) + "\n"),
              std::string::npos)
        << r.out;
    expected_lines += 2;
  }
  EXPECT_EQ(static_cast<size_t>(std::count(r.out.begin(), r.out.end(), '\n')), expected_lines)
      << "only the changed variant's operations fail:\n"
      << r.out;
}

TEST_F(VerifyRuntime, MissingVariantIsaClassRoundingAndFormatVersionRefused) {
  const std::vector<UsedVariant> used = used_variants(program_path_);
  ASSERT_FALSE(used.empty());
  const std::string dropped = used.front().name;
  auto& kernels = manifest_["kernels"];
  kernels.erase(std::remove_if(kernels.begin(), kernels.end(),
                               [&](const nlohmann::json& k) { return k["name"] == dropped; }),
                kernels.end());
  manifest_["isa_classes"] = {"scalar"};
  manifest_["rounding_modes"] = {"single"};
  auto r = cli({"verify", program_path_, "--runtime", write_manifest(manifest_, "other.json")});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(
      r.out.find("FAIL kws_ref_model op 0 " + dropped + ": variant missing from the runtime\n"),
      std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("FAIL kws_ref_model: program planned for cortex-m4 (ISA class dsp), "
                       "runtime built for scalar\n"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("FAIL kws_ref_model: program uses rounding mode tflm, runtime accepts "
                       "single\n"),
            std::string::npos)
      << r.out;

  manifest_["format_version"] = kProgramFormatVersion + 1;
  r = cli({"verify", program_path_, "--runtime", write_manifest(manifest_, "newer.json")});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out, "FAIL kws_ref_model: program format version " +
                       std::to_string(kProgramFormatVersion) + ", runtime reads version " +
                       std::to_string(kProgramFormatVersion + 1) + "\n");
}

TEST_F(VerifyRuntime, ManifestListsEveryRegistryVariantWithItsAbi) {
  ASSERT_EQ(manifest_["kernels"].size(), kernel_count());
  for (uint32_t id = 0; id < kernel_count(); ++id) {
    const KernelDescriptor& d = *find_kernel(id);
    const auto& k = manifest_["kernels"][id];
    EXPECT_EQ(k["name"], d.name);
    EXPECT_EQ(k["id"], id);
    EXPECT_EQ(k["version"], d.version);
    EXPECT_EQ(k["params_bytes"], d.params_bytes);
    EXPECT_EQ(k["fingerprint"], abi_fingerprint(d));
  }
  EXPECT_EQ(manifest_["format_version"], kProgramFormatVersion);
}

}  // namespace
}  // namespace tinyaot
