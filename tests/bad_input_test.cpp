// Bad input, end to end: corrupt, truncated and unsupported .tflite models
// given to the compiler, and corrupt .tao programs given to the loader and
// to `tinyaot run`. Every case must end in a clear error, exit code 1, no
// output file and no crash. The bulk loops use the C++ API (fast under the
// sanitizers); a representative subset drives the real CLI binary.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <new>
#include <random>
#include <set>

#include "compiler/compile.h"
#include "compiler/import/tflite_importer.h"
#include "kernels/common/validate.h"
#include "support/exact_buffer.h"
#include "support/subprocess.h"
#include "support/tao_editor.h"
#include "support/test_support.h"
#include "tflite_schema_generated.h"

namespace tinyaot::test {
namespace {

namespace fs = std::filesystem;
using Bytes = std::vector<uint8_t>;

// Programs whose arena is larger are loaded but not run in the bulk loops.
constexpr uint32_t kMaxArenaToRun = 16u << 20;

// ---------------------------------------------------------------- helpers

std::string& captured_log() {
  static std::string log;
  return log;
}
void capture_log(const char* line) { captured_log() += std::string(line) + "\n"; }

// Collects the loader's detail lines while alive.
struct LogCapture {
  LogCapture() {
    captured_log().clear();
    set_log_hook(capture_log);
  }
  ~LogCapture() { set_log_hook(nullptr); }
  LogCapture(const LogCapture&) = delete;
  LogCapture& operator=(const LogCapture&) = delete;
};

struct Outcome {
  Status load = Status::kOk;
  bool ran = false;
  Status run = Status::kOk;
};

// Loads a program and, when it loads and its arena is modest, runs it on an
// exact-size arena filled with a fixed pattern.
Outcome load_and_run(const Bytes& bytes) {
  ExactBuffer program(bytes);
  Program p;
  Outcome outcome;
  outcome.load = load_program(program.data(), program.size(), &p);
  if (outcome.load != Status::kOk || p.header->arena_bytes > kMaxArenaToRun) return outcome;
  ExactBuffer arena(p.header->arena_bytes);
  for (uint32_t i = 0; i < arena.size(); ++i) arena.data()[i] = static_cast<uint8_t>(i * 37u + 11u);
  outcome.ran = true;
  outcome.run = run_program(p, arena.data(), arena.size());
  return outcome;
}

Status load_status(const Bytes& bytes) {
  ExactBuffer program(bytes);
  Program p;
  return load_program(program.data(), program.size(), &p);
}

// XORs 1-3 random bytes with random non-zero values.
Bytes flip_bytes(Bytes bytes, std::mt19937& rng) {
  std::uniform_int_distribution<size_t> where(0, bytes.size() - 1);
  std::uniform_int_distribution<int> value(1, 255);
  std::uniform_int_distribution<int> count(1, 3);
  for (int n = count(rng); n > 0; --n) bytes[where(rng)] ^= static_cast<uint8_t>(value(rng));
  return bytes;
}

// Unpacks a model with the schema's object API, lets `change` edit it and
// packs it again.
Bytes edit_model(const Bytes& model, const std::function<void(tflite::ModelT&)>& change) {
  std::unique_ptr<tflite::ModelT> unpacked = tflite::UnPackModel(model.data());
  change(*unpacked);
  flatbuffers::FlatBufferBuilder builder;
  tflite::FinishModelBuffer(builder, tflite::Model::Pack(builder, unpacked.get()));
  return Bytes(builder.GetBufferPointer(), builder.GetBufferPointer() + builder.GetSize());
}

int64_t elements_of(const std::vector<int32_t>& shape) {
  int64_t n = 1;
  for (int32_t d : shape) n *= d;
  return n;
}

Bytes compile_or_die(const Bytes& model) {
  Bytes program;
  const std::string error = compile_error(model, &program);
  if (!error.empty()) throw std::runtime_error("unexpected compile error: " + error);
  return program;
}

bool contains(const std::string& text, const std::string& needle) {
  return text.find(needle) != std::string::npos;
}

// --------------------------------------------------------------- fixture

class BadInput : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto shared = shared_dir();
    if (!shared) GTEST_SKIP() << "../shared not found";
    shared_ = *shared;
    hello_ = read_file(shared_ + "/models/hello_world_int8.tflite");
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = (fs::temp_directory_path() /
            ("tinyaot-robust-" + std::to_string(getpid()) + "-" + info->name()))
               .string();
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    if (!dir_.empty()) fs::remove_all(dir_);
  }

  std::string path(const std::string& name) const { return dir_ + "/" + name; }
  std::string put(const std::string& name, const Bytes& bytes) const {
    write_file(path(name), bytes);
    return path(name);
  }

  ChildResult cli(std::vector<std::string> args, const std::vector<std::string>& env = {}) const {
    args.insert(args.begin(), TINYAOT_CLI);
    return run_child(args, dir_, env);
  }

  // `tinyaot compile` of `model`; returns the child result, the -o path in *out.
  ChildResult cli_compile(const Bytes& model, std::string* out) const {
    const std::string in = put("model.tflite", model);
    *out = path("model.tao");
    fs::remove(*out);
    return cli({"compile", in, "-q", "--target", "cortex-m4", "-o", *out});
  }

