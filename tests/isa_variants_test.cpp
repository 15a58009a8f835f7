// Variant choice per ISA class on the shared models: compiled for a scalar
// (cortex-m0), a DSP (cortex-m4) and an MVE (cortex-m55) core, each
// operation gets the variant its shape and the class call for (read back
// from the program's kernel table), conv scratch follows the variant's
// column layout, and every output stays bit-exact with the golden files.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "kernels/conv2d/conv2d.h"
#include "kernels/conv2d/conv2d_cases.h"
#include "kernels/depthwise_conv2d/depthwise_conv2d.h"
#include "kernels/depthwise_conv2d/depthwise_conv2d_cases.h"
#include "support/test_support.h"

namespace tinyaot::test {
namespace {

namespace fs = std::filesystem;

// One operation as the program records it.
struct ProgramOp {
  std::string kernel;  // variant name from the kernel table
  std::string family;  // the descriptor's operator family
  IsaClass isa;
  uint32_t scratch_bytes;
  std::vector<uint8_t> params;
};

struct Built {
  std::vector<uint8_t> program;
  std::vector<ProgramOp> ops;
};

nlohmann::json manifest(const fs::path& dir) {
  std::ifstream file(dir / "manifest.json");
  return nlohmann::json::parse(file);
}

// `prefer_speed` keeps every operation on the chooser's fastest variant;
// the default (memory) may trade one for a scratch-free variant at the peak.
Built build(const fs::path& dir, Core core, IsaClass isa, Rounding rounding,
            bool prefer_speed = true) {
  const nlohmann::json m = manifest(dir);
  const auto tflite = read_file((dir / m["model_file"].get<std::string>()).string());
  CompileOptions options;
  options.target = Target{core, isa, rounding};
  options.prefer_speed = prefer_speed;
  options.model_name = dir.filename().string();
  Built built;
  built.program = compile_model(tflite.data(), tflite.size(), options).program;

  std::vector<uint8_t> storage(built.program.size() + 16);
  const auto misalignment = reinterpret_cast<uintptr_t>(storage.data()) % 16;
  uint8_t* base = storage.data() + (misalignment ? 16 - misalignment : 0);
  std::memcpy(base, built.program.data(), built.program.size());
  Program p;
  EXPECT_EQ(load_program(base, uint32_t(built.program.size()), &p), Status::kOk);
  if (p.header == nullptr) return built;
  EXPECT_EQ(p.header->isa, uint32_t(isa));
  for (uint32_t i = 0; i < p.header->num_ops; ++i) {
    const OpRecord& op = p.ops[i];
    const AbiEntry& entry = p.kernels[op.kernel];
    const uint8_t* params = p.params + op.params_offset;
    built.ops.push_back({entry.name, find_kernel(entry.kernel_id)->op, IsaClass(entry.isa),
                         op.scratch.bytes, std::vector<uint8_t>(params, params + op.params_bytes)});
  }
  return built;
}

// Runs every vector and compares with TFLM's outputs (or the
// single-rounding ones).
void expect_golden_outputs(const fs::path& dir, const Built& built, Rounding rounding,
                           const std::string& label) {
  const nlohmann::json m = manifest(dir);
  const char* key = rounding == Rounding::kSingle ? "outputs_single_rounding" : "outputs";
  for (const auto& vector : m["vectors"]) {
    std::vector<std::vector<uint8_t>> inputs, outputs;
    for (const auto& name : vector["inputs"])
      inputs.push_back(read_file((dir / name.get<std::string>()).string()));
    ASSERT_EQ(run_on_host(built.program, inputs, &outputs), Status::kOk) << label;
    ASSERT_EQ(outputs.size(), vector[key].size()) << label;
    for (size_t k = 0; k < outputs.size(); ++k) {
      const auto expected = read_file((dir / vector[key][k].get<std::string>()).string());
      EXPECT_TRUE(outputs[k] == expected)
          << label << " vector " << vector["index"] << " output " << k << " differs";
    }
  }
}

template <typename Params>
Params params_of(const ProgramOp& op) {
  Params params;
  EXPECT_EQ(op.params.size(), sizeof(Params));
  std::memcpy(&params, op.params.data(), sizeof(Params));
  return params;
}

uint32_t im2col_scratch(const Conv2dParams& p) {
  return uint32_t(2 * ((conv2d_column_length(p) + 3) / 4 * 4));  // padded to whole words
}
uint32_t im2col_mve_scratch(const Conv2dParams& p) {
  return uint32_t((conv2d_column_length(p) + 3) / 4 * 4);
}

// What the chooser should pick for `op` on `isa`, and the scratch it needs.
void expect_choice(const ProgramOp& op, IsaClass isa, const std::string& label) {
  EXPECT_LE(uint8_t(op.isa), uint8_t(isa)) << label << ": " << op.kernel;
  if (op.family == "conv2d") {
    const auto p = params_of<Conv2dParams>(op);
    ASSERT_TRUE(is_conv2d_im2col_case(p)) << label << ": the shared models have no grouped conv";
    if (is_conv2d_pointwise_case(p) && isa == IsaClass::kMve) {
      // Every pointwise window inside the input, strided too: read in
      // place, no scratch.
      EXPECT_EQ(op.kernel, "conv2d_s8_1x1_mve") << label;
      EXPECT_EQ(op.scratch_bytes, 0u) << label;
    } else if (is_conv2d_1x1_case(p) && isa != IsaClass::kMve) {
      // No window arithmetic, no copy, no scratch.
      EXPECT_EQ(op.kernel, "conv2d_s8_1x1") << label;
      EXPECT_EQ(op.scratch_bytes, 0u) << label;
    } else if (op.kernel == "conv2d_s8_window" || op.kernel == "conv2d_s8_1x1") {
      // The blocked kernels read the input where it lies: never the
      // reference, on any core, and no scratch.
      EXPECT_EQ(op.scratch_bytes, 0u) << label;
    } else if (op.kernel == "conv2d_s8_im2col") {
      // A strided pointwise window over whole words, never past the
      // input, is read in place; any other window is copied.
      const bool in_place = p.filter_h == 1 && p.filter_w == 1 && p.input_depth % 4 == 0 &&
                            p.pad_top == 0 && p.pad_left == 0;
      EXPECT_EQ(op.scratch_bytes, in_place ? 0u : im2col_scratch(p)) << label;
    } else if (op.kernel == "conv2d_s8_window_mve") {
      // Windows read in place (two adjacent ones per weight load): no
      // scratch.
      EXPECT_EQ(isa, IsaClass::kMve) << label;
      EXPECT_EQ(op.scratch_bytes, 0u) << label;
    } else {
      EXPECT_EQ(op.kernel, "conv2d_s8_im2col_mve") << label;
      EXPECT_EQ(op.scratch_bytes, im2col_mve_scratch(p)) << label;
    }
  } else if (op.family == "depthwise_conv2d") {
    const auto p = params_of<DepthwiseConv2dParams>(op);
    const char* scalar =
        is_depthwise_3x3_case(p) ? "depthwise_conv2d_s8_3x3" : "depthwise_conv2d_s8_scalar";
    // DSP and MVE: the 3x3 case's build of the DSP code where it holds.
    const char* dsp = is_depthwise_dsp_3x3_case(p) ? "depthwise_conv2d_s8_dsp_3x3"
                      : is_depthwise_dsp_case(p)   ? "depthwise_conv2d_s8_dsp"
                                                   : scalar;
    // MVE: its own variant wherever its case holds (the taps' offsets fit
    // 16-bit gather lanes), else the DSP one.
    const char* mve = is_depthwise_mve_case(p) ? "depthwise_conv2d_s8_mve" : dsp;
    EXPECT_EQ(op.kernel, isa == IsaClass::kScalar ? scalar
                         : isa == IsaClass::kDsp  ? dsp
                                                  : mve)
        << label;
    EXPECT_EQ(op.scratch_bytes, 0u) << label;
  } else if (op.family == "fully_connected") {
    EXPECT_EQ(op.kernel, isa == IsaClass::kMve   ? "fully_connected_s8_mve"
                         : isa == IsaClass::kDsp ? "fully_connected_s8_dsp"
                                                 : "fully_connected_s8_blocked")
        << label;
    EXPECT_EQ(op.scratch_bytes, 0u) << label;
  }
}

// The golden models tinyaot compiles (Golden checks the refusal of those
// awaiting support).
std::vector<fs::path> model_dirs(const std::string& set) {
  std::vector<fs::path> dirs;
  for (const auto& entry : fs::directory_iterator(fs::path(*shared_dir()) / set)) {
    if (!fs::exists(entry.path() / "manifest.json")) continue;
    const fs::path model = manifest(entry.path())["model_file"].get<std::string>();
    if (!expected_refusal(model.stem().string())) dirs.push_back(entry.path());
  }
  std::sort(dirs.begin(), dirs.end());
  return dirs;
}

uint32_t arena_of(const Built& built) {
  ProgramHeader header;
  std::memcpy(&header, built.program.data(), sizeof(header));
  return header.arena_bytes;
}

constexpr Core kCores[] = {Core::kCortexM0, Core::kCortexM4, Core::kCortexM55};

TEST(IsaVariants, GoldenModelsPickVariantsPerIsaAndStayBitExact) {
  if (!shared_dir()) GTEST_SKIP() << "../shared is absent";
  size_t conv_ops = 0, conv_scratch_differs = 0, dsp_picks = 0, mve_picks = 0, case_picks = 0;
  for (const fs::path& dir : model_dirs("golden")) {
    std::vector<Built> per_core;
    for (Core core : kCores) {
      const std::string label = dir.filename().string() + " on " + core_name(core);
      per_core.push_back(build(dir, core, core_isa(core), Rounding::kDouble));
      expect_golden_outputs(dir, per_core.back(), Rounding::kDouble, label);
      for (const ProgramOp& op : per_core.back().ops) {
        expect_choice(op, core_isa(core), label);
        dsp_picks += op.isa == IsaClass::kDsp;
        mve_picks += op.isa == IsaClass::kMve;
        case_picks += op.kernel == "conv2d_s8_1x1" || op.kernel == "depthwise_conv2d_s8_3x3";
      }
    }
    // The same operations in the same order on every core: only variants differ.
    const Built &scalar = per_core[0], &dsp = per_core[1], &mve = per_core[2];
    ASSERT_EQ(scalar.ops.size(), dsp.ops.size());
    ASSERT_EQ(scalar.ops.size(), mve.ops.size());
    for (size_t i = 0; i < scalar.ops.size(); ++i) {
      EXPECT_EQ(scalar.ops[i].family, mve.ops[i].family);
      if (scalar.ops[i].family != "conv2d") continue;
      ++conv_ops;
      EXPECT_NE(dsp.ops[i].kernel, mve.ops[i].kernel);
      conv_scratch_differs += dsp.ops[i].scratch_bytes != mve.ops[i].scratch_bytes;
    }
    // By default (memory) scratch never lifts the arena: every class plans
    // the arena of the scalar build under the same default; and the
    // outputs stay exact with the variants traded at the peak.
    const Built scalar_fitted =
        build(dir, kCores[0], core_isa(kCores[0]), Rounding::kDouble, false);
    for (Core core : {Core::kCortexM4, Core::kCortexM55}) {
      const std::string label = dir.filename().string() + " on " + core_name(core) + " (memory)";
      const Built fitted = build(dir, core, core_isa(core), Rounding::kDouble, false);
      expect_golden_outputs(dir, fitted, Rounding::kDouble, label);
      EXPECT_EQ(arena_of(fitted), arena_of(scalar_fitted)) << label;
    }
    // Lowering the class with --isa gives the lower class's choice.
    const Built lowered = build(dir, Core::kCortexM55, IsaClass::kDsp, Rounding::kDouble);
    ASSERT_EQ(lowered.ops.size(), dsp.ops.size());
    for (size_t i = 0; i < dsp.ops.size(); ++i) EXPECT_EQ(lowered.ops[i].kernel, dsp.ops[i].kernel);
  }
  EXPECT_GT(conv_ops, 0u);
  EXPECT_GT(conv_scratch_differs, 0u) << "DSP and MVE conv scratch should differ somewhere";
  EXPECT_GT(dsp_picks, 0u);
  EXPECT_GT(mve_picks, 0u);
  EXPECT_GT(case_picks, 0u);
}

// The single-operator models carry single-rounding outputs too: every
// variant must reproduce both modes.
TEST(IsaVariants, SingleOperatorModelsBitExactInBothRoundings) {
  if (!shared_dir()) GTEST_SKIP() << "../shared is absent";
  const char* models[] = {"op_conv_1x1", "op_conv_3x3_relu6", "op_dwconv_3x3_s2",
                          "op_fc_per_channel"};
  for (const char* model : models) {
    const fs::path dir = fs::path(*shared_dir()) / "golden-ops" / model;
    for (Core core : kCores) {
      for (Rounding rounding : {Rounding::kDouble, Rounding::kSingle}) {
        const std::string label =
            std::string(model) + " on " + core_name(core) + " (" + rounding_name(rounding) + ")";
        const Built built = build(dir, core, core_isa(core), rounding);
        for (const ProgramOp& op : built.ops) expect_choice(op, core_isa(core), label);
        expect_golden_outputs(dir, built, rounding, label);
      }
    }
  }
}

}  // namespace
}  // namespace tinyaot::test
