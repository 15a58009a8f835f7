// `tinyaot report` says why each operation got its kernel variant (issue
// 10, point 3): the fastest of several, the only one, or, under the default
// --prefer memory, the fastest whose scratch keeps the arena at its bound,
// naming the faster variant passed over and the scratch it needs.
#include <gtest/gtest.h>

#include <string>

#include "compiler/compile.h"
#include "compiler/emit/report.h"
#include "tools/modelgen/layers.h"

namespace tinyaot::test {
namespace {

namespace mg = tinyaot::modelgen;

// x[1,8,8,3] -> conv 3x3 -> [1,8,8,4] -> conv 3x3 -> [1,8,8,4] on an M4:
// the im2col variant is the fastest for both, and its scratch column set
// sits on top of the two activations at the peak.
Compilation compile_network(bool prefer_speed) {
  mg::ModelBuilder b;
  const mg::AffineQuant q{0.05f, -3};
  const int32_t x = b.add_int8("x", {1, 8, 8, 3}, q.scale, q.zero_point);
  const int32_t conv =
      mg::conv2d(b, "conv", x, mg::patterned_weights({4, 3, 3, 3}), std::nullopt, mg::Window{}, q);
  const int32_t out = mg::conv2d(b, "out", conv, mg::patterned_weights({4, 3, 3, 4}), std::nullopt,
                                 mg::Window{}, q);
  b.set_inputs({x});
  b.set_outputs({out});
  const std::vector<uint8_t> model = b.finish();
  CompileOptions options;
  options.target.core = Core::kCortexM4;
  options.target.isa = IsaClass::kDsp;
  options.prefer_speed = prefer_speed;
  return compile_model(model.data(), model.size(), options);
}

TEST(ReportChoice, FastestUnderPreferSpeed) {
  const Compilation c = compile_network(true);
  const nlohmann::json report = program_report(c.program);
  for (const auto& op : report["operations"]) {
    EXPECT_EQ(op["kernel"], "conv2d_s8_im2col") << op.dump();
    EXPECT_EQ(op.value("why", ""), "fastest of 3") << op.dump();  // ref, im2col, window
  }
}

TEST(ReportChoice, PreferMemoryNamesTheFasterVariantItPassedOver) {
  const Compilation c = compile_network(false);
  EXPECT_EQ(c.plan.arena_bytes, c.plan.lower_bound_bytes);
  const nlohmann::json report = program_report(c.program);
  int passed_over = 0;
  for (size_t i = 0; i < c.ops.size(); ++i) {
    const auto& op = report["operations"][i];
    const VariantChoice& choice = c.ops[i].choice;
    if (choice.reason != VariantChoice::Reason::kArena) continue;
    ++passed_over;
    EXPECT_NE(op["kernel"], "conv2d_s8_im2col");
    EXPECT_EQ(choice.faster, "conv2d_s8_im2col");
    EXPECT_EQ(op.value("why", ""), "arena: conv2d_s8_im2col needs " +
                                       std::to_string(choice.faster_scratch_bytes) + " B scratch")
        << op.dump();
  }
  EXPECT_GE(passed_over, 1) << report["operations"].dump();
  const std::string text = report_text(report);
  EXPECT_NE(text.find("why this kernel"), std::string::npos) << text;
  EXPECT_NE(text.find("arena: conv2d_s8_im2col needs"), std::string::npos) << text;
}

}  // namespace
}  // namespace tinyaot::test