  // `tinyaot run` of `program` on hello world's 1-byte input.
  ChildResult cli_run(const Bytes& program, std::string* out, const Bytes& input = {0x10},
                      const std::vector<std::string>& env = {}) const {
    const std::string tao = put("program.tao", program);
    const std::string in = put("input.bin", input);
    *out = path("output.bin");
    fs::remove(*out);
    return cli({"run", tao, "--input", in, "--output", *out}, env);
  }

  // Exit code exactly 1 (a crash or sanitizer abort is not), the CLI's error
  // line naming the problem, and no output file, not even a temporary.
  static void expect_clean_failure(const ChildResult& r, const std::string& out,
                                   const std::vector<std::string>& needles,
                                   const std::string& what) {
    SCOPED_TRACE(what);
    EXPECT_EQ(r.signal, 0) << r.err;
    EXPECT_EQ(r.exit_code, 1) << r.err;
    EXPECT_FALSE(r.sanitizer_report()) << r.err;
    EXPECT_TRUE(contains(r.err, "tinyaot: error: ")) << r.err;
    for (const std::string& needle : needles)
      EXPECT_TRUE(contains(r.err, needle)) << "missing '" << needle << "' in:\n" << r.err;
    EXPECT_FALSE(fs::exists(out)) << out << " was left behind";
    EXPECT_FALSE(fs::exists(out + ".tmp-tinyaot")) << "temporary of " << out << " was left behind";
  }

  // Either a success with its output, or a clean failure.
  static void expect_clean_outcome(const ChildResult& r, const std::string& out,
                                   const std::string& what) {
    if (r.exit_code == 0) {
      SCOPED_TRACE(what);
      EXPECT_FALSE(r.sanitizer_report()) << r.err;
      EXPECT_TRUE(fs::exists(out));
    } else {
      expect_clean_failure(r, out, {}, what);
    }
  }

  std::string shared_;
  std::string dir_;
  Bytes hello_;
};

// ------------------------------------------------------- .tflite: corrupt

TEST_F(BadInput, RepackedModelStillCompiles) {
  // The edits below go through unpack/pack; this proves the round trip
  // alone changes nothing that matters.
  EXPECT_EQ(compile_error(edit_model(hello_, [](tflite::ModelT&) {})), "");
}

TEST_F(BadInput, AModelThatDoesNotFitTheRamLimitIsRefusedWithBothFigures) {
  const Bytes kws = read_file(shared_ + "/models/kws_ref_model.tflite");
  const std::string in = put("kws.tflite", kws);
  const std::string out = path("kws.tao");
  // kws plans a 16,000-byte arena: 15K (15,360 bytes) cannot hold it.
  fs::remove(out);
  ChildResult r = cli({"compile", in, "-q", "--ram-limit", "15K", "-o", out});
  expect_clean_failure(r, out, {"16000", "15360", "RAM limit"}, "kws in 15K");
  r = cli({"compile", in, "-q", "--ram-limit", "lots", "-o", out});
  expect_clean_failure(r, out, {"--ram-limit", "lots"}, "bad --ram-limit");
  r = cli({"compile", in, "-q", "--ram-limit", "64K", "-o", out});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(fs::exists(out));
}

TEST_F(BadInput, EveryTruncationOfTheSmallModelIsRefused) {
  ASSERT_EQ(hello_.size(), 2704u);
  for (size_t length = 0; length < hello_.size(); ++length) {
    const Bytes cut(hello_.begin(), hello_.begin() + static_cast<std::ptrdiff_t>(length));
    const std::string error = compile_error(cut);
    ASSERT_TRUE(contains(error, "truncated")) << "length " << length << ": '" << error << "'";
  }
  for (size_t length : {size_t{0}, size_t{7}, size_t{8}, size_t{100}, size_t{1352}, size_t{2703}}) {
    std::string out;
    const ChildResult r = cli_compile(Bytes(hello_.begin(), hello_.begin() + length), &out);
    expect_clean_failure(r, out, {"truncated"}, "compile, length " + std::to_string(length));
  }
}

TEST_F(BadInput, ByteFlippedModelsCompileOrFailCleanly) {
  const Bytes kws = read_file(shared_ + "/models/kws_ref_model.tflite");
  std::mt19937 rng(20240611);
  std::map<std::string, int> tally;
  auto check = [&](const Bytes& model, int samples, const char* name) {
    for (int i = 0; i < samples; ++i) {
      const Bytes flipped = flip_bytes(model, rng);
      Bytes program;
      const std::string error = compile_error(flipped, &program);
      if (!error.empty()) {
        ++tally[std::string(name) + " refused"];
        continue;
      }
      ++tally[std::string(name) + " compiled"];
      // What the compiler writes, the loader must accept and run.
      const Outcome o = load_and_run(program);
      ASSERT_EQ(o.load, Status::kOk) << name << " sample " << i << ": " << status_name(o.load);
      if (o.ran) {
        EXPECT_EQ(o.run, Status::kOk) << name << " sample " << i;
      }
    }
  };
  check(hello_, 300, "hello_world");
  check(kws, 120, "kws");
  for (const auto& [what, count] : tally) std::cout << "  " << what << ": " << count << "\n";

  for (int i = 0; i < 6; ++i) {
    std::string out;
    const ChildResult r = cli_compile(flip_bytes(hello_, rng), &out);
    expect_clean_outcome(r, out, "CLI flip sample " + std::to_string(i));
  }
}

