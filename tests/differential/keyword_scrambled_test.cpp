// keyword_scrambled (TFLite Micro's int16 keyword benchmark model, shipped
// without golden vectors) against tfjs-tflite: streams of inferences from a
// reset state, the SVDF state carried from one to the next (tfjs invokes
// one interpreter repeatedly, which keeps its variable tensors), on random
// int16 inputs of several amplitudes. The model's own output saturates to
// 0.5 / 0.5 on every input tried, so a copy of it lists every operator's
// output among the subgraph's outputs and each is compared (QUANTIZE, the
// seven SVDF, the FULLY_CONNECTED between them, SOFTMAX).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>

#include "differential/oracle_runner.h"
#include "support/test_support.h"
#include "tflite_schema_generated.h"
#include "tools/modelgen/rng.h"

namespace tinyaot::difftest {
namespace {

namespace fs = std::filesystem;

// The model with every operator's output made a subgraph output.
std::vector<uint8_t> with_every_output(const std::vector<uint8_t>& tflite) {
  std::unique_ptr<tflite::ModelT> model = tflite::UnPackModel(tflite.data());
  tflite::SubGraphT& graph = *model->subgraphs.at(0);
  graph.outputs.clear();
  for (const auto& op : graph.operators)
    graph.outputs.insert(graph.outputs.end(), op->outputs.begin(), op->outputs.end());
  flatbuffers::FlatBufferBuilder builder;
  builder.Finish(tflite::Model::Pack(builder, model.get()), tflite::ModelIdentifier());
  return {builder.GetBufferPointer(), builder.GetBufferPointer() + builder.GetSize()};
}

std::vector<uint8_t> random_int16(uint64_t seed, size_t count) {
  modelgen::Rng rng(seed);
  const int64_t amplitudes[] = {100, 1000, 5000, 20000, 32767};
  const int64_t amplitude = amplitudes[seed % 5];
  std::vector<uint8_t> bytes;
  for (size_t i = 0; i < count; ++i) {
    const auto v = static_cast<uint16_t>(rng.uniform_int(-amplitude, amplitude));
    bytes.push_back(static_cast<uint8_t>(v & 0xff));
    bytes.push_back(static_cast<uint8_t>(v >> 8));
  }
  return bytes;
}

TEST(KeywordScrambled, EveryOperatorOutputMatchesTfjsOverStreams) {
  const std::string source_dir = TINYAOT_SOURCE_DIR;
  const char* node_env = std::getenv("TINYAOT_NODE");
  const std::string node = node_env ? node_env : "node";
  if (const auto why = oracle_unavailable(source_dir, node)) GTEST_SKIP() << *why;
  const auto shared = test::shared_dir();
  if (!shared) GTEST_SKIP() << "no shared models: " << test::shared_dir_searched();
  const fs::path model_path = fs::path(*shared) / "models" / "keyword_scrambled.tflite";
  ASSERT_TRUE(fs::exists(model_path)) << model_path;

  const fs::path workdir = fs::path(TINYAOT_DIFF_WORKDIR) / "keyword_scrambled";
  fs::create_directories(workdir);
  const std::vector<uint8_t> model = with_every_output(test::read_file(model_path.string()));
  test::write_file((workdir / "model.tflite").string(), model);
  CompileOptions options;
  options.model_name = "keyword_scrambled";
  const Compilation compilation = compile_model(model.data(), model.size(), options);
  const size_t outputs = compilation.graph.outputs.size();
  ASSERT_EQ(outputs, 15u);

  constexpr uint64_t kSeeds = 10;
  constexpr size_t kSteps = 4;
  constexpr size_t kInputBytes = 96 * sizeof(int16_t);
  std::vector<OracleJob> jobs;
  // Per seed, per step: the inputs (one tensor).
  std::vector<std::vector<std::vector<std::vector<uint8_t>>>> streams;
  for (uint64_t seed = 1; seed <= kSeeds; ++seed) {
    const std::vector<uint8_t> stream = random_int16(seed, 96 * kSteps);
    streams.emplace_back();
    for (size_t k = 0; k < kSteps; ++k)
      streams.back().push_back({std::vector<uint8_t>(stream.begin() + k * kInputBytes,
                                                     stream.begin() + (k + 1) * kInputBytes)});
    OracleJob job;
    job.model = (workdir / "model.tflite").string();
    job.steps = kSteps;
    job.inputs = {(workdir / ("input" + std::to_string(seed) + ".bin")).string()};
    test::write_file(job.inputs[0], stream);
    for (size_t k = 0; k < outputs; ++k)
      job.outputs.push_back(
          (workdir / ("tfjs" + std::to_string(seed) + "_" + std::to_string(k) + ".bin")).string());
    jobs.push_back(job);
  }
  const std::vector<OracleResult> results = run_oracle(source_dir, node, workdir.string(), jobs);
  ASSERT_EQ(results.size(), jobs.size());
  for (size_t j = 0; j < jobs.size(); ++j) {
    ASSERT_TRUE(results[j].ok) << results[j].error;
    std::vector<std::vector<std::vector<uint8_t>>> ours;
    ASSERT_EQ(test::run_stream_on_host(compilation.program, streams[j], &ours), Status::kOk);
    ASSERT_EQ(ours.size(), kSteps);
    for (size_t k = 0; k < outputs; ++k) {
      const std::vector<uint8_t> theirs = test::read_file(jobs[j].outputs[k]);
      const size_t bytes = ours[0][k].size();
      ASSERT_EQ(theirs.size(), bytes * kSteps);
      for (size_t step = 0; step < kSteps; ++step)
        EXPECT_EQ(ours[step][k], std::vector<uint8_t>(theirs.begin() + step * bytes,
                                                      theirs.begin() + (step + 1) * bytes))
            << "seed " << j + 1 << ", step " << step << ", output of operator " << k;
    }
  }
}

}  // namespace
}  // namespace tinyaot::difftest
