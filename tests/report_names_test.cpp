// The program's debug section keeps only the model's input and output
// names unless asked for every tensor's (converter-made names run to
// hundreds of bytes each), and `tinyaot report` still names every buffer:
// an unnamed one after the operation that writes it, scratch from the
// operation records.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "compiler/compile.h"
#include "compiler/emit/report.h"
#include "tools/modelgen/layers.h"

namespace tinyaot::test {
namespace {

namespace mg = tinyaot::modelgen;

const std::string kLongName =
    "functional_1/activation/Relu;functional_1/batch_normalization/FusedBatchNormV3;"
    "functional_1/conv2d/BiasAdd/ReadVariableOp/resource;functional_1/conv2d/Conv2D";

// x[1,8,8,3] -> conv 3x3 (named like a converter names it) -> [1,8,8,4]
// -> conv 3x3 "scores" -> [1,8,8,4].
Compilation compile_network(bool keep_names) {
  mg::ModelBuilder b;
  const mg::AffineQuant q{0.05f, -3};
  const int32_t x = b.add_int8("x", {1, 8, 8, 3}, q.scale, q.zero_point);
  const int32_t conv = mg::conv2d(b, kLongName, x, mg::patterned_weights({4, 3, 3, 3}),
                                  std::nullopt, mg::Window{}, q);
  const int32_t scores = mg::conv2d(b, "scores", conv, mg::patterned_weights({4, 3, 3, 4}),
                                    std::nullopt, mg::Window{}, q);
  b.set_inputs({x});
  b.set_outputs({scores});
  const std::vector<uint8_t> model = b.finish();
  CompileOptions options;
  options.target.core = Core::kCortexM4;
  options.target.isa = IsaClass::kDsp;
  options.prefer_speed = true;  // the im2col variant and its scratch
  options.keep_names = keep_names;
  return compile_model(model.data(), model.size(), options);
}

bool holds_text(const std::vector<uint8_t>& bytes, const std::string& text) {
  return std::search(bytes.begin(), bytes.end(), text.begin(), text.end()) != bytes.end();
}

std::vector<std::string> buffer_names(const nlohmann::json& report) {
  std::vector<std::string> names;
  for (const auto& b : report["buffers"]) names.push_back(b["name"].get<std::string>());
  return names;
}

bool contains(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

TEST(ReportNames, OnlyInputsAndOutputsKeepTheirNamesByDefault) {
  const Compilation c = compile_network(false);
  EXPECT_FALSE(holds_text(c.program, kLongName));
  const nlohmann::json report = program_report(c.program);
  const std::vector<std::string> names = buffer_names(report);
  EXPECT_TRUE(contains(names, "x"));
  EXPECT_TRUE(contains(names, "scores"));
  EXPECT_FALSE(contains(names, kLongName));
  // The convolution's output, named after the operation that writes it.
  EXPECT_TRUE(contains(names, "output of op 0 (CONV_2D)")) << report["buffers"].dump();
  EXPECT_NE(report_text(report).find("output of op 0 (CONV_2D)"), std::string::npos);
}

TEST(ReportNames, KeepNamesKeepsEveryTensorsName) {
  const Compilation plain = compile_network(false);
  const Compilation named = compile_network(true);
  EXPECT_TRUE(holds_text(named.program, kLongName));
  const std::vector<std::string> names = buffer_names(program_report(named.program));
  EXPECT_TRUE(contains(names, kLongName));
  EXPECT_TRUE(contains(names, "x"));
  EXPECT_GE(named.program.size(), plain.program.size() + kLongName.size());
}

TEST(ReportNames, BuffersMatchThePlanWithOrWithoutNames) {
  for (bool keep_names : {false, true}) {
    const Compilation c = compile_network(keep_names);
    const nlohmann::json report = program_report(c.program);
    ASSERT_EQ(report["buffers"].size(), c.buffers.size()) << keep_names;
    for (size_t i = 0; i < c.buffers.size(); ++i) {
      const BufferRequest& want = c.buffers[i];
      // The report lists the tensors' buffers, then the scratch ones.
      const auto found = std::find_if(
          report["buffers"].begin(), report["buffers"].end(), [&](const nlohmann::json& b) {
            return b["offset"] == c.plan.offsets[i] && b["bytes"] == want.bytes &&
                   b["first_op"] == want.first_op && b["last_op"] == want.last_op &&
                   (b["kind"] == "scratch") == (want.kind == BufferRequest::Kind::kScratch);
          });
      ASSERT_NE(found, report["buffers"].end()) << want.name;
      if (want.kind == BufferRequest::Kind::kScratch || keep_names) {
        EXPECT_EQ((*found)["name"], want.name);
      }
    }
  }
}

TEST(ReportNames, ScratchIsListed) {
  const Compilation c = compile_network(false);
  const nlohmann::json report = program_report(c.program);
  bool scratch = false;
  for (const auto& b : report["buffers"]) scratch = scratch || b["kind"] == "scratch";
  EXPECT_TRUE(scratch) << "the test network needs a kernel with scratch: "
                       << report["operations"].dump();
}

}  // namespace
}  // namespace tinyaot::test