TEST_F(BadInput, WrongIdentifierAndEmptyFile) {
  Bytes wrong = hello_;
  std::memcpy(wrong.data() + 4, "TFL2", 4);
  EXPECT_TRUE(contains(compile_error(wrong), "TFL3 file identifier")) << compile_error(wrong);
  EXPECT_TRUE(contains(compile_error(Bytes{}), "empty")) << compile_error(Bytes{});

  std::string out;
  expect_clean_failure(cli_compile(wrong, &out), out, {"TFL3 file identifier"}, "wrong identifier");
  expect_clean_failure(cli_compile(Bytes{}, &out), out, {"empty or truncated (0 bytes)"}, "empty");
  // A compiled program is not a model.
  expect_clean_failure(cli_compile(compile_or_die(hello_), &out), out, {"TFL3 file identifier"},
                       ".tao given to compile");
}

// --------------------------------------------------- .tflite: unsupported

TEST_F(BadInput, UnsupportedOperatorIsNamedWithTheSupportedList) {
  // Every operator of hello world uses code 0; make it SPLIT.
  const Bytes split = edit_model(hello_, [](tflite::ModelT& m) {
    m.operator_codes[0]->builtin_code = tflite::BuiltinOperator::SPLIT;
    m.operator_codes[0]->deprecated_builtin_code = 49;
  });
  const std::string error = compile_error(split);
  EXPECT_TRUE(contains(error, "operator 0 is SPLIT")) << error;
  EXPECT_TRUE(contains(error, "supported operators: " + supported_tflite_op_names())) << error;
  std::string out;
  expect_clean_failure(cli_compile(split, &out), out,
                       {"operator 0 is SPLIT", "FULLY_CONNECTED", "CONV_2D", "SOFTMAX"}, "SPLIT");

  // A later operator: only the last one is changed, through a new code.
  const Bytes last = edit_model(hello_, [](tflite::ModelT& m) {
    auto code = std::make_unique<tflite::OperatorCodeT>();
    code->builtin_code = tflite::BuiltinOperator::SPLIT_V;
    code->deprecated_builtin_code = 102;
    m.operator_codes.push_back(std::move(code));
    m.subgraphs[0]->operators.back()->opcode_index =
        static_cast<uint32_t>(m.operator_codes.size() - 1);
  });
  const std::string last_op =
      std::to_string(tflite::UnPackModel(hello_.data())->subgraphs[0]->operators.size() - 1);
  EXPECT_TRUE(contains(compile_error(last), "operator " + last_op + " is SPLIT_V"))
      << compile_error(last);

  // A code the schema does not know, and a custom operator.
  const Bytes unknown = edit_model(hello_, [](tflite::ModelT& m) {
    m.operator_codes[0]->builtin_code = static_cast<tflite::BuiltinOperator>(9999);
    m.operator_codes[0]->deprecated_builtin_code = 127;
  });
  EXPECT_TRUE(contains(compile_error(unknown), "operator 0 is builtin 9999"))
      << compile_error(unknown);
  const Bytes custom = edit_model(hello_, [](tflite::ModelT& m) {
    m.operator_codes[0]->builtin_code = tflite::BuiltinOperator::CUSTOM;
    m.operator_codes[0]->deprecated_builtin_code = 32;
    m.operator_codes[0]->custom_code = "MyFancyOp";
  });
  EXPECT_TRUE(contains(compile_error(custom), "custom operator 'MyFancyOp'"))
      << compile_error(custom);
}

TEST_F(BadInput, Float32ModelIsRefused) {
  // Float tensors inside: every tensor float32, weights resized, no quantization.
  const Bytes float_model = edit_model(hello_, [](tflite::ModelT& m) {
    for (auto& t : m.subgraphs[0]->tensors) {
      t->type = tflite::TensorType::FLOAT32;
      t->quantization.reset();
      auto& data = m.buffers[t->buffer]->data;
      if (!data.empty()) data.assign(static_cast<size_t>(elements_of(t->shape)) * 4, 0);
    }
  });
  const std::string error = compile_error(float_model);
  EXPECT_TRUE(contains(error, "operator 0")) << error;
  EXPECT_TRUE(contains(error, "float32")) << error;
  std::string out;
  expect_clean_failure(cli_compile(float_model, &out), out, {"operator 0", "float32"}, "float32");
}

TEST_F(BadInput, Uint8ModelIsRefused) {
  const Bytes uint8_model = edit_model(hello_, [](tflite::ModelT& m) {
    for (auto& t : m.subgraphs[0]->tensors)
      if (t->type == tflite::TensorType::INT8) t->type = tflite::TensorType::UINT8;
  });
  const std::string error = compile_error(uint8_model);
  EXPECT_TRUE(contains(error, "has type UINT8")) << error;
  std::string out;
  expect_clean_failure(cli_compile(uint8_model, &out), out, {"has type UINT8", "int8"}, "uint8");
}

TEST_F(BadInput, OverflowingShapesAreRefused) {
  const int32_t target = tflite::UnPackModel(hello_.data())->subgraphs[0]->operators[0]->outputs[0];
  auto with_shape = [&](std::vector<int32_t> shape) {
    return edit_model(hello_,
                      [&](tflite::ModelT& m) { m.subgraphs[0]->tensors[target]->shape = shape; });
  };
  const Bytes huge = with_shape({65536, 65536, 1024});
  const std::string label = "tensor " + std::to_string(target);
  EXPECT_TRUE(contains(compile_error(huge), label)) << compile_error(huge);
  EXPECT_TRUE(contains(compile_error(huge), "overflows")) << compile_error(huge);
  for (const auto& shape : std::vector<std::vector<int32_t>>{
           {INT32_MAX, INT32_MAX}, {2, 2, 2, 2, 2, 2, 2}, {1, -1}, {0}, {1 << 16, 1 << 15}}) {
    const std::string error = compile_error(with_shape(shape));
    EXPECT_TRUE(contains(error, label)) << error;
  }
  std::string out;
  expect_clean_failure(cli_compile(huge, &out), out, {label, "overflows"}, "huge shape");
}

