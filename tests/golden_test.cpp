// Golden vectors: every shared model compiles with the default options and
// reproduces TFLite Micro's outputs (double rounding) byte for byte; so do
// the project's own int16x8 models (tests/data/int16), whose outputs come
// from tfjs-tflite, which matches TFLite Micro on those operators.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "support/test_support.h"

namespace tinyaot::test {
namespace {

namespace fs = std::filesystem;

struct GoldenModel {
  std::string set;  // "golden" or "golden-ops" (../shared), or "tests/data/int16" (ours)
  std::string name;
};

constexpr const char* kOwnSetPrefix = "tests/data/";

// Where a set's folder is: the project's own tests/data/ sets, or
// ../shared's (nullopt when ../shared is absent).
std::optional<fs::path> set_dir(const std::string& set) {
  if (set.rfind(kOwnSetPrefix, 0) == 0) return fs::path(TINYAOT_SOURCE_DIR) / set;
  const auto shared = shared_dir();
  if (!shared) return std::nullopt;
  return fs::path(*shared) / set;
}

// How GoogleTest names a case in its output (not a byte dump).
void PrintTo(const GoldenModel& model, std::ostream* out) {
  *out << model.set << "/" << model.name;
}

// Stands for a whole set when ../shared is absent: the set's test is then
// listed and reports skipped, rather than not existing at all.
constexpr const char* kAbsentSet = "set_absent";

std::vector<GoldenModel> golden_models(const std::string& set) {
  std::vector<GoldenModel> models;
  const std::optional<fs::path> dir = set_dir(set);
  if (!dir || !fs::is_directory(*dir)) return {{set, kAbsentSet}};
  for (const auto& entry : fs::directory_iterator(*dir))
    if (fs::exists(entry.path() / "manifest.json"))
      models.push_back({set, entry.path().filename().string()});
  std::sort(models.begin(), models.end(),
            [](const auto& a, const auto& b) { return a.name < b.name; });
  return models;
}

class Golden : public ::testing::TestWithParam<GoldenModel> {};

// Compiles for `target` and checks every vector of the manifest.
void check_model(const GoldenModel& model, const Target& target) {
  const fs::path dir = *set_dir(model.set) / model.name;
  std::ifstream manifest_file(dir / "manifest.json");
  const nlohmann::json manifest = nlohmann::json::parse(manifest_file);
  const fs::path model_path = fs::weakly_canonical(dir / manifest["model_file"].get<std::string>());
  CompileOptions options;
  options.target = target;
  options.model_name = model.name;
  if (expected_refusal(model_path.stem().string())) {
    // Refused as tests/support/awaiting_support.txt says, or a failure.
    EXPECT_FALSE(compile_shared_model(model_path.string(), options));
    return;
  }
  const std::vector<uint8_t> tflite = read_file(model_path.string());
  const Compilation compilation = compile_model(tflite.data(), tflite.size(), options);
  ASSERT_GT(manifest["vectors"].size(), 0u);
  for (const auto& vector : manifest["vectors"]) {
    std::vector<std::vector<uint8_t>> inputs, outputs;
    for (const auto& name : vector["inputs"])
      inputs.push_back(read_file((dir / name.get<std::string>()).string()));
    ASSERT_EQ(run_on_host(compilation.program, inputs, &outputs), Status::kOk)
        << "vector " << vector["index"];
    ASSERT_EQ(outputs.size(), vector["outputs"].size());
    for (size_t k = 0; k < outputs.size(); ++k) {
      const auto expected = read_file((dir / vector["outputs"][k].get<std::string>()).string());
      ASSERT_EQ(outputs[k].size(), expected.size());
      size_t differing = 0, first = 0;
      for (size_t i = 0; i < expected.size(); ++i)
        if (outputs[k][i] != expected[i] && differing++ == 0) first = i;
      EXPECT_EQ(differing, 0u) << model.name << " vector " << vector["index"] << " output " << k
                               << ": " << differing << " of " << expected.size()
                               << " bytes differ, first at " << first << " (got "
                               << int(int8_t(outputs[k][first])) << ", want "
                               << int(int8_t(expected[first])) << ")";
    }
  }
  // A stateful model's vectors as one stream (state carried, no reset
  // between them): TFLite Micro's outputs of each step.
  if (!manifest.contains("sequential_outputs")) return;
  const auto& files = manifest["sequential_outputs"]["files"];
  std::vector<std::vector<std::vector<uint8_t>>> steps, outputs;
  for (size_t v = 0; v < files.size(); ++v) {
    steps.emplace_back();
    for (const auto& name : manifest["vectors"][v]["inputs"])
      steps.back().push_back(read_file((dir / name.get<std::string>()).string()));
  }
  ASSERT_EQ(run_stream_on_host(compilation.program, steps, &outputs), Status::kOk);
  for (size_t v = 0; v < files.size(); ++v)
    EXPECT_EQ(outputs[v][0], read_file((dir / files[v].get<std::string>()).string()))
        << model.name << " stream step " << v;
}

TEST_P(Golden, BitExactDefaultTarget) {
  if (GetParam().name == kAbsentSet || !set_dir(GetParam().set))
    GTEST_SKIP() << "no " << GetParam().set << " models: " << shared_dir_searched()
                 << (shared_dir() ? " has no such folder" : " is absent");
  check_model(GetParam(), Target{});
}

std::string test_name(const ::testing::TestParamInfo<GoldenModel>& info) { return info.param.name; }

INSTANTIATE_TEST_SUITE_P(Models, Golden, ::testing::ValuesIn(golden_models("golden")), test_name);
INSTANTIATE_TEST_SUITE_P(Ops, Golden, ::testing::ValuesIn(golden_models("golden-ops")), test_name);
// int16x8 operators, tfjs-tflite's outputs (tests/data/int16/README.md).
INSTANTIATE_TEST_SUITE_P(Int16Ops, Golden, ::testing::ValuesIn(golden_models("tests/data/int16")),
                         test_name);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(Golden);

}  // namespace
}  // namespace tinyaot::test