TEST_F(BadInput, ArenaLargerThanFourGigabytesIsRefused) {
  // Each tensor passes the per-tensor limit (256 MiB), but 17 model inputs
  // live at once: the arena would need more than 4 GiB.
  constexpr int kInputs = 17;
  const Bytes model = edit_model(hello_, [&](tflite::ModelT& m) {
    auto& g = *m.subgraphs[0];
    auto code = std::make_unique<tflite::OperatorCodeT>();
    code->builtin_code = tflite::BuiltinOperator::ADD;
    code->deprecated_builtin_code = 0;
    m.operator_codes.clear();
    m.operator_codes.push_back(std::move(code));
    m.buffers.resize(1);
    g.tensors.clear();
    g.operators.clear();
    g.inputs.clear();
    auto add_tensor = [&](const std::string& name) {
      auto t = std::make_unique<tflite::TensorT>();
      t->shape = {1 << 14, 1 << 14};
      t->type = tflite::TensorType::INT8;
      t->buffer = 0;
      t->name = name;
      t->quantization = std::make_unique<tflite::QuantizationParametersT>();
      t->quantization->scale = {0.5f};
      t->quantization->zero_point = {0};
      g.tensors.push_back(std::move(t));
      return static_cast<int32_t>(g.tensors.size() - 1);
    };
    for (int i = 0; i < kInputs; ++i) g.inputs.push_back(add_tensor("in" + std::to_string(i)));
    int32_t sum = g.inputs[0];
    for (int i = 1; i < kInputs; ++i) {
      auto op = std::make_unique<tflite::OperatorT>();
      op->opcode_index = 0;
      const int32_t out = add_tensor("sum" + std::to_string(i));
      op->inputs = {sum, g.inputs[static_cast<size_t>(i)]};
      op->outputs = {out};
      g.operators.push_back(std::move(op));
      sum = out;
    }
    g.outputs = {sum};
  });
  const std::string error = compile_error(model);
  EXPECT_FALSE(error.empty()) << "a model whose arena exceeds 4 GiB compiled";
  // Caught by the plan's own consistency check is not enough: the message
  // must say the arena is too large, not report an internal error.
  EXPECT_TRUE(contains(error, "arena")) << error;
  EXPECT_FALSE(contains(error, "internal")) << error;
  std::string out;
  expect_clean_failure(cli_compile(model, &out), out, {}, "arena over 4 GiB");
}

TEST_F(BadInput, MissingBuffersAndTensorsAreRefused) {
  const Bytes missing_buffer =
      edit_model(hello_, [](tflite::ModelT& m) { m.subgraphs[0]->tensors[1]->buffer = 9999; });
  const std::string error = compile_error(missing_buffer);
  EXPECT_TRUE(contains(error, "tensor 1")) << error;
  EXPECT_TRUE(contains(error, "refers to buffer 9999, which does not exist")) << error;
  std::string out;
  expect_clean_failure(cli_compile(missing_buffer, &out), out,
                       {"refers to buffer 9999, which does not exist"}, "missing buffer");

  // Every tensor pointing one past the last buffer.
  const Bytes past_end = edit_model(hello_, [](tflite::ModelT& m) {
    for (auto& t : m.subgraphs[0]->tensors) t->buffer = static_cast<uint32_t>(m.buffers.size());
  });
  EXPECT_TRUE(contains(compile_error(past_end), "which does not exist")) << compile_error(past_end);

  // Constant data shorter than the shape needs.
  const Bytes short_data = edit_model(hello_, [](tflite::ModelT& m) {
    for (auto& t : m.subgraphs[0]->tensors) {
      auto& data = m.buffers[t->buffer]->data;
      if (!data.empty()) {
        data.pop_back();
        break;
      }
    }
  });
  EXPECT_TRUE(contains(compile_error(short_data), "bytes of data, its shape needs"))
      << compile_error(short_data);

  const Bytes missing_tensor =
      edit_model(hello_, [](tflite::ModelT& m) { m.subgraphs[0]->operators[0]->inputs[0] = 99; });
  EXPECT_TRUE(
      contains(compile_error(missing_tensor), "operator 0 (FULLY_CONNECTED) refers to tensor 99"))
      << compile_error(missing_tensor);
}

// ---------------------------------------------------------- .tao: corrupt

class BadProgram : public BadInput {
 protected:
  void SetUp() override {
    BadInput::SetUp();
    if (IsSkipped()) return;
    program_ = compile_or_die(hello_);
    ASSERT_EQ(load_status(program_), Status::kOk);
  }
  TaoEditor editor() const { return TaoEditor{program_}; }
  Bytes program_;
};

TEST_F(BadProgram, EveryTruncationIsTruncated) {
  for (size_t length = 0; length < program_.size(); ++length) {
    const Bytes cut(program_.begin(), program_.begin() + static_cast<std::ptrdiff_t>(length));
    ASSERT_EQ(load_status(cut), Status::kTruncated) << "length " << length;
  }
  for (size_t length : {size_t{0}, size_t{95}, size_t{96}, program_.size() - 1}) {
    std::string out;
    const ChildResult r = cli_run(Bytes(program_.begin(), program_.begin() + length), &out);
    expect_clean_failure(r, out, {"kTruncated"}, "run, length " + std::to_string(length));
  }
  std::string out = path("unused");
  const ChildResult r =
      cli({"report", put("cut.tao", Bytes(program_.begin(), program_.begin() + 200))});
  expect_clean_failure(r, out, {"kTruncated"}, "report of a truncated program");
}

TEST_F(BadProgram, ByteFlipsWithoutChecksumFixupAreCaught) {
  std::mt19937 rng(7);
  std::map<Status, int> tally;
  for (int i = 0; i < 400; ++i) {
    const Status s = load_status(flip_bytes(program_, rng));
    ASSERT_NE(s, Status::kOk) << "sample " << i;
    ++tally[s];
  }
  EXPECT_GT(tally[Status::kChecksumMismatch], 300);
  for (const auto& [s, count] : tally) std::cout << "  " << status_name(s) << ": " << count << "\n";
  for (int i = 0; i < 4; ++i) {
    std::string out;
    expect_clean_failure(cli_run(flip_bytes(program_, rng), &out), out, {"does not load"},
                         "flip " + std::to_string(i));
  }
}

TEST_F(BadProgram, ByteFlipsWithChecksumFixupNeverCrash) {
  const Bytes kws = compile_or_die(read_file(shared_ + "/models/kws_ref_model.tflite"));
  std::mt19937 rng(99);
  std::map<std::string, int> tally;
  auto check = [&](const Bytes& program, int samples, const char* name) {
    // Flip only the structures before the constants: flips in the weights
    // always load and tell nothing about the loader.
    const uint32_t structural =
        TaoEditor{program}.header().params_offset + TaoEditor{program}.header().params_bytes;
    for (int i = 0; i < samples; ++i) {
      TaoEditor e{flip_bytes(Bytes(program.begin(), program.begin() + structural), rng)};
      e.bytes.insert(e.bytes.end(), program.begin() + structural, program.end());
      e.fix_checksum();
      const Outcome o = load_and_run(e.bytes);
      ++tally[std::string(name) + " " + status_name(o.load) +
              (o.ran ? std::string(" ran:") + status_name(o.run) : "")];
    }
  };
  check(program_, 500, "hello_world");
  check(kws, 200, "kws");
  for (const auto& [what, count] : tally) std::cout << "  " << what << ": " << count << "\n";
  for (int i = 0; i < 6; ++i) {
    TaoEditor e{flip_bytes(program_, rng)};
    e.fix_checksum();
    std::string out;
    expect_clean_outcome(cli_run(e.bytes, &out), out, "CLI flip " + std::to_string(i));
  }
}

TEST_F(BadProgram, BadMagicAndVersion) {
  TaoEditor magic = editor();
  magic.bytes[0] = 'X';
  EXPECT_EQ(load_status(magic.bytes), Status::kBadMagic);
  TaoEditor version = editor();
  version.edit_header([](ProgramHeader& h) { h.format_version = kProgramFormatVersion + 1; });
  EXPECT_EQ(load_status(version.bytes), Status::kUnsupportedVersion);
  version.fix_checksum();
  EXPECT_EQ(load_status(version.bytes), Status::kUnsupportedVersion);

  std::string out;
  expect_clean_failure(cli_run(magic.bytes, &out), out, {"bad magic", "kBadMagic"}, "magic");
  expect_clean_failure(cli_run(version.bytes, &out), out, {"kUnsupportedVersion"}, "version");
  expect_clean_failure(cli_run(hello_, &out), out, {"kBadMagic"}, ".tflite given to run");
  expect_clean_failure(cli_run(Bytes{}, &out), out, {"kTruncated"}, "empty program");
  const ChildResult verify = cli({"verify", put("magic.tao", magic.bytes)});
  expect_clean_failure(verify, path("none"), {"kBadMagic"}, "verify");
}

// One structural edit (checksum fixed) and the distinct status it must give.
struct StructuralCase {
  const char* what;
  Status expected;
  std::function<void(TaoEditor&)> edit;
  const char* log_needle;  // a word the loader's detail line must contain
};

TEST_F(BadProgram, StructuralDamageGivesDistinctStatus) {
  const ProgramHeader h = editor().header();
  ASSERT_GE(h.num_ops, 1u);
  ASSERT_GE(h.num_kernels, 1u);
  const OpRecord op0 = editor().op(0);
  const AbiEntry k0 = editor().kernel(op0.kernel);
  const std::string kernel_name = k0.name;
  const uint32_t in0 = op0.first_operand;
  const uint32_t out0 = op0.first_operand + op0.num_inputs;
  // A constant operand of op 0 (its weights), for region checks.
  uint32_t constant0 = UINT32_MAX;
  for (uint32_t i = 0; i < op0.num_inputs; ++i)
    if (editor().get<BufferRef>(editor().operand_at(in0 + i)).region == 1) constant0 = in0 + i;
  ASSERT_NE(constant0, UINT32_MAX);

  auto header_edit = [](std::function<void(ProgramHeader&)> f) {
    return [f](TaoEditor& e) { e.edit_header(f); };
  };
  auto op_edit = [](std::function<void(OpRecord&)> f) {
    return [f](TaoEditor& e) { e.edit<OpRecord>(e.op_at(0), f); };
  };
  auto abi_edit = [&](std::function<void(AbiEntry&)> f) {
    return [f, &op0](TaoEditor& e) { e.edit<AbiEntry>(e.kernel_at(op0.kernel), f); };
  };
  auto operand_edit = [](uint32_t index, std::function<void(BufferRef&)> f) {
    return [index, f](TaoEditor& e) { e.edit<BufferRef>(e.operand_at(index), f); };
  };
  auto io_edit = [](bool output, std::function<void(IoDesc&)> f) {
    return
        [output, f](TaoEditor& e) { e.edit<IoDesc>(output ? e.output_at(0) : e.input_at(0), f); };
  };

  const std::vector<StructuralCase> cases = {
      {"arena not a multiple of 16", Status::kBadHeader,
       header_edit([](ProgramHeader& x) { x.arena_bytes += 8; }), "arena"},
      {"file_bytes beyond the data", Status::kTruncated,
       header_edit([](ProgramHeader& x) { x.file_bytes += 16; }), "declares"},
      {"ops section past the end", Status::kSectionOutOfFile,
       header_edit([](ProgramHeader& x) { x.ops_offset = x.file_bytes; }), "section"},
      {"huge op count", Status::kSectionOutOfFile,
       header_edit([](ProgramHeader& x) { x.num_ops = 0x10000000u; }), "section"},
      {"huge constants", Status::kSectionOutOfFile,
       header_edit([](ProgramHeader& x) { x.constants_bytes = 0xfffffff0u; }), "section"},
      {"misaligned ops section", Status::kMisaligned,
       header_edit([](ProgramHeader& x) { x.ops_offset -= 2; }), "aligned"},
      {"unknown core", Status::kUnknownTarget, header_edit([](ProgramHeader& x) { x.core = 99; }),
       "target"},
      {"unknown ISA class", Status::kUnknownTarget,
       header_edit([](ProgramHeader& x) { x.isa = 7; }), "target"},
      {"unknown rounding", Status::kBadRounding,
       header_edit([](ProgramHeader& x) { x.rounding = 9; }), "rounding"},
      {"input dtype", Status::kBadIo, io_edit(false, [](IoDesc& d) { d.dtype = 77; }), "input 0"},
      {"input outside the arena", Status::kBadIo,
       io_edit(false, [&](IoDesc& d) { d.arena_offset = h.arena_bytes; }), "input 0"},
      {"output with a zero dimension", Status::kBadIo,
       io_edit(true, [](IoDesc& d) { d.dims[0] = 0; }), "output 0"},
      {"unterminated io name", Status::kBadIo,
       io_edit(true, [](IoDesc& d) { std::memset(d.name, 'x', kNameBytes); }), "output 0"},
      {"kernel id not in the runtime", Status::kUnknownKernel,
       abi_edit([](AbiEntry& a) { a.kernel_id = 9999; }), kernel_name.c_str()},
      {"kernel index outside the table", Status::kUnknownKernel,
       op_edit([&](OpRecord& o) { o.kernel = static_cast<uint16_t>(h.num_kernels); }),
       "kernel index"},
      {"kernel id of another variant", Status::kAbiMismatch,
       abi_edit([](AbiEntry& a) { a.kernel_id = a.kernel_id == 0 ? 1 : 0; }), kernel_name.c_str()},
      {"ABI version", Status::kAbiMismatch, abi_edit([](AbiEntry& a) { a.version += 1; }),
       kernel_name.c_str()},
      {"ABI name", Status::kAbiMismatch, abi_edit([](AbiEntry& a) { a.name[0] ^= 0x20; }),
       "variant missing from the runtime"},
      {"ABI params size", Status::kAbiMismatch, abi_edit([](AbiEntry& a) { a.params_bytes += 4; }),
       kernel_name.c_str()},
      {"ABI fingerprint", Status::kAbiMismatch, abi_edit([](AbiEntry& a) { a.fingerprint ^= 1; }),
       kernel_name.c_str()},
      {"ABI name unterminated", Status::kAbiMismatch,
       abi_edit([](AbiEntry& a) { std::memset(a.name, 'k', kNameBytes); }), "unterminated"},
      {"no inputs", Status::kAbiMismatch, op_edit([](OpRecord& o) { o.num_inputs = 0; }),
       "program supplies 0 inputs"},
      {"two outputs", Status::kAbiMismatch, op_edit([](OpRecord& o) { o.num_outputs = 2; }),
       "program supplies 2 outputs, runtime expects 1"},
      {"operands past the table", Status::kBadOperation,
       op_edit([&](OpRecord& o) { o.first_operand = h.num_operands - 1; }), "malformed"},
      {"params past the section", Status::kBadOperation,
       op_edit([&](OpRecord& o) { o.params_offset = h.params_bytes; }), "malformed"},
      {"misaligned params", Status::kBadOperation,
       op_edit([](OpRecord& o) { o.params_offset += 2; }), "malformed"},
      {"input outside the arena", Status::kOperandOutOfBounds,
       operand_edit(in0, [&](BufferRef& r) { r.offset = h.arena_bytes; }), "outside the arena"},
      {"input size wraps", Status::kOperandOutOfBounds,
       operand_edit(in0, [](BufferRef& r) { r.bytes = 0xffffffffu; }), "outside"},
      {"unknown region", Status::kOperandOutOfBounds,
       operand_edit(in0, [](BufferRef& r) { r.region = 5; }), "unknown region"},
      {"constant outside the constants", Status::kOperandOutOfBounds,
       operand_edit(constant0, [&](BufferRef& r) { r.offset = h.constants_bytes; }),
       "outside the constants"},
      {"misaligned constant", Status::kMisaligned,
       operand_edit(constant0, [](BufferRef& r) { r.offset += 1; }), "aligned"},
      {"output in the constants", Status::kOperandNotWritable,
       operand_edit(out0,
                    [](BufferRef& r) {
                      r.region = 1;
                      r.offset = 0;
                    }),
       "not in the arena"},
      {"output outside the arena", Status::kOperandOutOfBounds,
       operand_edit(out0, [&](BufferRef& r) { r.offset = h.arena_bytes - 1; }),
       "outside the arena"},
      {"output smaller than the params say", Status::kBadParams,
       operand_edit(out0, [](BufferRef& r) { r.bytes -= 1; }), "parameters"},
      {"scratch outside the arena", Status::kOperandOutOfBounds, op_edit([&](OpRecord& o) {
         o.scratch = {0, h.arena_bytes, 16};
       }),
       "outside the arena"},
      {"scratch in the constants", Status::kOperandNotWritable, op_edit([](OpRecord& o) {
         o.scratch = {1, 0, 16};
       }),
       "not in the arena"},
  };
  std::set<Status> seen;
  for (const StructuralCase& c : cases) {
    TaoEditor e = editor();
    c.edit(e);
    e.fix_checksum();
    LogCapture capture;
    EXPECT_EQ(load_status(e.bytes), c.expected)
        << c.what << ": got " << status_name(load_status(e.bytes)) << "\n"
        << captured_log();
    EXPECT_TRUE(contains(captured_log(), c.log_needle))
        << c.what << ": log lacks '" << c.log_needle << "':\n"
        << captured_log();
    seen.insert(c.expected);
  }
  EXPECT_GE(seen.size(), 12u);

  // Pointer and arena arguments.
  Program p;
  ExactBuffer storage(program_.size() + 1);
  std::memcpy(storage.data() + 1, program_.data(), program_.size());
  EXPECT_EQ(load_program(storage.data() + 1, static_cast<uint32_t>(program_.size()), &p),
            Status::kMisaligned);
  EXPECT_EQ(load_program(nullptr, 100, &p), Status::kNullArgument);
  ExactBuffer good(program_);
  ASSERT_EQ(load_program(good.data(), good.size(), &p), Status::kOk);
  ExactBuffer arena(p.header->arena_bytes);
  EXPECT_EQ(run_program(p, arena.data(), p.header->arena_bytes - 16), Status::kArenaTooSmall);
  EXPECT_EQ(run_program(p, arena.data() + 1, p.header->arena_bytes - 16), Status::kMisaligned);
  EXPECT_EQ(run_program(p, nullptr, p.header->arena_bytes), Status::kNullArgument);
}

TEST_F(BadProgram, ScratchSmallerThanTheKernelNeeds) {
  // hello world's kernels need no scratch; find an operation that does.
  for (const fs::directory_entry& entry : fs::directory_iterator(shared_ + "/golden-ops")) {
    for (const fs::directory_entry& file : fs::directory_iterator(entry.path())) {
      if (file.path().extension() != ".tflite") continue;
      TaoEditor e{compile_or_die(read_file(file.path().string()))};
      for (uint32_t i = 0; i < e.header().num_ops; ++i) {
        if (e.op(i).scratch.bytes == 0) continue;
        e.edit<OpRecord>(e.op_at(i), [](OpRecord& o) { o.scratch.bytes -= 4; });
        e.fix_checksum();
        LogCapture capture;
        EXPECT_EQ(load_status(e.bytes), Status::kScratchMismatch) << file.path() << "\n"
                                                                  << captured_log();
        EXPECT_TRUE(contains(captured_log(), "planned scratch")) << captured_log();
        return;
      }
    }
  }
  GTEST_SKIP() << "no golden-ops model uses scratch";
}

TEST_F(BadProgram, CliNamesTheOperatorOnAbiMismatch) {
  const OpRecord op0 = editor().op(0);
  const std::string kernel_name = editor().kernel(op0.kernel).name;
  TaoEditor version = editor();
  version.edit<AbiEntry>(version.kernel_at(op0.kernel), [](AbiEntry& a) { a.version += 1; });
  version.fix_checksum();
  TaoEditor name = editor();
  name.edit<AbiEntry>(name.kernel_at(op0.kernel), [](AbiEntry& a) { a.name[1] = '#'; });
  name.fix_checksum();
  TaoEditor unknown = editor();
  unknown.edit<AbiEntry>(unknown.kernel_at(op0.kernel), [](AbiEntry& a) { a.kernel_id = 5000; });
  unknown.fix_checksum();
  TaoEditor outside = editor();
  outside.edit<BufferRef>(outside.operand_at(op0.first_operand),
                          [&](BufferRef& r) { r.offset = outside.header().arena_bytes; });
  outside.fix_checksum();

  std::string out;
  expect_clean_failure(cli_run(version.bytes, &out), out, {kernel_name, "version", "kAbiMismatch"},
                       "ABI version");
  std::string renamed = kernel_name;
  renamed[1] = '#';
  expect_clean_failure(cli_run(name.bytes, &out), out,
                       {renamed, "variant missing from the runtime", "kAbiMismatch"}, "ABI name");
  expect_clean_failure(cli_run(unknown.bytes, &out), out, {"5000", "kUnknownKernel"}, "kernel id");
  expect_clean_failure(cli_run(outside.bytes, &out), out,
                       {"outside the arena", "kOperandOutOfBounds"}, "operand");
  const ChildResult verify = cli({"verify", put("v.tao", version.bytes)});
  expect_clean_failure(verify, path("none"), {kernel_name, "kAbiMismatch"}, "verify ABI");
}

TEST_F(BadProgram, OutOfRangeChannelConstantsAreRefusedAtLoadNamingTheOperation) {
  // hello world's operations are FULLY_CONNECTEDs: input 2 of each is its
  // per-unit ChannelQuant array, a constant of the program. A corrupt shift
  // or multiplier there must stop the load, before anything runs; kernels
  // no longer check it per call.
  const TaoEditor clean = editor();
  const OpRecord op0 = clean.op(0);
  const std::string kernel_name = clean.kernel(op0.kernel).name;
  ASSERT_EQ(kernel_name.rfind("fully_connected", 0), 0u) << kernel_name;
  const BufferRef quant = clean.get<BufferRef>(clean.operand_at(op0.first_operand + 2));
  ASSERT_EQ(quant.region, static_cast<uint32_t>(Region::kConstants));
  ASSERT_GE(quant.bytes, sizeof(ChannelQuant));
  const size_t last_channel =
      clean.header().constants_offset + quant.offset + quant.bytes - sizeof(ChannelQuant);
  const size_t shift_at = last_channel + offsetof(ChannelQuant, shift);
  const size_t multiplier_at = last_channel + offsetof(ChannelQuant, multiplier);
  ASSERT_TRUE(is_shift(clean.get<int32_t>(shift_at)));

  const std::vector<std::pair<size_t, int32_t>> corruptions = {
      {shift_at, 31}, {shift_at, -32}, {shift_at, INT32_MIN}, {multiplier_at, -1}};
  for (const auto& [at, value] : corruptions) {
    SCOPED_TRACE((at == shift_at ? "shift " : "multiplier ") + std::to_string(value));
    TaoEditor e = editor();
    e.set<int32_t>(at, value);
    e.fix_checksum();
    LogCapture capture;
    const Outcome outcome = load_and_run(e.bytes);
    EXPECT_EQ(outcome.load, Status::kBadParams) << captured_log();
    EXPECT_FALSE(outcome.ran);
    EXPECT_TRUE(contains(captured_log(), "operation 0 (" + kernel_name + ")")) << captured_log();
  }
  TaoEditor e = editor();
  e.set<int32_t>(shift_at, 40);
  e.fix_checksum();
  std::string out;
  expect_clean_failure(cli_run(e.bytes, &out), out, {"operation 0", kernel_name, "kBadParams"},
                       "corrupt shift through the CLI");
}

TEST_F(BadProgram, RunRefusesWrongInputs) {
  std::string out;
  expect_clean_failure(cli_run(program_, &out, Bytes{1, 2}), out, {"needs 1 bytes", "has 2"},
                       "input too long");
  expect_clean_failure(cli_run(program_, &out, Bytes{}), out, {"needs 1 bytes", "has 0"},
                       "empty input");
  const std::string tao = put("ok.tao", program_);
  const std::string in = put("in.bin", Bytes{1});
  out = path("o.bin");
  expect_clean_failure(cli({"run", tao, "--input", in, "--input", in, "--output", out}), out,
                       {"takes 1 input(s), 2 given"}, "two inputs");
  expect_clean_failure(cli({"run", tao, "--input", path("absent.bin"), "--output", out}), out,
                       {"cannot open"}, "missing input file");
  // The good path still works, so the failures above are about the inputs.
  const ChildResult ok = cli({"run", tao, "--input", in, "--output", out});
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
  EXPECT_TRUE(fs::exists(out));
}

#if defined(__SANITIZE_ADDRESS__)
#define TINYAOT_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TINYAOT_TEST_ASAN 1
#endif
#endif

TEST_F(BadProgram, HugeDeclaredArenaIsHandled) {
#if !defined(TINYAOT_TEST_ASAN)
  GTEST_SKIP() << "needs AddressSanitizer's allocation limit to run safely";
#endif
  // A program that loads (all its offsets fit) but declares a 4 GiB arena:
  // the host tool must refuse or allocate it, never wrap the size. The
  // child's allocator is capped, so an honest 4 GiB request fails cleanly.
  TaoEditor e = editor();
  e.edit_header([](ProgramHeader& x) { x.arena_bytes = 0xfffffff0u; });
  e.fix_checksum();
  ASSERT_EQ(load_status(e.bytes), Status::kOk);
  std::string out;
  const ChildResult r =
      cli_run(e.bytes, &out, {0x10},
              {"ASAN_OPTIONS=allocator_may_return_null=1:max_allocation_size_mb=1024"});
  EXPECT_EQ(r.signal, 0) << r.err;
  EXPECT_FALSE(r.sanitizer_report()) << r.err;
  EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 1) << r.exit_code << "\n" << r.err;
  if (r.exit_code != 0) expect_clean_failure(r, out, {}, "4 GiB arena");
}

}  // namespace
}  // namespace tinyaot::test
